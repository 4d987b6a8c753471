"""`tritonc compile --emit=c`: the generated header and source compile with gcc against cuda.h
(C99, warnings as errors), for a kernel without tensor maps (sm_80) and one with them (the sm_90a
fp16 matmul, TMA). Needs the tritonc tool ($TRITONC, else on PATH), ptxas and cuda.h, as CI has;
running the result needs a GPU (examples/aot/run.sh, in scripts/gpu-test)."""

import os
import pathlib
import re
import shutil
import subprocess

import pytest

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"
TRITONC = os.environ.get("TRITONC") or shutil.which("tritonc")
CUDA_INCLUDE = os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include")

pytestmark = [
    pytest.mark.skipif(not TRITONC, reason="needs the tritonc tool ($TRITONC or on PATH)"),
    pytest.mark.skipif(not os.path.exists(os.path.join(CUDA_INCLUDE, "cuda.h")),
                       reason=f"needs cuda.h in {CUDA_INCLUDE} ($CUDA_INCLUDE)"),
    pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc"),
]


def _generate(tmp_path, name, *args):
    out = tmp_path / f"{name}.c"
    subprocess.run([TRITONC, "compile", *args, "--emit=c", "-o", str(out)], check=True,
                   capture_output=True, text=True)
    return out.read_text(), (tmp_path / f"{name}.h").read_text()


def _compiles(tmp_path, name):
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", f"-I{CUDA_INCLUDE}",
                    str(tmp_path / f"{name}.c"), "-o", str(tmp_path / f"{name}.o")],
                   check=True, capture_output=True, text=True)
    symbols = subprocess.run(["nm", str(tmp_path / f"{name}.o")], capture_output=True,
                             text=True).stdout
    return symbols


def test_a_kernel_without_tensor_maps(tmp_path):
    source, header = _generate(tmp_path, "transpose_f32", str(KERNELS / "transpose.tc"),
                               "-DTM=32", "-DTN=32", "--arch=sm_80")
    assert ("CUresult transpose_f32(CUstream stream, unsigned grid_x, unsigned grid_y, "
            "unsigned grid_z, CUdeviceptr X, CUdeviceptr Y, int32_t M, int32_t N, int32_t ldx, "
            "int32_t ldy);") in header
    assert "cuTensorMapEncodeTiled" not in source
    assert 'cuModuleGetFunction(&e->function, e->module, "transpose")' in source
    # The cubin is an ELF image.
    assert re.search(r"transpose_f32_cubin\[\d+\][^{]*\{\s*0x7f, 0x45, 0x4c, 0x46,", source)
    symbols = _compiles(tmp_path, "transpose_f32")
    for defined in ("T transpose_f32", "T transpose_f32_load", "T transpose_f32_unload"):
        assert defined in symbols
    assert "U cuLaunchKernel" in symbols


def test_the_tma_matmul_encodes_its_tensor_maps(tmp_path):
    source, header = _generate(tmp_path, "matmul_fp16", str(KERNELS / "matmul.tc"), "-DTYPE=half",
                               "-DTM=128", "-DTN=128", "-DTK=64", "--arch=sm_90a",
                               "--specialize=DDDSSSSSU")
    assert "CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int32_t M" in header
    assert "specialization DDDSSSSSU" in header
    assert "cuTensorMapEncodeTiled" in source
    maps = re.findall(r"static const struct matmul_fp16_map_spec matmul_fp16_map\d", source)
    assert len(maps) >= 2  # A and B at least
    # What the specialization assumed, checked at each launch: S a non-negative multiple of 16, U >= 0.
    assert "if ((A) % 16 != 0)" in source and "if ((K) % 16 != 0)" in source
    assert "if ((K) < 0)" in source and "if ((ldc) < 0)" in source
    assert "if ((ldc) % 16 != 0)" not in source and "if ((A) < 0)" not in source
    assert "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES" in source
    symbols = _compiles(tmp_path, "matmul_fp16")
    assert "U cuTensorMapEncodeTiled" in symbols


def test_the_output_must_name_a_c_file_with_an_identifier(tmp_path):
    result = subprocess.run([TRITONC, "compile", str(KERNELS / "transpose.tc"), "--arch=sm_80",
                             "--emit=c", "-o", str(tmp_path / "2bad-name.c")],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "'2bad-name' is not a C identifier" in result.stderr


# A stand-in for libcuda: contexts are thread-local numbers, a module load takes 20 ms (a window
# for racing first launches) and remembers its context, and a launch fails unless its function
# belongs to the current context.
FAKE_CUDA = r"""
#include <cuda.h>
#include <stdint.h>
#include <time.h>

int fake_loads, fake_unloads, fake_launches;
_Thread_local uintptr_t fake_context = 1;

CUresult cuCtxGetCurrent(CUcontext *ctx) {
  *ctx = (CUcontext)fake_context;
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  struct timespec t = {0, 20000000};
  (void)image;
  nanosleep(&t, 0);
  __atomic_add_fetch(&fake_loads, 1, __ATOMIC_SEQ_CST);
  *module = (CUmodule)fake_context;
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name) {
  (void)name;
  *f = (CUfunction)module;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  (void)f, (void)a, (void)v;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) {
  (void)p;
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule module) {
  (void)module;
  __atomic_add_fetch(&fake_unloads, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                        void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)s;
  (void)params, (void)extra;
  if ((uintptr_t)f != fake_context)
    return CUDA_ERROR_INVALID_HANDLE;
  __atomic_add_fetch(&fake_launches, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}
"""

# Eight threads launch at once, in two contexts; then an unload and a launch that loads again.
CONCURRENT_LAUNCHES = r"""
#include "transpose_f32.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

extern int fake_loads, fake_unloads, fake_launches;
extern _Thread_local uintptr_t fake_context;
static pthread_barrier_t start;

static void *launch(void *context) {
  fake_context = (uintptr_t)context;
  pthread_barrier_wait(&start);
  return (void *)(uintptr_t)transpose_f32(0, 1, 1, 1, 0, 0, 32, 32, 32, 32);
}

int main(void) {
  pthread_t threads[8];
  pthread_barrier_init(&start, 0, 8);
  for (uintptr_t i = 0; i < 8; ++i)
    pthread_create(&threads[i], 0, launch, (void *)(1 + i % 2));
  int failed = 0;
  for (int i = 0; i < 8; ++i) {
    void *r;
    pthread_join(threads[i], &r);
    failed += r != 0;
  }
  printf("failed %d loads %d launches %d\n", failed, fake_loads, fake_launches);
  CUresult unloaded = transpose_f32_unload();
  CUresult again = transpose_f32(0, 1, 1, 1, 0, 0, 32, 32, 32, 32);
  printf("unload %d unloads %d launch %d loads %d\n", unloaded, fake_unloads, again, fake_loads);
  return 0;
}
"""


def test_concurrent_first_launches_load_the_module_once_per_context(tmp_path):
    _generate(tmp_path, "transpose_f32", str(KERNELS / "transpose.tc"), "-DTM=32", "-DTN=32",
              "--arch=sm_80")
    (tmp_path / "fake_cuda.c").write_text(FAKE_CUDA)
    (tmp_path / "main.c").write_text(CONCURRENT_LAUNCHES)
    subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{CUDA_INCLUDE}",
                    f"-I{tmp_path}", str(tmp_path / "main.c"), str(tmp_path / "transpose_f32.c"),
                    str(tmp_path / "fake_cuda.c"), "-pthread", "-o", str(tmp_path / "main")],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([str(tmp_path / "main")], check=True, capture_output=True, text=True,
                         timeout=60).stdout.splitlines()
    # One load per context however the threads raced, every launch with its context's function.
    assert out[0] == "failed 0 loads 2 launches 8"
    # The unload drops both modules; the next launch loads again.
    assert out[1] == "unload 0 unloads 2 launch 0 loads 3"
