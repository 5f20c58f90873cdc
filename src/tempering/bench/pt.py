"""Self-tuning PT against the fixed geometric ladder with sweep swaps (issue 15).

On two multimodal targets — the ``barrier`` model's 20 unequal 2-D modes (``layout=grid20``) and
the ``mixture`` model's two label orderings — it runs, with the same number of rungs, the same
inner kernel (RWM, ``inner_steps`` updates per rung per scan), chains, warmup and draws:

- adaptive PT: the schedule placed in warmup at equal communication barrier from the target to
  the prior, DEO swaps (the package's default for ``pt``);
- geometric PT with the same end points (β_m = β_min^(m/(M−1)) for m < M, then the prior) and
  the paper's ``sweep`` (every pair, top down, every scan) — the issue's baseline — and, to take
  the schedule and the swap scheme apart, with DEO and with SEO (even or odd pairs at random,
  the reversible scheme of Syed et al.'s Theorem 3).

The package's sweep is not that reversible scheme: proposing every pair from the top down in one
scan lets a replica fall through the whole ladder in one iteration, so it makes more round trips
per scan than DEO; the ≥ 3× target of the issue is measured against the sweep all the same, and
the SEO row shows the gap Theorem 3 predicts.

It prints, for each, round trips per 1000 scans (all replicas of a chain together, sampling
only) and per 1000 full-data evaluations (swaps included: a sweep proposes twice as many pairs),
the minimum over modes of the bulk ESS of the mode indicator per second of sampling, the
estimated barrier Λ̂, and the ratios adaptive / geometric side by side (the issue's target: ≥ 3×
the round trips at equal cost).
"""

from __future__ import annotations

import time

import numpy as np

from tempering import UserInputError, get_model, get_sampler, sample
from tempering.lazy_arviz import arviz
from tempering.models import barrier_posterior, nearest_mode
from tempering.registry import RunnableSpec

RUNGS, BETA_MIN, INNER_STEPS, STEP_SIZE = 10, 0.01, 3, 0.5


def targets() -> dict[str, tuple]:
    """Name ↦ (model, draws ↦ mode index per draw)."""
    grid = get_model("barrier", layout="grid20")
    centres = barrier_posterior(grid)[1]
    mixture = get_model("mixture")
    return {"barrier grid20 (20 modes, 2-D)": (grid, lambda post: np.asarray(
                nearest_mode(post["theta"].values, centres))),
            "mixture (2 label orderings)": (mixture, lambda post: (
                post["mu"].values[..., 0] > post["mu"].values[..., 1]).astype(int))}


def contenders() -> dict[str, dict]:
    common = {"inner": "rwm", "rungs": RUNGS, "inner_steps": INNER_STEPS,
              "step_size": STEP_SIZE, "beta_min": BETA_MIN}
    fixed = {**common, "schedule": "fixed", "prior_rung": True}
    return {"adaptive + DEO": {**common, "schedule": "adaptive", "swap": "deo"},
            "geometric + sweep": {**fixed, "swap": "sweep"},
            "geometric + DEO": {**fixed, "swap": "deo"},
            "geometric + SEO": {**fixed, "swap": "seo"}}


def measure(model, modes, options: dict, draws: int, chains: int, seed: int) -> dict:
    """One run: round trips per 1000 scans and per 1000 evaluations, min ESS/s of the mode
    indicators, Λ̂."""
    az = arviz()
    algorithm = get_sampler("pt", model, **options)
    start = time.perf_counter()
    idata = sample(model, algorithm, key=seed, chains=chains, draws=draws, warmup=draws // 2,
                   progress=False)
    wall = time.perf_counter() - start
    stats, post = idata["sample_stats"], idata["posterior"]
    trips = stats["round_trips"].values
    made = float(np.sum(trips[:, -1] - trips[:, 0]))
    cost = float(np.sum(stats["cost"].values))
    prob, proposed = stats["swap_accept_prob"].values, stats["swap_proposed"].values
    rejection = 1.0 - prob.sum(axis=(0, 1)) / np.maximum(proposed.sum(axis=(0, 1)), 1)
    mode = modes(post)
    seconds = float(post.attrs.get("wall_seconds_sampling", wall)) or wall
    ess = [float(az.ess((mode == j).astype(float), method="bulk"))
           for j in np.unique(mode)]
    return {"trips_per_1000_scans": 1000.0 * made / (chains * (draws - 1)),
            "trips_per_1000_cost": 1000.0 * made / cost, "min_ess_per_s": min(ess) / seconds,
            "modes_seen": int(len(np.unique(mode))), "barrier": float(np.sum(rejection)),
            "seconds": seconds}


def run(n: int | None = None, dim: int | None = None, repeats: int = 4) -> list[dict]:
    """Print the table and the ratios; return the rows. ``repeats``: thousands of draws per
    chain (default 4)."""
    if n is not None or dim is not None:
        raise UserInputError("bench pt: --n and --dim do not apply (its targets are fixed)")
    if repeats < 1:
        raise UserInputError(f"bench pt: --repeats must be positive (got {repeats})")
    draws, chains, rows = 1000 * repeats, 4, []
    print(f"bench pt: {RUNGS} rungs, RWM × {INNER_STEPS} per rung, {chains} chains × {draws} "
          f"draws (warmup {draws // 2}); geometric β_min = {BETA_MIN}")
    for target, (model, modes) in targets().items():
        found = {label: measure(model, modes, options, draws, chains, seed=1)
                 for label, options in contenders().items()}
        print(f"\n{target}")
        print(f"  {'':20s} {'trips/1000 scans':>17s} {'trips/1000 cost':>16s} "
              f"{'min ESS/s':>10s} {'modes':>6s} {'Λ̂':>6s}")
        for label, row in found.items():
            print(f"  {label:20s} {row['trips_per_1000_scans']:17.2f} "
                  f"{row['trips_per_1000_cost']:16.3f} {row['min_ess_per_s']:10.2f} "
                  f"{row['modes_seen']:6d} {row['barrier']:6.2f}")
            rows.append({"target": target, "sampler": label, **row})
        a = found["adaptive + DEO"]
        for label in list(found)[1:]:
            g = found[label]
            print(f"  adaptive + DEO / {label}: round trips per scan "
                  f"{_ratio(a['trips_per_1000_scans'], g['trips_per_1000_scans'])}, per cost "
                  f"{_ratio(a['trips_per_1000_cost'], g['trips_per_1000_cost'])}"
                  f"{' (target ≥ 3×)' if label == 'geometric + sweep' else ''}, min ESS/s "
                  f"{_ratio(a['min_ess_per_s'], g['min_ess_per_s'])}")
    return rows


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b > 0 else ("∞ (geometric made none)" if a > 0 else "n/a")


SPEC = RunnableSpec(
    "pt", "round trips and mode-indicator ESS/s: adaptive DEO PT vs geometric sweep PT, same "
    "rungs and budget", run)
