"""``tempering bench tall`` (issue 45, part 4): tall data — logistic regression on n = 10⁴, 10⁵
and 10⁶ rows with 10 and 50 coefficients — the library's full-data and mini-batch samplers beside
NumPyro's NUTS and HMCECS, each a cold, fresh process, scored by how fast its posterior means
and sds come within 0.1 posterior sd of a reference.

Map of the package (one concept per file):

- :mod:`.plan` — ``FULL`` and ``QUICK`` sizes, ``--rows`` / ``--dims``, the contenders and each
  run's request;
- :mod:`.child` — the script a contender runs in (a fresh interpreter): its clock, its phases,
  JAX's compilation, peak memory, the device and the draws' dtype; :mod:`.runs` — the runners
  it loads (the library through ``run_chains``, NumPyro's NUTS and HMCECS);
- :mod:`.spawn` — one child per contender with the persistent caches off, a failed run as a
  row;
- :mod:`.laplace`, :mod:`.passes` and :mod:`.reference` — the reference (importance sampling
  from the Laplace approximation, its passes over the data in JAX, or a long float64 NUTS
  run), its own Monte-Carlo error, its cache;
- :mod:`.metrics` — the error, error against time, seconds to reach 0.1 sd;
- :mod:`.case` — one (n, d): the references and every contender's scored row;
- :mod:`.report` — one markdown table per case, ratios against NumPyro NUTS; :mod:`.plots` — one
  PNG per case.

:func:`run` prints the tables, writes the plots and the cached references under ``out`` (default
``tall-bench``) and every row as JSON to ``json_out`` when given, and returns the rows.
Benchmarks report what they measure on this machine, in one run; they are not timed tests.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tempering import UserInputError
from tempering.bench.tall.case import run_case
from tempering.bench.tall.plan import Contender, Size, chosen_contenders, chosen_size
from tempering.bench.tall.plots import plot_case
from tempering.bench.tall.report import LEGEND, reference_lines, table
from tempering.bench.tall.spawn import bench_environment
from tempering.registry import RunnableSpec


def _folder(path: Path | None, default: str) -> Path:
    folder = Path(path if path is not None else default)
    if not folder.parent.is_dir():
        raise UserInputError(f"output directory's parent does not exist: {folder.parent}")
    folder.mkdir(exist_ok=True)
    return folder


def machine() -> dict[str, Any]:
    """This machine and the device JAX uses by default here (the children report theirs)."""
    import jax

    device = jax.devices()[0]
    return {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(), "jax": jax.__version__,
            "device": named(device.platform, str(getattr(device, "device_kind", ""))),
            "devices": jax.device_count()}


def named(platform_: str, kind: str) -> str:
    """A device in words: its platform, and its kind where that says more (``gpu (NVIDIA
    H100 80GB HBM3)``)."""
    return platform_ if kind.lower() in ("", platform_.lower()) else f"{platform_} ({kind})"


def device_of(rows: list[dict[str, Any]]) -> str:
    """The device the children ran on, in words (``?`` when none ran)."""
    seen = {named(r["device"]["platform"], r["device"]["kind"]) for r in rows
            if r.get("ok") and "device" in r}
    return ", ".join(sorted(seen)) or "?"


def run(n: int | None = None, dim: int | None = None, quick: bool = False,
        out: Path | None = None, only: str | None = None, rows: str | None = None,
        dims: str | None = None, json_out: Path | None = None) -> list[dict]:
    """Run every contender on every case, print one table per case, write one PNG per case
    and the cached references under ``out``, and every row to the JSON file ``json_out``.

    ``rows``, ``dims``: comma-separated n and d (default 10⁴, 10⁵, 10⁶ and 10, 50); ``only``:
    comma-separated contender labels; ``quick``: the tests' tiny size (n = 2000, d = 2, 2
    chains, 100 warmup, 200 draws)."""
    if n is not None or dim is not None:
        raise UserInputError("bench tall: --n and --dim do not apply (use --rows and --dims)")
    size = chosen_size(quick, rows, dims)
    contenders = chosen_contenders(only)
    folder = _folder(out, "tall-bench")
    if json_out is not None and not Path(json_out).parent.is_dir():
        raise UserInputError(f"output file's folder does not exist: {Path(json_out).parent}")
    with bench_environment():
        return _run(size, contenders, folder, json_out)


def _run(size: Size, contenders: list[Contender], folder: Path,
         json_out: Path | None) -> list[dict]:
    """:func:`run`'s work, once its options are checked."""
    here = machine()
    print(f"bench tall ({size.name}): logistic regression, prior N(0, 5²); {size.chains} chains, "
          f"{size.warmup} warmup, {size.draws} draws; each contender a fresh process, "
          f"compilation caches off; {time.strftime('%Y-%m-%d %H:%M')}; {here['cpus']} CPUs, "
          f"JAX {here['jax']} on {here['device']}", flush=True)
    if size.workers > 1:
        print(f"({size.workers} contenders at a time: the seconds of this size are not for "
              "reading)", flush=True)
    start = time.perf_counter()
    found: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    for n_rows in size.rows:
        for d in size.dims:
            print(f"\nn = {n_rows:,}, d = {d}", flush=True)
            case_rows, references = run_case(n_rows, d, size, contenders, folder / "reference",
                                             lambda line: print(line, flush=True))
            device = device_of(case_rows)
            print(f"\nn = {n_rows:,}, d = {d}, on {device}:\n"
                  + "\n".join(table(case_rows) + reference_lines(references)), flush=True)
            plot_case(n_rows, d, case_rows, device, folder)
            cases.append({"n": n_rows, "dim": d, "device": device, "references": references,
                          "rows": case_rows})
            found += [{**r, "n": n_rows, "dim": d} for r in case_rows]
    print(f"\n{LEGEND}\n\nbench tall: {time.perf_counter() - start:.0f} s in all; wrote "
          f"{folder}/tall-n*-d*.png", flush=True)
    if json_out is not None:
        Path(json_out).write_text(json.dumps(
            {"size": asdict(size), "machine": here, "date": time.strftime("%Y-%m-%d %H:%M"),
             "cases": cases}, indent=1, default=str))
        print(f"wrote {json_out}")
    return found


SPEC = RunnableSpec(
    "tall", "tall data: logistic regression, n = 10⁴–10⁶ rows, d = 10 and 50 — the library's "
    "NUTS, HMC, SGLD, SGHMC and MINT beside NumPyro's NUTS and HMCECS, each a cold process: "
    "seconds to 0.1 posterior sd, final error, compile apart, data passes, peak memory", run)
