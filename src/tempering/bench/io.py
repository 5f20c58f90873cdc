"""``tempering bench io``: what writing the run file costs as a run grows (issue 34).

Two tables from one run, on ``mvn_mean`` (``dim`` coordinates, 50 data points) sampled by
random-walk Metropolis, 4 chains, through the command line as a user runs it:

1. **Peak memory against run length.** ``tempering sample`` with ``N`` draws per chain, each in a
   child process whose peak resident set (``ru_maxrss`` from ``os.wait4``) is read when it exits;
   beside it the draws' size in memory (4 · N · dim float64), the run's own seconds (pilot,
   compilation, warmup, sampling) and the rest of the process's wall time (imports, gathering the
   draws and writing the file). A run file that streams its draws peaks at
   about the same memory whatever N; one held in memory and written at the end grows with N.
2. **Checkpoint cost against draws already written.** The same run with and without
   ``--checkpoint-every E``, for several N: the extra sampling seconds divided by the number of
   checkpoints is the mean cost of one checkpoint. A checkpoint that writes only what is new costs
   the same at any N; one that rewrites the whole file grows with N (the run's total cost then
   grows with N²).

Hand-written: no library measures a CLI run's peak memory and checkpoint overhead together.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tempering import UserInputError, load_run
from tempering.registry import RunnableSpec

#: Draws per chain of the memory table, and of the checkpoint table with its interval.
MEMORY_DRAWS = (1_000, 10_000, 100_000, 400_000)
CHECKPOINT_DRAWS = (10_000, 40_000, 100_000)
EVERY = 5_000
#: The same for ``--quick`` (what the test runs).
QUICK_MEMORY, QUICK_CHECKPOINT, QUICK_EVERY = (200, 800), (400, 800), 200
CHAINS = 4


def _tempering() -> str:
    """The ``tempering`` command of this interpreter's environment."""
    script = Path(sys.executable).with_name("tempering")
    return str(script) if script.is_file() else "tempering"


def cli_run(out: Path, dim: int, draws: int, every: int = 0) -> dict[str, float]:
    """``tempering sample`` in a child process: its peak resident MB and wall seconds, the run's
    seconds (sampling; in all) as its file records them, and the file's size."""
    args = [_tempering(), "sample", "--model", "mvn_mean", "--set", f"model.dim={dim}",
            "--set", "model.n=50", "--sampler", "rwm", "--chains", str(CHAINS), "--draws",
            str(draws), "--warmup", "200", "--seed", "1", "--no-progress",
            "--checkpoint-every", str(every), "--out", str(out)]
    started = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    err = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise UserInputError(f"bench io: tempering sample failed: {err.strip()[-300:]}")
    attrs = load_run(out)["posterior"].attrs
    seconds = {name: float(attrs.get(f"wall_seconds_{name}", 0.0))
               for name in ("total", "compile", "warmup", "sampling")}
    return {"peak_mb": usage.ru_maxrss / 1024.0, "wall": wall,
            "sampling": seconds["sampling"], "run": seconds["total"],
            "file_mb": out.stat().st_size / 2**20}


def memory_table(folder: Path, dim: int, lengths: tuple[int, ...]) -> list[str]:
    rows = ["| draws per chain | draws in memory (MB) | peak resident (MB) | file (MB) | "
            "run (s) | process wall − run (s) |", "|---|---|---|---|---|---|"]
    for draws in lengths:
        got = cli_run(folder / f"m{draws}.nc", dim, draws)
        rows.append(f"| {draws} | {CHAINS * draws * dim * 8 / 2**20:.1f} | "
                    f"{got['peak_mb']:.0f} | {got['file_mb']:.1f} | {got['run']:.1f} | "
                    f"{got['wall'] - got['run']:.1f} |")
    return rows


def checkpoint_table(folder: Path, dim: int, lengths: tuple[int, ...], every: int) -> list[str]:
    rows = [f"| draws per chain | checkpoints (every {every}) | sampling s without | sampling s "
            "with | s per checkpoint | slowdown |", "|---|---|---|---|---|---|"]
    for draws in lengths:
        plain = cli_run(folder / f"p{draws}.nc", dim, draws)
        checked = cli_run(folder / f"c{draws}.nc", dim, draws, every)
        count = draws // every
        extra = checked["sampling"] - plain["sampling"]
        rows.append(f"| {draws} | {count} | {plain['sampling']:.1f} | {checked['sampling']:.1f}"
                    f" | {extra / max(count, 1):.2f} | "
                    f"{100 * extra / max(plain['sampling'], 1e-9):+.0f}% |")
    return rows


def run(n: int | None = None, dim: int | None = None, quick: bool = False) -> None:
    """Print both tables (``quick``: tiny runs, seconds each; ``dim``: default 100)."""
    if n is not None:
        raise UserInputError("bench io: --n does not apply (the model has 50 data points)")
    dim = 2 if quick and dim is None else (dim or 100)
    memory = QUICK_MEMORY if quick else MEMORY_DRAWS
    checkpoints = QUICK_CHECKPOINT if quick else CHECKPOINT_DRAWS
    every = QUICK_EVERY if quick else EVERY
    with tempfile.TemporaryDirectory(prefix="tempering-bench-io-") as folder:
        print(f"mvn_mean, dim {dim}, n 50, rwm, {CHAINS} chains, warmup 200, through "
              "`tempering sample` in a child process each")
        print("\nPeak memory against run length\n")
        print("\n".join(memory_table(Path(folder), dim, memory)))
        print("\nCheckpoint cost against draws already written\n")
        print("\n".join(checkpoint_table(Path(folder), dim, checkpoints, every)))


SPEC = RunnableSpec("io", "peak memory against run length, and seconds per checkpoint against "
                    "draws already written (run files, issue 34)", run)
