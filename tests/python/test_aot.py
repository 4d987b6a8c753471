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
    assert 'cuModuleGetFunction(&transpose_f32_function, transpose_f32_module, "transpose")' \
        in source
    # The cubin is an ELF image.
    assert re.search(r"transpose_f32_cubin\[\d+\][^{]*\{\s*0x7f, 0x45, 0x4c, 0x46,", source)
    symbols = _compiles(tmp_path, "transpose_f32")
    for defined in ("T transpose_f32", "T transpose_f32_load", "T transpose_f32_unload"):
        assert defined in symbols
    assert "U cuLaunchKernel" in symbols


def test_the_tma_matmul_encodes_its_tensor_maps(tmp_path):
    source, header = _generate(tmp_path, "matmul_fp16", str(KERNELS / "matmul.tc"), "-DTYPE=half",
                               "-DTM=128", "-DTN=128", "-DTK=64", "--arch=sm_90a",
                               "--specialize=DDDDDDDDD")
    assert "CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int32_t M" in header
    assert "specialization DDDDDDDDD" in header
    assert "cuTensorMapEncodeTiled" in source
    maps = re.findall(r"static const struct matmul_fp16_map_spec matmul_fp16_map\d", source)
    assert len(maps) >= 2  # A and B at least
    assert "if ((A) % 16 != 0)" in source and "if ((K) % 16 != 0)" in source
    assert "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES" in source
    symbols = _compiles(tmp_path, "matmul_fp16")
    assert "U cuTensorMapEncodeTiled" in symbols


def test_the_output_must_name_a_c_file_with_an_identifier(tmp_path):
    result = subprocess.run([TRITONC, "compile", str(KERNELS / "transpose.tc"), "--arch=sm_80",
                             "--emit=c", "-o", str(tmp_path / "2bad-name.c")],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "'2bad-name' is not a C identifier" in result.stderr
