"""Known answers for seed 002's samplers: a one-covariate GP posterior integrated on a grid.

Model: ``gp_const`` (seed 002 Eq. 23, c = 10) with n = 30 points x ~ U[0, 1], short length scale
(ρ = 0.1, η = 5, σ = 0.5; data_seed 0). θ = (log ρ, log η, log σ) has a N(0, 2²) prior on each
coordinate, so the posterior is a smooth 3-D density whose means a uniform grid gets to far better
than Monte-Carlo accuracy: the grid spans the mean ± 8 sd of a coarse pass on every axis, the
marginals at its edges must be negligible (< 1e-5 of their peaks), and the means must not move
(< 1e-4, against MCSEs of about 5e-3) when every other grid point is used, or when the outermost
slabs are dropped: quadrature and truncation errors are far below Monte-Carlo error. Other
3-parameter models pass their own coarse ranges, grid size and span to :func:`grid_posterior` (and
may supply log π on a whole grid at once), and their own ``start`` to :func:`run_draws`.

MCMC runs go through the algorithm's own ``init``/``step`` in one jitted scan per chain (not the
driver), so each sampler compiles once; chains start at the generating θ and burn in.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from support import z_mean

from tempering import get_model
from tempering.models.base import Model

N, DATA_SEED = 30, 0
CHAINS, DRAWS, BURN_IN = 4, 1500, 200
#: (low, high) of the coarse pass on each axis for ``gp_const``'s (log ρ, log η, log σ).
GP_CONST_COARSE = ((-6.0, 4.0), (-3.0, 7.0), (-5.0, 3.0))


def grid_model() -> Model:
    return get_model("gp_const", n=N, dim=1, kernel="iso", data_seed=DATA_SEED)


def _grid_weights(log_density, axes: list[np.ndarray],
                  on_grid: Callable[[list[np.ndarray]], np.ndarray] | None = None) -> np.ndarray:
    if on_grid is not None:
        log_p = np.asarray(on_grid(axes), dtype=float).reshape(-1)
    else:
        points = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
        fn = jax.jit(jax.vmap(log_density))
        log_p = np.concatenate([np.asarray(fn(jnp.asarray(chunk)))
                                for chunk in np.array_split(points, 16)])
    weights = np.exp(log_p - log_p.max()).reshape([len(a) for a in axes])
    return weights / weights.sum()


def _marginals(weights: np.ndarray) -> list[np.ndarray]:
    return [weights.sum(axis=tuple(j for j in range(3) if j != i)) for i in range(3)]


def grid_posterior(model: Model, points: int = 40,
                   coarse: tuple[tuple[float, float], ...] = GP_CONST_COARSE,
                   coarse_points: int = 24, width: float = 8.0,
                   on_grid: Callable[[list[np.ndarray]], np.ndarray] | None = None
                   ) -> dict[str, np.ndarray]:
    """Posterior means and sds of θ by quadrature, with the checks that make them trustworthy.

    A coarse pass of ``coarse_points`` per axis over the ranges ``coarse`` (default: those that
    hold ``gp_const``'s posterior) locates the posterior; the fine grid of ``points`` per axis then
    spans its mean ± ``width`` sd. ``on_grid(axes)``, when given, returns log π on the whole grid
    (shape ``[len(a) for a in axes]``) in place of ``model.log_density`` point by point (a model
    whose structure makes a whole grid cheap).

    Returns ``mean``, ``sd``, ``edge`` (each marginal's largest edge value over its maximum) and
    ``coarse_mean`` (the means from every other grid point) and ``inner_mean`` (the means with the
    outermost four slabs of every axis dropped: a truncation check).
    """
    first = [np.linspace(lo, hi, coarse_points) for lo, hi in coarse]
    marg = _marginals(_grid_weights(model.log_density, first, on_grid))
    mean = np.array([m @ a for m, a in zip(marg, first, strict=True)])
    sd = np.sqrt([m @ a**2 for m, a in zip(marg, first, strict=True)] - mean**2)
    axes = [np.linspace(mu - width * s, mu + width * s, points)
            for mu, s in zip(mean, sd, strict=True)]
    weights = _grid_weights(model.log_density, axes, on_grid)
    marg = _marginals(weights)
    mean = np.array([m @ a for m, a in zip(marg, axes, strict=True)])
    sd = np.sqrt([m @ a**2 for m, a in zip(marg, axes, strict=True)] - mean**2)
    edge = np.array([max(m[0], m[-1]) / m.max() for m in marg])
    sub = weights[::2, ::2, ::2] / weights[::2, ::2, ::2].sum()
    coarse_mean = np.array([m @ a[::2] for m, a in zip(_marginals(sub), axes, strict=True)])
    inner = weights[4:-4, 4:-4, 4:-4] / weights[4:-4, 4:-4, 4:-4].sum()
    inner_mean = np.array([m @ a[4:-4] for m, a in zip(_marginals(inner), axes, strict=True)])
    return {"mean": mean, "sd": sd, "edge": edge, "coarse_mean": coarse_mean,
            "inner_mean": inner_mean}


def check_grid(result: dict[str, np.ndarray]) -> None:
    """The grid holds all the mass and its means have converged (see the module docstring)."""
    assert np.all(result["edge"] < 1e-5), result["edge"]
    assert np.max(np.abs(result["coarse_mean"] - result["mean"])) < 1e-4, result
    assert np.max(np.abs(result["inner_mean"] - result["mean"])) < 1e-4, result


def run_draws(algorithm, model: Model, seed: int, chains: int = CHAINS, draws: int = DRAWS,
              burn_in: int = BURN_IN, start: np.ndarray | None = None
              ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(chain, draw, dim) positions and per-draw stats after ``burn_in`` discarded iterations,
    chains run in turn by one executable, each from ``start`` (default the model's
    ``attrs["theta_true"]``)."""
    start = jnp.asarray(model.attrs["theta_true"] if start is None else start)

    def chain(key):
        k_init, k_run = jax.random.split(key)
        state = algorithm.init(k_init, start)

        def body(state, k):
            state, info = algorithm.step(k, state, algorithm.params)
            return state, (algorithm.position(state), info.stats)

        _, (theta, stats) = jax.lax.scan(body, state, jax.random.split(k_run, burn_in + draws))
        return theta[burn_in:], jax.tree.map(lambda a: a[burn_in:], stats)

    run = jax.jit(chain)
    outs = [run(jax.random.fold_in(jax.random.key(seed), c)) for c in range(chains)]
    theta = np.stack([np.asarray(o[0]) for o in outs])
    stats = {k: np.stack([np.asarray(o[1][k]) for o in outs]) for k in outs[0][1]}
    return theta, stats


def z_scores(theta: np.ndarray, grid_mean: np.ndarray) -> np.ndarray:
    """(MCMC mean − grid mean) / MCSE for each coordinate of θ."""
    return np.array([z_mean(theta[:, :, i], grid_mean[i]) for i in range(theta.shape[2])])
