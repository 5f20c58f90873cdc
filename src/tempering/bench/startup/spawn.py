"""Each row in a fresh child process (:mod:`.child`), with the persistent compilation caches off:
the environment it gets, the process's wall seconds as the parent sees them, and a failed row —
the child's one-line error, its last line of standard error, or the time limit — instead of a
crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import tempering
from tempering.bench.startup import child

#: The child script, run by path (``-P``: its folder is not put on ``sys.path``).
CHILD = Path(child.__file__)


def child_environment() -> dict[str, str]:
    """This process's environment with both persistent caches off and this ``tempering`` first
    on the path (the one being measured)."""
    env = dict(os.environ)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env["TEMPERING_COMPILE_CACHE"] = "off"
    env["JAX_ENABLE_COMPILATION_CACHE"] = "false"
    source = str(Path(tempering.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (source, env.get("PYTHONPATH"))))
    return env


def last_line(text: str) -> str:
    """The last non-empty line of ``text`` (a traceback's exception line), at most 300 chars."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def parsed(stdout: str, prefix: str = child.ROW_PREFIX) -> dict[str, Any] | None:
    """The row a child printed (its line starting with ``prefix``), or ``None``."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(prefix):
            try:
                row = json.loads(line[len(prefix):])
            except json.JSONDecodeError:
                return None
            return row if isinstance(row, dict) else None
    return None


def measure(request: dict[str, Any], timeout: float) -> dict[str, Any]:
    """The row of ``request``, measured in a child process: the child's figures, ``process``
    (its wall seconds from the parent's side) and ``interpreter`` (``process`` less the child's
    ``total`` and harness: starting and stopping Python). A row that failed has ``ok`` false and
    ``error``, one line."""
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-P", str(CHILD), json.dumps(request)],
                              env=child_environment(), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {**request, "ok": False, "error": f"timed out after {timeout:g} s",
                "process": time.perf_counter() - start}
    process = time.perf_counter() - start
    row = parsed(done.stdout)
    if row is None:
        error = last_line(done.stderr) or f"exit status {done.returncode}, no row printed"
        return {**request, "ok": False, "error": error, "process": process}
    row = {**request, **row, "process": process}
    if row.get("ok"):
        row["interpreter"] = process - row["total"] - row["harness"]
    return row
