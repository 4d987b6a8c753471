"""pytest glue for the kernel tests: reproducible random seeds.

Every run draws a fresh base seed (from the clock) unless TRITONC_TEST_SEED is
set; each test derives its own seed from the base seed and its node id. The
base seed is printed in the header and, with the test's own seed, in the report
of every failing test, so a failure can be replayed with
TRITONC_TEST_SEED=<base> pytest tests/kernels -k <test>.
"""
import os
import time
import zlib

import numpy as np
import pytest

BASE_SEED = int(os.environ.get("TRITONC_TEST_SEED", time.time_ns() % (2**31)))


def pytest_report_header(config):
    return f"tritonc kernel tests: TRITONC_TEST_SEED={BASE_SEED}"


@pytest.fixture
def rng(request):
    seed = (BASE_SEED + zlib.crc32(request.node.nodeid.encode())) % (2**32)
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        seeds = [v for k, v in item.user_properties if k == "seed"]
        report.sections.append(
            ("random seed", f"TRITONC_TEST_SEED={BASE_SEED} (test seed {seeds[0] if seeds else '-'})"))


# TRITONC_TEST_SUBSET=N runs a deterministic part of the suite: every test function with each of its launch
# variants at least once (its first configuration), and of the rest the tests whose node id hashes to 0
# modulo N. scripts/test.sh uses it for the second, sanitized pass over the kernels, which is several times
# slower than the first; the first pass runs everything.
def pytest_collection_modifyitems(config, items):
    subset = int(os.environ.get("TRITONC_TEST_SUBSET", "1"))
    if subset <= 1:
        return
    kept, deselected, groups_seen = [], [], set()
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        group = (item.originalname, str(params.get("launch", "")))
        if group not in groups_seen or zlib.crc32(item.nodeid.encode()) % subset == 0:
            groups_seen.add(group)
            kept.append(item)
        else:
            deselected.append(item)
    config.hook.pytest_deselected(items=deselected)
    items[:] = kept
