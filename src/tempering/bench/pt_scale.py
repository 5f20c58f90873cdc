"""How parallel tempering scales with its ladder and its chains (issue 31): compile seconds, and
scans per second after compilation, against the number of rungs R ∈ {4, 8, 16, 32, 64} and of
chains C ∈ {1, 4, 16, 64}, for the RWM and HMC inner kernels, in one run on one machine.

Each cell is one run of ``pt`` on the ``gauss_mixture`` model (4 modes in ``dim`` dimensions,
default 10) with a fixed geometric ladder ending at the prior and DEO swaps — so that R is what
the cell says, not what a pilot chose — and the inner kernel tuned per rung in warmup (the
default). The rungs are one vmapped batch and the chains another around it
(:mod:`tempering.algorithms.rung_axis`), so the compiled program should not grow with either:

- ``compile s``: ahead-of-time compilation of the warmup and sampling functions (the driver's
  ``wall_seconds_compile``);
- ``scans/s``: PT iterations per second of sampling, all chains together (C × draws / seconds);
- ``rung-steps/s``: the same times R, inner updates per second.

The issue's target is compile seconds at 64 rungs ≤ 1.5× those at 4 (HMC inner). Benchmarks report
what they measure; they are not timed tests.
"""

from __future__ import annotations

import time

import numpy as np

from tempering import UserInputError, get_model, get_sampler, run_chains
from tempering.registry import RunnableSpec

RUNGS = (4, 8, 16, 32, 64)
CHAINS = (1, 4, 16, 64)
KERNELS = ("rwm", "hmc")


def measure(model, inner: str, rungs: int, chains: int, draws: int) -> dict:
    """One cell: compile seconds, sampling scans per second, and the run's wall seconds."""
    algorithm = get_sampler("pt", model, inner=inner, rungs=rungs, schedule="fixed",
                            prior_rung=True, beta_min=1e-3, swap="deo")
    start = time.perf_counter()
    result = run_chains(model, algorithm, key=0, draws=draws, chains=chains,
                        warmup=draws // 2, progress=False)
    attrs = result.idata["posterior"].attrs
    sampling = float(attrs["wall_seconds_sampling"])
    return {"inner": inner, "rungs": rungs, "chains": chains,
            "compile_s": float(attrs["wall_seconds_compile"]),
            "scans_per_s": chains * draws / max(sampling, 1e-9),
            "wall_s": time.perf_counter() - start}


def table(rows: list[dict], inner: str, field: str, fmt: str) -> list[str]:
    """A markdown table of ``field``: rungs down, chains across."""
    lines = [f"| {inner}: {field} | " + " | ".join(f"C = {c}" for c in CHAINS) + " |",
             "|---|" + "---:|" * len(CHAINS)]
    for r in RUNGS:
        cells = {row["chains"]: row[field] for row in rows
                 if row["inner"] == inner and row["rungs"] == r}
        lines.append(f"| R = {r} | " + " | ".join(
            format(cells[c], fmt) if c in cells else "–" for c in CHAINS) + " |")
    return lines


def run(n: int | None = None, dim: int | None = None, repeats: int = 2) -> list[dict]:
    """Print the tables and the compile-time ratios; return the rows. ``dim``: the mixture's
    dimension (default 10); ``repeats``: hundreds of draws per chain (default 2)."""
    if n is not None:
        raise UserInputError("bench pt-scale: --n does not apply (the target has no data)")
    if repeats < 1:
        raise UserInputError(f"bench pt-scale: --repeats must be positive (got {repeats})")
    model = get_model("gauss_mixture", dim=int(dim or 10))
    draws = 100 * int(repeats)
    print(f"bench pt-scale: pt on gauss_mixture (dim {model.dim}), geometric ladder to the "
          f"prior, DEO, inner tuned per rung; {draws} draws per chain after {draws // 2} warmup")
    rows = []
    for inner in KERNELS:
        for rungs in RUNGS:
            for chains in CHAINS:
                row = measure(model, inner, rungs, chains, draws)
                print(f"  {inner} R={rungs:3d} C={chains:3d}: compile {row['compile_s']:6.2f} s, "
                      f"{row['scans_per_s']:10.1f} scans/s", flush=True)
                rows.append(row)
    for inner in KERNELS:
        for field, fmt in (("compile_s", ".2f"), ("scans_per_s", ".0f")):
            print()
            print("\n".join(table(rows, inner, field, fmt)))
        compile_at = {r: np.median([row["compile_s"] for row in rows
                                    if row["inner"] == inner and row["rungs"] == r])
                      for r in RUNGS}
        print(f"\n{inner}: median compile s over chain counts, 64 rungs / 4 rungs = "
              f"{compile_at[64]:.2f} / {compile_at[4]:.2f} = {compile_at[64] / compile_at[4]:.2f}×"
              " (target ≤ 1.5×)")
    return rows


SPEC = RunnableSpec(
    "pt-scale", "compile seconds and scans/s of PT against rungs (4–64) and chains (1–64), RWM "
    "and HMC inner kernels", run)
