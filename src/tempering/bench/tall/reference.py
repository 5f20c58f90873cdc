"""The reference every contender is scored against: the target's means and sds over the
coefficients, computed once per (n, d, target) and cached in a JSON file under the output
directory (``<out>/reference/``) so that later runs reuse it.

How it is made (:func:`reference`), in float64, never by a contender (the passes over the data
in JAX on the default device, the rest in NumPy):

1. the target's mode and Hessian by Newton's method (:func:`.laplace.mode`);
2. importance sampling from the Laplace approximation with the difference estimator
   (:func:`.laplace.importance`, ``size.reference_draws`` draws) — kept when its effective sample
   size is at least :data:`MIN_ESS_SHARE` of its draws (the tall posteriors: 0.8–1.0);
3. otherwise (MINT's tempered law, far from Gaussian in 50 dimensions: its share is 10⁻³) a long
   NUTS run, NumPyro's in float64 on the exact target, ``size.reference_chains`` chains
   vectorised, started around the mode — only up to ``size.nuts_reference_max_n`` rows, since
   every gradient is a pass over the data; beyond, the target is *not scored* (the reason is
   kept and shown in the table).

Each reference carries its own Monte-Carlo error: the largest standard error of a mean or an sd,
in sds (importance sampling: the delta method; NUTS: NumPyro's effective sample sizes of θ_j and
of (θ_j − mean_j)²). A cached file is reused only for the same data (a fingerprint of them), the
same target and the same method settings.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tempering.bench.tall.laplace import Estimate, Target, fingerprint, importance, mode
from tempering.bench.tall.passes import rows_of
from tempering.bench.tall.plan import Size

#: Importance sampling is the reference when its ESS is at least this share of its draws.
MIN_ESS_SHARE = 0.5
#: Bump when the way a reference is made changes: older cached files are then recomputed.
VERSION = 1  # the JAX passes give the same sums as the NumPy loops, to rounding


@dataclass
class Reference:
    """A target's means and sds, how they were made, and their own error; ``unscored`` says why
    there is none (``mean`` and ``sd`` are then empty)."""

    target: str
    method: str
    mean: list[float]
    sd: list[float]
    mc_error: float
    seconds: float
    ess: float = float("nan")
    unscored: str | None = None

    @property
    def scored(self) -> bool:
        return self.unscored is None


def _from_estimate(target: Target, method: str, found: Estimate, seconds: float) -> Reference:
    return Reference(target.describe(), method, found.mean.tolist(), found.sd.tolist(),
                     found.error(), seconds, found.ess)


def nuts_estimate(x: np.ndarray, y: np.ndarray, target: Target, centre: np.ndarray,
                  hessian: np.ndarray, size: Size) -> Estimate:
    """The target's means and sds from a long NumPyro NUTS run in float64 (module docstring)."""
    import jax
    import jax.numpy as jnp
    from numpyro.diagnostics import effective_sample_size
    from numpyro.infer import MCMC, NUTS

    with jax.enable_x64(True):
        xs, ys = jnp.asarray(x), jnp.asarray(y)

        def potential(theta):
            prior = 0.5 * target.prior_weight * jnp.sum(theta**2) / target.prior_sd**2
            return prior - target.beta * jnp.sum(jax.nn.log_sigmoid(ys * (xs @ theta)))

        rng = np.random.default_rng(1)
        chol = np.linalg.cholesky(np.linalg.inv(hessian))
        starts = centre + rng.standard_normal((size.reference_chains, centre.size)) @ chol.T
        mcmc = MCMC(NUTS(potential_fn=potential), num_warmup=size.reference_warmup,
                    num_samples=size.reference_nuts_draws, num_chains=size.reference_chains,
                    chain_method="vectorized", progress_bar=False)
        mcmc.run(jax.random.PRNGKey(2), init_params=jnp.asarray(starts))
        draws = np.asarray(mcmc.get_samples(group_by_chain=True), np.float64)
    flat = draws.reshape(-1, draws.shape[-1])
    mean, sd = flat.mean(axis=0), flat.std(axis=0)
    squares = (draws - mean) ** 2
    ess_mean = np.asarray(effective_sample_size(draws))
    ess_square = np.asarray(effective_sample_size(squares))
    square_se = squares.reshape(flat.shape).std(axis=0) / np.sqrt(ess_square)
    return Estimate(mean, sd, sd / np.sqrt(ess_mean), square_se / (2.0 * sd),
                    float(min(ess_mean.min(), ess_square.min())), flat.shape[0])


def compute(x: np.ndarray, y: np.ndarray, target: Target, size: Size) -> Reference:
    """Make the reference (module docstring: importance sampling, else NUTS, else none)."""
    start = time.perf_counter()
    rows = rows_of(x, y)
    centre, hessian = mode(rows, target)
    found = importance(rows, target, centre, hessian, size.reference_draws)
    del rows
    share = found.ess / found.draws
    if share >= MIN_ESS_SHARE:
        method = (f"importance sampling from the Laplace approximation, {found.draws} draws "
                  f"(ESS {share:.0%} of them), difference estimator")
        return _from_estimate(target, method, found, time.perf_counter() - start)
    why = (f"importance sampling from the Laplace approximation has ESS {share:.1%} of its "
           "draws")
    n = x.shape[0]
    if n > size.nuts_reference_max_n:
        return Reference(target.describe(), "none", [], [], float("nan"),
                         time.perf_counter() - start, found.ess,
                         unscored=f"not scored: {why}, and a long NUTS run at n = {n:,} is "
                                  f"past this run's limit (n ≤ {size.nuts_reference_max_n:,})")
    found = nuts_estimate(x, y, target, centre, hessian, size)
    method = (f"NumPyro NUTS in float64, {size.reference_chains} chains × "
              f"{size.reference_nuts_draws} draws after {size.reference_warmup} warmup "
              f"(min ESS {found.ess:.0f}; {why})")
    return _from_estimate(target, method, found, time.perf_counter() - start)


def cache_path(folder: Path, n: int, dim: int, target: Target) -> Path:
    """The cached reference's file for the case and the target."""
    tag = f"b{target.beta:.10g}-k{target.prior_weight:.10g}-s{target.prior_sd:g}"
    return Path(folder) / f"logistic-n{n}-d{dim}-{tag}.json"


def reference(x: np.ndarray, y: np.ndarray, target: Target, size: Size,
              folder: Path) -> tuple[Reference, bool]:
    """The target's reference, from the cache when it holds one for these data, this target
    and these settings (the flag says so), else computed and cached."""
    path = cache_path(folder, x.shape[0], x.shape[1], target)
    key: dict[str, Any] = {"version": VERSION, "fingerprint": fingerprint(x, y),
                           "target": asdict(target),
                           "settings": [size.reference_draws, size.reference_chains,
                                        size.reference_warmup, size.reference_nuts_draws,
                                        size.nuts_reference_max_n]}
    if path.is_file():
        cached = json.loads(path.read_text())
        if cached.get("key") == key:
            return Reference(**cached["reference"]), True
    found = compute(x, y, target, size)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"key": key, "reference": asdict(found)}, indent=1))
    return found, False
