"""ArviZ's import started ahead (:func:`tempering.lazy_arviz.prefetch`): a run kept in memory
starts it, :func:`~tempering.lazy_arviz.arviz` waits for it, and a failed prefetch leaves the
caller's own import to work or fail. Each case runs in a fresh interpreter (this one has ArviZ)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _fresh(script: str) -> str:
    """``script``'s standard output, run in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_run_in_memory_starts_the_prefetch_and_arviz_waits_for_it() -> None:
    out = _fresh("""
        import sys
        import tempering.lazy_arviz as lazy
        from tempering import get_model, get_sampler, run_chains

        model = get_model("mvn_mean", n=20, dim=2)
        started = []
        real = lazy.prefetch
        lazy.prefetch = lambda: (started.append("arviz" in sys.modules), real())
        import tempering.run.driver as driver
        driver.prefetch = lazy.prefetch
        result = run_chains(model, get_sampler("rwm", model), key=0, draws=20, warmup=20,
                            chains=2, progress=False)
        print(started, lazy._PREFETCH is not None, lazy._PREFETCH.is_alive(),
              type(result.idata).__name__, lazy.arviz().Numba.numba_flag)
    """)
    assert out == "[False] True False InferenceData False"


def test_arviz_joins_the_prefetch_thread() -> None:
    out = _fresh("""
        import tempering.lazy_arviz as lazy

        lazy.prefetch()
        thread = lazy._PREFETCH
        lazy.prefetch()  # once
        az = lazy.arviz()
        print(thread is lazy._PREFETCH, thread.is_alive(), az.__name__)
    """)
    assert out == "True False arviz"


def test_a_failed_prefetch_leaves_the_import_to_the_caller() -> None:
    out = _fresh("""
        import tempering.lazy_arviz as lazy

        real = lazy._import_arviz
        def broken():
            raise ImportError("no ArviZ in the thread")
        lazy._import_arviz = broken
        lazy.prefetch()
        lazy._PREFETCH.join()
        lazy._import_arviz = real
        print(lazy.arviz().__name__)
    """)
    assert out == "arviz"
