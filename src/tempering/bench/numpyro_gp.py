"""NumPyro's NUTS on seed 000's GP-ARD, the baseline of ``tempering bench ensemble``.

The NumPyro model is ``gp_regression``'s (:mod:`tempering.models.gp_regression`, seed 000 §4.2)
term for term: ℓ_d ~ LogNormal(0.5, 1), σ_f ~ Gamma(4, rate 1), σ_n ~ Gamma(2, rate 2), and
y ~ N(0, K + σ_n² I) with K the same SE-ARD kernel function (:func:`tempering.gp.se_ard`, no
jitter). NumPyro samples every positive site through its log, so its unconstrained coordinates
are the library's θ = (log ℓ, log σ_f, log σ_n) and its potential is −log p(θ | y) with the same
Jacobian: :func:`log_density` returns it for a check against ``Model.log_density``.

NumPyro is optional (the ``bench`` extra: ``pip install tempering[bench]``); nothing here imports
it at module level, and :func:`available` says whether it can be imported.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.gp import se_ard
from tempering.models import (
    GP_LENGTHSCALE_LOGNORMAL,
    GP_SIGMA_F_GAMMA,
    GP_SIGMA_N_GAMMA,
)

NOT_INSTALLED = "NumPyro not installed (pip install tempering[bench])"
#: JAX's monitoring events for tracing, lowering to MLIR and XLA compilation (jax._src.dispatch).
COMPILE_EVENTS = frozenset({"/jax/core/compile/jaxpr_trace_duration",
                            "/jax/core/compile/jaxpr_to_mlir_module_duration",
                            "/jax/core/compile/backend_compile_duration"})
#: The library's chain layouts by NumPyro's names.
CHAIN_METHODS = {"sequential": "sequential", "vmap": "vectorized"}


def available() -> bool:
    """Whether NumPyro can be imported."""
    try:
        importlib.import_module("numpyro")
    except ImportError:
        return False
    return True


def gp_ard(x: jax.Array, y: jax.Array | None = None) -> None:
    """The NumPyro model: ``gp_regression``'s priors and exact marginal likelihood."""
    import numpyro
    import numpyro.distributions as dist

    ls = numpyro.sample("lengthscale",
                        dist.LogNormal(*GP_LENGTHSCALE_LOGNORMAL).expand([x.shape[1]]).to_event(1))
    sf = numpyro.sample("sigma_f", dist.Gamma(*GP_SIGMA_F_GAMMA))
    sn = numpyro.sample("sigma_n", dist.Gamma(*GP_SIGMA_N_GAMMA))
    cov = se_ard(x, x, ls, sf) + sn**2 * jnp.eye(x.shape[0])
    numpyro.sample("y", dist.MultivariateNormal(jnp.zeros(x.shape[0]), covariance_matrix=cov),
                   obs=y)


def log_density(x: Any, y: Any, theta: Any) -> float:
    """−(NumPyro's potential energy) at the unconstrained θ = (log ℓ, log σ_f, log σ_n)."""
    from numpyro.infer.util import potential_energy

    theta = jnp.asarray(theta)
    params = {"lengthscale": theta[:-2], "sigma_f": theta[-2], "sigma_n": theta[-1]}
    return -float(potential_energy(gp_ard, (jnp.asarray(x), jnp.asarray(y)), {}, params))


class CompileClock:
    """Collects the time spans of JAX's tracing, lowering and compilation while open; then
    :meth:`within` gives their union inside a wall-clock interval (nested spans count once)."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []

    def _listen(self, event: str, start_time: float, end_time: float, **kwargs: Any) -> None:
        if event in COMPILE_EVENTS:
            self.spans.append((start_time, end_time))

    def __enter__(self) -> CompileClock:
        jax.monitoring.register_event_time_span_listener(self._listen)
        return self

    def __exit__(self, *exc: object) -> None:
        jax.monitoring.unregister_event_time_span_listener(self._listen)

    def within(self, start: float, end: float) -> float:
        """Seconds of [start, end] (``time.time()`` values) covered by some span."""
        total, reached = 0.0, start
        for lo, hi in sorted(self.spans):
            lo, hi = max(lo, reached), min(hi, end)
            if hi > lo:
                total += hi - lo
                reached = hi
        return total


def run_nuts(x: Any, y: Any, *, chains: int, warmup: int, draws: int, chain_method: str,
             seed: int = 0) -> dict[str, Any]:
    """NumPyro's NUTS (its defaults: diagonal mass matrix, target acceptance 0.8, tree depth 10)
    on :func:`gp_ard`: ``warmup`` adaptation steps then ``draws`` per chain.

    Returns
    -------
    dict
        ``posterior`` (name → (chain, draw, ...) constrained draws), and ``warmup_seconds``,
        ``sampling_seconds`` (wall time of each phase less the compilation inside it) and
        ``compile_seconds`` (tracing, lowering and XLA compilation, from JAX's monitoring events).
    """
    from numpyro.infer import MCMC, NUTS

    xj, yj = jnp.asarray(x), jnp.asarray(y)
    mcmc = MCMC(NUTS(gp_ard), num_warmup=warmup, num_samples=draws, num_chains=chains,
                chain_method=CHAIN_METHODS[chain_method], progress_bar=False)
    warm_key, sample_key = jax.random.split(jax.random.key(seed))
    with CompileClock() as clock:
        t0 = time.time()
        mcmc.warmup(warm_key, xj, yj)
        jax.block_until_ready(mcmc.post_warmup_state)
        t1 = time.time()
        mcmc.run(sample_key, xj, yj)
        samples = jax.block_until_ready(mcmc.get_samples(group_by_chain=True))
        t2 = time.time()
    warm_compile, sample_compile = clock.within(t0, t1), clock.within(t1, t2)
    return {"posterior": {name: np.asarray(v) for name, v in samples.items()},
            "warmup_seconds": t1 - t0 - warm_compile,
            "sampling_seconds": t2 - t1 - sample_compile,
            "compile_seconds": warm_compile + sample_compile}
