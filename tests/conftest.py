"""pytest configuration: JAX's settings of the package come first (:mod:`tempering.jax_setup`:
float64 before any test builds arrays; ``import tempering`` alone sets nothing), ArviZ is
imported the package's way (:mod:`tempering.lazy_arviz`: Numba hidden and off) before a test
module imports it, programs compile without XLA's backend optimisations (and with its older CPU
emitters), and the whole session shares one JAX compilation cache.

Compilation, not sampling, is most of the suite's time (a tempering sampler's warmup and chunk
programs take 3–5 s each to compile and a fraction of that to run at the tests' sizes). XLA's
backend optimisation level 0 halves the compile time of those programs and at most doubles their
run time, and XLA's older CPU emitters (``--xla_cpu_use_fusion_emitters=false``) compile them in
a further ~30% less time than its MLIR fusion emitters (``make test``: 536 s → 384 s of pytest on
2 cores, 2026-11-27), so the tests set both (in ``XLA_FLAGS``, before JAX starts). The tests
check mathematics — invariance, exact answers, bit-identical reruns within one setting — not
LLVM's optimisations; ``TEMPERING_TEST_XLA_OPTIMIZE=1`` runs them fully optimised, as the package
runs for users.

Many tests build the same program more than once — a sampler with the same options on the same
model in several tests, a run and its ``rerun`` — and each build traces a new closure, which JAX's
in-memory cache cannot recognise. The persistent cache keys compiled programs by their HLO, so
the second build of an identical program loads it instead of compiling it again (on this 2-core
machine a tempering sampler compiles in ~5 s and loads in ~1 s). The cache lives in a temporary
directory for this session only — shared by pytest-xdist's workers, which inherit its path from
the controlling process through ``TEMPERING_TEST_JAX_CACHE`` — and is removed at the session's
end. The command line's own cache (:mod:`tempering.compile_cache`) is pointed at it too
(``TEMPERING_COMPILE_CACHE``), so no test writes to the user's ``~/.cache``. Shared test pieces
live in :mod:`support`.
"""

from __future__ import annotations

import os
import shutil
import tempfile

_FAST_COMPILE = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"
if (os.environ.get("TEMPERING_TEST_XLA_OPTIMIZE", "0") != "1"
        and _FAST_COMPILE not in os.environ.get("XLA_FLAGS", "")):  # xdist workers inherit it
    os.environ["XLA_FLAGS"] = " ".join(filter(None, (os.environ.get("XLA_FLAGS"), _FAST_COMPILE)))

import jax  # noqa: E402
import pytest  # noqa: E402
from samplers_table import SAMPLERS_TABLE  # noqa: E402

import tempering.jax_setup  # noqa: E402, F401
from tempering.lazy_arviz import arviz  # noqa: E402

arviz()
# The tests build their arrays in float64, as a user who enables it does; every run still computes
# in its model's precision (tempering.precision), and tests/package/test_precision.py checks in
# fresh processes that the package itself sets nothing.
jax.config.update("jax_enable_x64", True)

_OWNER = "TEMPERING_TEST_JAX_CACHE" not in os.environ
_CACHE = os.environ.setdefault("TEMPERING_TEST_JAX_CACHE",
                               tempfile.mkdtemp(prefix="tempering-test-jax-cache-"))
jax.config.update("jax_compilation_cache_dir", _CACHE)
os.environ["TEMPERING_COMPILE_CACHE"] = _CACHE  # the CLI in a subprocess shares it (not ~/.cache)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def pytest_sessionfinish(session, exitstatus):
    if _OWNER:
        shutil.rmtree(_CACHE, ignore_errors=True)


#: Samplers whose rerun in the registry's checks recompiles for 3-6 s: make test-slow (their run
#: files are still checked in make test); the samplers table says which.
SLOW_RERUNS = {name for name, row in SAMPLERS_TABLE.items() if row.slow_rerun}


#: The files with the most test time (seconds of one core, 2026-11-27), run first: pytest-xdist
#: hands files to the workers in collection order, so a long file collected last (the samplers'
#: registry checks sort late) would run alone at the end while the other core idles.
FIRST = ("samplers/test_registry.py", "samplers/test_tempering_geweke.py", "package/test_docs.py",
         "run/test_runfile.py", "run/test_dask.py", "bench/test_bench_multimodal.py",
         "ensemble/test_ensemble_gp.py", "st/test_st.py", "interop/test_numpyro_kernel.py",
         "tt/test_tt_approx.py")


def _file_rank(item) -> int:
    path = item.path.as_posix()
    return next((i for i, name in enumerate(FIRST) if path.endswith(f"tests/{name}")), len(FIRST))


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    items.sort(key=_file_rank)  # stable: the other files, and each file's tests, keep their order
    for item in items:
        callspec = getattr(item, "callspec", None)
        if (getattr(item, "originalname", "") == "test_rerun_reproduces_the_posterior_bit_for_bit"
                and callspec is not None and callspec.params.get("sampled") in SLOW_RERUNS):
            item.add_marker(pytest.mark.slow)
