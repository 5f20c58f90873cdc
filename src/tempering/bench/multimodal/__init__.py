"""``tempering bench multimodal`` (issue 32, part 2): the library's parallel tempering at its
defaults against the samplers a user would pick instead, side by side in one run, on targets
whose answers are known exactly.

Map of the package (one concept per file):

- :mod:`.sizes` — ``FULL`` (the issue's benchmark) and ``QUICK`` (the tests'): draws, particles,
  live points, walkers, and the targets' dimensions;
- :mod:`.targets` — the targets (library models with exact log Z and mode masses or a moment:
  the 4-mode Gaussian mixture in 10 and 30 dimensions, label switching, spike-and-slab, the
  egg-box, Pigeons.jl's scaled-precision normal path) and their prior transforms;
- :mod:`.result` — ``MethodRun``, what every runner returns;
- runners, one per method: :mod:`.library` (``PT_VARIANTS``, the table of PT runs, and NUTS,
  through the public driver), :mod:`.smc_run` (BlackJAX's adaptive tempered SMC) and
  :mod:`.smc_sweep` (its moves per stage chosen by a sweep in the same run),
  :mod:`.dynesty_run` (dynesty's static nested sampler), :mod:`.ptemcee_run` (ptemcee, with its
  NumPy 2 shims); :mod:`.methods` lists them in table order;
- :func:`warm_up` runs every method once on a tiny problem first (untimed), so one-time costs
  fall on no method;
- :mod:`.metrics` — error, |Δ log Z|, modes found per chain, error-versus-time curves from
  prefixes of the draws, time to reach another run's error (SMC's, first reach), the error's
  Monte-Carlo noise;
- :mod:`.report` — the ``rich`` table of each target, ratios against PT and seconds to SMC's
  error, and SMC's sweep; :mod:`.plots` — one PNG per target and one of SMC's sweep.

:func:`run` prints one table per target (and SMC's sweep), writes ``<target>.png``,
``<target>-smc-moves.png`` and ``multimodal.json`` (every row, curve, sweep and setting) under
``out``, and returns the rows. Benchmarks report what they measure
on this machine; they are not timed tests.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from tempering import UserInputError
from tempering.bench.multimodal.methods import REFERENCE, SMC, methods
from tempering.bench.multimodal.metrics import Scored, score
from tempering.bench.multimodal.plots import plot_sweep, plot_target
from tempering.bench.multimodal.report import LEGEND, print_target, row
from tempering.bench.multimodal.sizes import FULL, QUICK, Size
from tempering.bench.multimodal.targets import Target, build_targets, gauss_mixture
from tempering.registry import RunnableSpec

SEED = 0


def _size(quick: bool, dim: int | None, repeats: int | None) -> Size:
    size = QUICK if quick else FULL
    if dim is not None:
        if dim < 2:
            raise UserInputError(f"bench multimodal: --dim must be at least 2 (got {dim})")
        size = replace(size, gauss_dims=(int(dim),))
    if repeats is not None:
        if repeats < 1:
            raise UserInputError(f"bench multimodal: --repeats must be positive (got {repeats})")
        size = size.scaled(repeats)
    return size


def _chosen(names: list[str], only: str | None) -> list[str]:
    if only is None:
        return names
    wanted = [p.strip() for p in only.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in names]
    if unknown or not wanted:
        raise UserInputError(f"--only: unknown target {', '.join(unknown) or repr(only)} "
                             f"(choose from {', '.join(names)})")
    return [n for n in names if n in wanted]


def warm_up() -> float:
    """Run each method once, untimed, on the 2-D mixture at the quick size, so that JAX's start-up,
    lazy imports and first-call caches are charged to no method (PT, first in the table, paid
    about 7 s of them on the first target). Returns the seconds it took."""
    start = time.perf_counter()
    target = gauss_mixture(2)
    for runner in methods().values():
        try:
            runner(target, QUICK, SEED)
        except UserInputError:  # a method this target does not suit (MINTEE: no data)
            continue
    return time.perf_counter() - start


def run_target(target: Target, size: Size, console: Console,
               seed: int = SEED) -> dict[str, Scored]:
    """Every method on ``target``; a method that raises is reported and left out."""
    scored: dict[str, Scored] = {}
    for name, runner in methods().items():
        start = time.perf_counter()
        try:
            scored[name] = score(target, runner(target, size, seed))
        except Exception as error:  # noqa: BLE001 - a failing peer is a result, not a crash
            console.print(f"  {name}: failed after {time.perf_counter() - start:.1f} s: "
                          f"{type(error).__name__}: {error}")
            continue
        s = scored[name]
        sweep = s.run.info.get("sweep")
        note = "" if sweep is None else (f" (a sweep of {len(sweep)} runs; {s.run.info['moves']} "
                                         f"moves chosen: {s.seconds:.1f} s)")
        console.print(f"  {name}: {time.perf_counter() - start:.1f} s{note}, "
                      f"{target.error_name()} {s.error:.4f}", highlight=False)
    return scored


def run(n: int | None = None, dim: int | None = None, repeats: int | None = None,
        quick: bool = False, out: Path | None = None, only: str | None = None) -> list[dict]:
    """Run every method on every target (or the comma-separated ``only``), print the tables,
    write the plots and ``multimodal.json`` under ``out`` (default ``multimodal-bench``).

    ``dim``: one dimension for the Gaussian mixture instead of 10 and 30; ``repeats``: a factor
    on every run's length (draws, particles, live points, iterations); ``quick``: the tests' tiny
    sizes."""
    if n is not None:
        raise UserInputError("bench multimodal: --n does not apply (the targets are fixed)")
    size = _size(quick, dim, repeats)
    builders = build_targets(size)
    chosen = _chosen(list(builders), only)
    out = Path(out if out is not None else "multimodal-bench")
    if not out.parent.is_dir():
        raise UserInputError(f"output directory's parent does not exist: {out.parent}")
    out.mkdir(exist_ok=True)
    console = Console()
    if console.width < 200:
        console = Console(width=200)
    rows: list[dict[str, Any]] = []
    console.print(f"bench multimodal ({size.name}): {', '.join(methods())} on "
                  f"{', '.join(chosen)}; seed {SEED}", highlight=False)
    if not quick:
        console.print(f"warm-up (each method once on a tiny problem, untimed): "
                      f"{warm_up():.1f} s", highlight=False)
    for key in chosen:
        target = builders[key]()
        console.print(f"\n[bold]{target.key}[/]: {target.title}", highlight=False)
        scored = run_target(target, size, console)
        if not scored:
            continue
        reference = REFERENCE if REFERENCE in scored else next(iter(scored))
        print_target(console, target, scored, reference, SMC)
        plot_target(target, scored, out)
        if SMC in scored:
            plot_sweep(target, scored[SMC].run, out)
        rows += [row(target, s, scored[reference], scored.get(SMC)) for s in scored.values()]
    console.print("\n" + LEGEND, highlight=False)
    (out / "multimodal.json").write_text(json.dumps(
        {"size": asdict(size), "seed": SEED, "rows": rows}, indent=1, default=_plain))
    console.print(f"wrote {out}/multimodal.json and two PNGs per target (methods, SMC's moves)",
                  highlight=False)
    return rows


def _plain(value: Any) -> Any:
    """JSON for NumPy scalars and arrays."""
    return value.tolist() if hasattr(value, "tolist") else str(value)


SPEC = RunnableSpec(
    "multimodal", "PT at its defaults vs NUTS, BlackJAX SMC, dynesty and ptemcee on targets with "
    "exact answers (mode masses, log Z): errors, seconds, error-vs-time", run)
