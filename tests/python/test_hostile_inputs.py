"""Adversarial inputs through the Python module (issue 26): every one is a
CompileError (or a ValueError for options) raised in well under a second or
two, never a crashed interpreter, a hang or an exhausted memory. CPU only:
compilation needs no GPU.

Run with the module on the path:  export PYTHONPATH=$(scripts/build-python.sh)
                                  python3 -m pytest -q tests/python/test_hostile_inputs.py
"""

import atexit
import os
import shutil
import tempfile
import time

_CACHE = tempfile.mkdtemp(prefix="tritonc-pytest-hostile-")
atexit.register(shutil.rmtree, _CACHE, True)
os.environ.setdefault("TRITONC_CACHE_DIR", _CACHE)

import pytest  # noqa: E402

import tritonc  # noqa: E402


def _rejects(source, *needles, seconds=10, **options):
    """Compiles source, expects a CompileError naming every needle, in time."""
    start = time.monotonic()
    with pytest.raises(tritonc.CompileError) as info:
        tritonc.compile(source, cache=False, **options)
    elapsed = time.monotonic() - start
    for needle in needles:
        assert needle in str(info.value), str(info.value)[:2000]
    assert elapsed < seconds, f"took {elapsed:.1f} s"
    return str(info.value)


def test_long_operator_chains_are_errors_not_stack_overflows():
    chain = "+".join(["i"] * 30000)
    _rejects("void f(int *p, int i) {\n  *p = " + chain + ";\n}\n",
             "expression is too long or nested too deeply")
    _rejects("void f(int *p, int i) {\n  if (" + "&&".join(["i"] * 100000) + ") *p = 1;\n}\n",
             "more than 1024 operators deep")
    _rejects("void f(int *p, int i) {\n  *p = (" + ",".join(["i"] * 100000) + ");\n}\n",
             "more than 1024 operators deep")
    # With a syntax error at the end: the tree is torn down safely too.
    _rejects("void f(int *p, int i) {\n  *p = " + chain + " +;\n}\n", "too long")


def test_a_chain_under_the_limit_compiles():
    k = tritonc.compile("void f(int *p, int i) {\n  *p = " + "+".join(["i"] * 1000) + ";\n}\n",
                        cache=False)
    assert ".visible .entry f(" in k.ptx


def test_nested_macros_stop_at_the_expansion_limit():
    src = "#define F(x) x+x\nvoid f(int *p) { *p = " + "F(" * 23 + "1" + ")" * 23 + "; }\n"
    _rejects(src, "macro expansion is too large", seconds=5)


def test_doubling_includes_stop_at_the_inclusion_limit(tmp_path):
    for k in range(31):
        body = (f'#include "h{k + 1}.h"\n' * 2) if k < 30 else "// leaf\n"
        (tmp_path / f"h{k}.h").write_text(body)
    main = tmp_path / "main.tc"
    main.write_text('#include "h0.h"\nvoid f(int *p) { *p = 1; }\n')
    _rejects(main, "too many #include directives followed", seconds=5)


def test_special_files_as_includes(tmp_path):
    (tmp_path / "dir.h").mkdir()
    os.mkfifo(tmp_path / "fifo.h")
    main = tmp_path / "main.tc"
    main.write_text('#include "dir.h"\n#include "fifo.h"\nvoid f(int *p) { *p = 1; }\n')
    msg = _rejects(main, "'dir.h' is a directory, not a file", "not a regular file")
    assert "main.tc:1:10" in msg


def test_tile_shapes_that_overflow_64_bits():
    src = "void f(int *p) {\n  int t[4294967296, 4294967297] = 1;\n  *p = t[+, +];\n}\n"
    _rejects(src, "too large (the limit is 16777216)")
    bcast = ("void f(float *p) {\n  float a[8192] = 1;\n  float b[8192] = 2;\n"
             "  *p = (a[:, newaxis] + b[newaxis, :])[+, +];\n}\n")
    _rejects(bcast, "gives a tile that is too large")


def test_a_tile_too_large_for_the_back_end_is_refused_early():
    src = ("void f(float *p, float *q) {\n  int i[2048] = 0 ... 2048;\n  int j[1024] = 0 ... 1024;\n"
           "  float x[2048, 1024] = *(p + i[:, newaxis] * 1024 + j[newaxis, :]);\n"
           "  *q = x[+, +];\n}\n")
    _rejects(src, "too large for the GPU back end", "1048576", seconds=5)


def test_huge_tuning_spaces_are_refused():
    lists = {f"D{k}": list(range(10)) for k in range(7)}  # 10^7 configurations
    src = "void f(int *p) { *p = 1; }\n"
    start = time.monotonic()
    with pytest.raises((tritonc.CompileError, ValueError)) as info:
        tritonc.compile(src, defines=lists, config=0, cache=False)
    assert "the limit is 100000" in str(info.value)
    assert time.monotonic() - start < 5


def test_many_warnings_are_capped():
    src = "#if 1\n#endif junk\n" * 1000 + "void f(int *p) { *p = 1; @ }\n"
    msg = _rejects(src, "more warnings not shown (warning limit reached)")
    assert msg.count("warning:") <= 20
