"""One contender of ``tempering bench tall``, run in a fresh interpreter: cold, with the
persistent compilation caches off (the parent sets the environment, as ``bench startup`` does).

The parent runs this file as a script (``python -P child.py REQUEST``), never as a module of the
package: importing ``tempering.bench`` would import every benchmark first and charge it to the
contender. Its module-level imports are the standard library's only; it loads the runners
(:mod:`tempering.bench.tall.runs`) from their file beside it. ``REQUEST`` is the JSON of one
request (:mod:`.plan`). The child prints one line, :data:`ROW_PREFIX` + JSON, and exits 1 when
the run failed (its ``error`` is the exception's one line).

What it measures, wall seconds on one clock from the script's first line:

- the runner's phases (``startup``: imports and the model with its data, up to the run;
  ``compile``: the wall during which JAX traced, lowered or compiled anything in the run;
  ``optimise``: HMCECS's MAP; ``warmup``, ``sampling``; ``other``: the rest of ``total``, the
  clock when the draws were on the host — the drivers' own work around the programs);
- ``peak_rss_bytes``: the process's peak resident memory (``ru_maxrss``), and on an accelerator
  its peak device memory (``device_peak_bytes``, from JAX's ``memory_stats``);
- ``device``: the platform and kind of the device JAX ran on; ``draws_dtype``: the dtype of the
  draws the contender returned.

The draws go to ``request["draws_path"]`` (a ``.npy`` file, after the clock stops); a runner that
returns a weighted population (``weights``: SMC's particles, ``bench tall-mixture``) has its
weights written to ``request["weights_path"]``. The runners come from :data:`RUNS`, or from the
file ``request["runs"]`` names (another benchmark's runners, with the same contract).
"""

from __future__ import annotations

import time

START = time.perf_counter()

import importlib.util  # noqa: E402 - the clock starts before anything else is imported
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any, TypeVar  # noqa: E402

#: What starts the row's line on standard output.
ROW_PREFIX = "tempering-bench-tall-row: "
#: JAX's compilation events: tracing, lowering to MLIR, XLA's compiling.
COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration",
                  "/jax/core/compile/jaxpr_to_mlir_module_duration",
                  "/jax/core/compile/backend_compile_duration")
#: The settings a row records as the child found them.
ENVIRONMENT_KEYS = ("XLA_PYTHON_CLIENT_PREALLOCATE", "JAX_DEFAULT_MATMUL_PRECISION",
                    "JAX_PLATFORMS", "XLA_FLAGS", "TEMPERING_COMPILE_CACHE")
#: The runners' file, loaded by path (:func:`runners`).
RUNS = Path(__file__).with_name("runs.py")
T = TypeVar("T")


class Clock:
    """Seconds since the script's first line, and the wall seconds during which JAX compiled
    anything (the union of its compilation events' spans, on ``time.time()``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # XLA compiles on worker threads too
        self.spans: list[tuple[float, float]] = []

    def listen(self) -> None:
        """Register for JAX's compilation events (imports JAX)."""
        import jax.monitoring

        jax.monitoring.register_event_time_span_listener(self._span)

    def _span(self, event: str, start_time: float, end_time: float, **kwargs: Any) -> None:
        if event in COMPILE_EVENTS:
            with self.lock:
                self.spans.append((start_time, end_time))

    @staticmethod
    def now() -> float:
        """Seconds since the script's first line."""
        return time.perf_counter() - START

    def compiling(self, lo: float, hi: float) -> float:
        """Wall seconds of ``[lo, hi)`` (``time.time()``) during which anything compiled."""
        with self.lock:
            clipped = sorted((max(s, lo), min(e, hi)) for s, e in self.spans if e > lo and s < hi)
        total, end = 0.0, lo
        for s, e in clipped:
            if e > end:
                total += e - max(s, end)
                end = e
        return total

    def timed(self, call: Callable[[], T]) -> tuple[T, float, float]:
        """``call()`` (which must wait for its results), its wall seconds, and the seconds of
        that wall during which JAX compiled."""
        lo, start = time.time(), time.perf_counter()
        result = call()
        wall = time.perf_counter() - start
        return result, wall, min(wall, self.compiling(lo, time.time()))


def runners(path: Path = RUNS) -> ModuleType:
    """The runners' module, loaded from its file ``path`` (not through the package: see the
    module docstring)."""
    name = "tempering_bench_runs_" + path.parent.name
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def device_facts() -> dict[str, Any]:
    """The device JAX ran on, and its peak memory where JAX reports it (accelerators)."""
    import jax

    device = jax.devices()[0]
    facts: dict[str, Any] = {"device": {"platform": device.platform,
                                        "kind": str(getattr(device, "device_kind", "")),
                                        "count": jax.device_count(),
                                        "jax": jax.__version__}}
    try:
        stats = device.memory_stats() or {}
    except Exception:  # noqa: BLE001 - CPU devices may not report memory at all
        stats = {}
    if "peak_bytes_in_use" in stats:
        facts["device_peak_bytes"] = int(stats["peak_bytes_in_use"])
    return facts


def measure(request: dict[str, Any]) -> dict[str, Any]:
    """Run the request's contender and return its row (module docstring)."""
    import numpy as np

    import tempering  # noqa: F401 - what every contender's user imports first (lazy)

    clock = Clock()
    clock.listen()
    found = runners(Path(request.get("runs", RUNS))).RUNNERS[request["kind"]](request, clock)
    total = clock.now()
    draws = found.pop("draws")
    np.save(request["draws_path"], draws)
    weights = found.pop("weights", None)
    if weights is not None:
        np.save(request["weights_path"], weights)
    phases = found.pop("phases")
    phases["other"] = max(0.0, total - sum(phases.values()))
    return {"phases": phases, "total": total, "draws_dtype": str(draws.dtype),
            "draws_shape": list(draws.shape),
            "finite": bool(np.all(np.isfinite(draws))), **found, **device_facts(),
            "environment": {key: os.environ.get(key) for key in ENVIRONMENT_KEYS},
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def one_line(error: BaseException) -> str:
    """``Type: message``, the message's first line, at most 300 characters."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def main(argv: list[str]) -> int:
    """Measure the request of ``argv[1]`` and print its row; 1 when it failed."""
    request = json.loads(argv[1])
    try:
        row = {"ok": True, **measure(request)}
    except Exception as error:  # noqa: BLE001 - a failed row is a result, not a crash
        row = {"ok": False, "error": one_line(error)}
    print(ROW_PREFIX + json.dumps(row), flush=True)
    return 0 if row["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
