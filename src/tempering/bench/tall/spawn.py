"""Each contender in a fresh child process (:mod:`.child`) with the persistent compilation caches
off — the environment of ``bench startup`` (:func:`tempering.bench.startup.spawn.child_environment`)
— and a failed run (the child's one-line error, its last line of standard error, or the time
limit) as a row instead of a crash.

Two of JAX's defaults are changed for every process of the bench (:data:`ENVIRONMENT`, unless
the variable is already set; each row records what its child found):

- on an accelerator JAX takes 75% of the device's memory when a process first uses it; the
  bench's processes take what they use instead, so that the parent's references and a child
  share the device, two quick children can run at once, and the device's peak memory is the
  run's own;
- on a GPU, float32 matrix products default to TensorFloat-32 (a 10-bit mantissa), which breaks
  float32 sampling of tall data: on an H100, NumPyro's NUTS at n = 10⁵, d = 10 took 515 leapfrog
  steps per iteration and ended 20 posterior sds off, against 0.05 sd with full float32 products
  (``JAX_DEFAULT_MATMUL_PRECISION=highest``, the setting here; no effect on a CPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tempering.bench.startup.spawn import child_environment, last_line, parsed
from tempering.bench.tall import child

#: The child script, run by path (``-P``: its folder is not put on ``sys.path``).
CHILD = Path(child.__file__)
#: Settings for every process of the bench (the parent's too), unless already set.
ENVIRONMENT = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "JAX_DEFAULT_MATMUL_PRECISION": "highest"}


def environment() -> dict[str, str]:
    """A child's environment: caches off, :data:`ENVIRONMENT` unless set."""
    return {**ENVIRONMENT, **child_environment()}


@contextmanager
def bench_environment() -> Iterator[None]:
    """:data:`ENVIRONMENT` in this process's environment where unset (before this process first
    uses JAX's devices), as it was afterwards."""
    added = [key for key in ENVIRONMENT if key not in os.environ]
    os.environ.update({key: ENVIRONMENT[key] for key in added})
    try:
        yield
    finally:
        for key in added:
            os.environ.pop(key, None)


def measure(request: dict[str, Any], timeout: float) -> dict[str, Any]:
    """The row of ``request``, run in a child process: the child's figures and ``process``, its
    wall seconds from the parent's side (Python's start and exit included). A failed run has
    ``ok`` false and ``error``, one line."""
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-P", str(CHILD), json.dumps(request)],
                              env=environment(), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {**request, "ok": False, "error": f"timed out after {timeout:g} s",
                "process": time.perf_counter() - start}
    process = time.perf_counter() - start
    row = parsed(done.stdout, child.ROW_PREFIX)
    if row is None:
        error = last_line(done.stderr) or f"exit status {done.returncode}, no row printed"
        return {**request, "ok": False, "error": error, "process": process}
    return {**request, **row, "process": process}
