# lit configuration for tritonc. Run through ctest, or directly:
#   lit -sv tests/lit -Dtritonc=build/tools/tritonc/tritonc -Dfilecheck=FileCheck-14
import os
import shutil

import lit.formats

config.name = "tritonc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tc", ".tir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs", "lit.cfg.py"]

tritonc = lit_config.params.get("tritonc") or shutil.which("tritonc")
filecheck = (lit_config.params.get("filecheck") or shutil.which("FileCheck")
             or shutil.which("FileCheck-14") or "/usr/lib/llvm-14/bin/FileCheck")
if not tritonc:
    lit_config.fatal("pass -Dtritonc=PATH/TO/tritonc")

# A sanitized tritonc reserves terabytes of address space: tests that cap the
# virtual memory with `ulimit -v` are marked `UNSUPPORTED: asan`.
with open(tritonc, "rb") as f:
    if b"__asan_init" in f.read():
        config.available_features.add("asan")

config.substitutions.append(("%tritonc", tritonc))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%kernels", os.path.join(config.test_source_root, "..", "..", "kernels")))
config.environment["TRITONC_CACHE_DIR"] = os.path.join(config.test_exec_root if hasattr(config, "test_exec_root") and config.test_exec_root else "/tmp", "tritonc-lit-cache")
