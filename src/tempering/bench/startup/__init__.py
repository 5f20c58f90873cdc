"""``tempering bench startup`` (issue 44, part 5): what a user's first run on a new model costs,
phase by phase — every sampler at its defaults on a small model, and PT at its defaults on each
``bench multimodal`` target, each row a cold, fresh process with the persistent compilation caches
off, beside NumPyro's NUTS and BlackJAX's adaptive tempered SMC on the same model in the same run.

Map of the package:

- :mod:`.plan` — ``FULL`` and ``QUICK`` sizes, the groups (one table each: the samplers on the
  10-D Gaussian mixture, then one per multimodal target) and each row's request;
- :mod:`.child` — the script a row runs in (a fresh interpreter): the phases it times (import,
  build, pilot, compile, warmup, sampling, writing) and JAX's compilation events (tracing,
  lowering, XLA compiling, programs compiled);
- :mod:`.spawn` — one child per row with the caches off, the process's wall seconds, a failed row
  (its one-line error) instead of a crash;
- :mod:`.report` — one markdown table per group, ratios against SMC's total.

:func:`run` prints the tables, writes every row as JSON to ``out`` when given, and returns the
rows. Identical requests (SMC on the 10-D mixture is in two groups) run once. Benchmarks report
what they measure on this machine; they are not timed tests.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tempering import UserInputError
from tempering.bench.startup.plan import chosen_size, groups
from tempering.bench.startup.report import LEGEND, table
from tempering.bench.startup.spawn import measure
from tempering.registry import RunnableSpec


def _key(request: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in request.items() if k != "label"}, sort_keys=True)


def _progress(row: dict[str, Any]) -> str:
    if not row.get("ok"):
        return f"  {row['label']}: failed after {row['process']:.1f} s: {row['error']}"
    phases = row["phases"]
    return (f"  {row['label']} ({row['model']}): total {row['total']:.1f} s (import "
            f"{phases['import']:.1f}, compile {phases['compile']:.1f}, pilot "
            f"{phases['pilot']:.1f}), {row['jax']['programs']} programs compiled")


def run(n: int | None = None, dim: int | None = None, repeats: int | None = None,
        quick: bool = False, out: Path | None = None, only: str | None = None) -> list[dict]:
    """Run every group's rows (module docstring), print one table per group, and write every row
    to the JSON file ``out`` when given; return the rows.

    ``dim``: the Gaussian mixture's dimension for the samplers (default 10); ``repeats``: a factor
    on every run's length; ``quick``: the tests' tiny sizes (RWM and PT, one 2-D target); ``only``:
    comma-separated sampler names and multimodal target keys."""
    if n is not None:
        raise UserInputError("bench startup: --n does not apply (the models are fixed)")
    size = chosen_size(quick, dim, repeats)
    chosen = groups(size, only)
    if out is not None and not Path(out).parent.is_dir():
        raise UserInputError(f"output file's folder does not exist: {Path(out).parent}")
    print(f"bench startup ({size.name}): each row a fresh process, compilation caches off; "
          f"seed 0; {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    rows: list[dict[str, Any]] = []
    done: dict[str, dict[str, Any]] = {}
    start = time.perf_counter()
    for group in chosen:
        print(f"\n{group.key}: {group.title}", flush=True)
        found = []
        for request in group.requests:
            key = _key(request)
            if key not in done:
                done[key] = measure(request, size.timeout)
            row = {**done[key], "label": request["label"], "group": group.key}
            print(_progress(row), flush=True)
            found.append(row)
        print("\n" + "\n".join(table(group, found)), flush=True)
        rows += found
    print(f"\n{LEGEND}\n\nbench startup: {time.perf_counter() - start:.0f} s in all")
    if out is not None:
        Path(out).write_text(json.dumps({"size": asdict(size), "rows": rows}, indent=1,
                                        default=str))
        print(f"wrote {out}")
    return rows


SPEC = RunnableSpec(
    "startup", "a first run's seconds in a fresh process, caches off — import, build, pilot, "
    "compile, warmup, sampling, writing — every sampler and PT on each multimodal target, beside "
    "NumPyro's NUTS and BlackJAX's SMC", run)
