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
