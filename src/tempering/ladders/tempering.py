"""Ladders for tempering algorithms: the powered likelihood, and subsets of the data (seed 000 §3).

A :class:`TemperingLadder` turns a *view* — the subset indices in force — into rungs:

- ``power``: h_m(θ) = log p(θ) + β_m log p(X | θ) on all data; no view; every rung costs 1.
- ``subset``: h_m(θ) = log p(θ) + log p(X_m | θ) (seed 000 Eq. 9) with N_m = round(β_m N) points
  (N_0 = N: rung 0 is the target); a rung costs (N_m / N)^α (Eq. 10). Subsets are ``nested``
  (X_M ⊂ … ⊂ X_1 ⊂ X: the first N_m entries of one random permutation, the paper's choice) or
  ``independent`` (each X_m its own draw without replacement, the paper's other option).
  ``redraw=False`` keeps the subsets drawn when a chain starts (SPT); ``redraw=True`` draws them
  anew every iteration, independently of the state (STT; a mixture of valid kernels, so exact).

Rungs as an array axis. A power ladder's rungs differ only in β, so it also gives
``density_at(view, m)``: rung m's log density for a *traced* m, h(θ; β_m). A sampler builds its
inner kernel once over that density and ``vmap``s or ``scan``s it over the rung axis
(:mod:`tempering.algorithms.rung_axis`), so the compiled program does not grow with the ladder.
Subset rungs keep ``density_at = None``: their sizes N_m differ, and batching them would make
every rung cost the largest's — for a GP likelihood (α = 3) the very cost subsampling exists to
avoid. So the rungs run one at a time (a ``lax.map``), each with a density of its own behind a
switch (:func:`tempering.algorithms.rung_axis.density_of`), the inner kernel compiled once. The
pilot's :func:`adaptive_subset_ladder`, whose sizes follow traced β's, gives ``density_in_turn``
instead: one body for a traced rung m that sums the terms of the permutation's first N_m entries
in blocks (:class:`~tempering.models.blocked.RangeSums`). The sampling ladder keeps the switch:
on ``logistic`` (d = 10, n = 2·10⁴) the blocks sampled SPT 1.7× slower (its static gathers
vectorise better over rows of many numbers), and on the 1-D ``mixture`` at n = 10⁴ no faster
(2026-11-29).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.ladders.base import Ladder, Rung, power_ladder
from tempering.ladders.reference import (
    GaussianReference,
    ReferenceKind,
    gaussian_log_density,
    initial_reference,
    path_density,
    target_index,
)
from tempering.models.base import Model
from tempering.models.blocked import (
    RangeSums,
    blocked_log_density,
    blocked_log_lik,
)
from tempering.numerics import finite_or_neg_inf

View = tuple[jax.Array, ...]


class TemperingLadder(NamedTuple):
    """Rungs built from a view, with their costs.

    Attributes
    ----------
    kind
        ``"power"`` or ``"subset"``.
    betas
        β_0 = 1 > β_1 > … > β_M.
    sizes
        Data points per rung (N_m; all N for the power ladder).
    costs
        Full-data-equivalent cost of one evaluation on each rung.
    redraw
        Whether the view is drawn anew every iteration (STT) or once per chain (SPT).
    draw_view
        PRNG key ↦ view.
    rungs
        view ↦ tuple of :class:`~tempering.ladders.base.Rung`, rung 0 the target.
    density_at
        ``None`` (rungs of different sizes: ``density_in_turn`` or a switch over them), or
        (view, m) ↦ rung m's log density for a traced rung index m, one function for every rung
        that the rungs may share as one batch (power ladders).
    target
        The target rung's index: 0, except on a stabilized variational line
        (:mod:`tempering.ladders.reference`), whose target sits between its two legs.
    density_in_turn
        Without ``density_at``: (view, m) ↦ rung m's log density for a traced m whose work is
        rung m's own, for rungs taken one at a time (a ``lax.map``, a scan), not batched (the
        pilot's subset rungs: sums over the first N_m entries of the permutation,
        :class:`~tempering.models.blocked.RangeSums`); ``None``: a switch over the rungs.
    """

    kind: str
    betas: tuple[float, ...]
    sizes: tuple[int, ...]
    costs: tuple[float, ...]
    redraw: bool
    draw_view: Callable[[jax.Array], View]
    rungs: Callable[[View], Ladder]
    density_at: Callable[[View, jax.Array], Callable[[jax.Array], jax.Array]] | None = None
    target: int = 0
    density_in_turn: Callable[[View, jax.Array], Callable[[jax.Array], jax.Array]] | None = None

    @property
    def num_rungs(self) -> int:
        return len(self.betas)


def traced_once_per_shape(density: Callable[[View, jax.Array, jax.Array], jax.Array]
                          ) -> Callable[[View, jax.Array], Callable[[jax.Array], jax.Array]]:
    """``density(view, m, θ)`` as ``density_at(view, m)(θ)``, traced once for every call of the
    same shapes: one ``jax.jit`` around it, so the model's density is one nested program that
    every use in a sampler's program (the inner moves, the swaps, re-initialisations, a chain's
    start) replays, differentiated and batched from JAX's caches, instead of Python tracing the
    model anew at each. The same numbers: XLA inlines the nested program. Measured (2 cores,
    2026-11-29, default PT on ``gauss_mixture``, the same draws): ``get_sampler``'s seconds
    outside XLA's compile (tracing, lowering, the pilot's run) 1.10–1.22 s → 0.84–0.95 s, with
    :func:`~tempering.numerics.interp` jitted and one-step ``run_steps`` unrolled."""
    jitted = jax.jit(density)

    def density_at(view: View, m: jax.Array) -> Callable[[jax.Array], jax.Array]:
        return lambda theta: jitted(view, m, theta)

    return density_at


def tempered_density(model: Model, beta: jax.Array,
                     log_lik: Callable[[jax.Array], jax.Array] | None = None
                     ) -> Callable[[jax.Array], jax.Array]:
    """θ ↦ log p(θ) + β log p(X | θ) for a traced β; β = 0 is the prior rung (0 · log p(X | θ)
    read as 0, even where p(X | θ) = 0); −∞ where not finite. ``log_lik``: as
    :func:`~tempering.ladders.reference.path_density`'s."""
    return path_density(model, beta, "prior", None, log_lik=log_lik)


def power_tempering_ladder(model: Model, betas: np.ndarray) -> TemperingLadder:
    """The powered-likelihood ladder (no view; the rungs are fixed)."""
    rungs = power_ladder(model, [float(b) for b in betas])
    n = model.n_data
    fixed = np.asarray(betas, dtype=np.float64)
    log_lik = blocked_log_lik(model)

    def density_at(view, m, theta):
        return tempered_density(model, jnp.asarray(fixed)[m], log_lik)(theta)

    return TemperingLadder("power", tuple(float(b) for b in betas), (n,) * len(betas),
                           (1.0,) * len(betas), False, lambda key: (), lambda view: rungs,
                           traced_once_per_shape(density_at))


def adaptive_power_ladder(model: Model, betas: np.ndarray, reference: ReferenceKind = "prior",
                          full: bool = False, start_reference: GaussianReference | None = None,
                          log_q: Callable = gaussian_log_density) -> TemperingLadder:
    """The powered-likelihood ladder with its schedule in the view, so that warmup may move it.

    With the prior as reference the view is ``(β,)``, an (M + 1,) array starting at ``betas``;
    ``rungs(view)`` builds h_m(θ) = log p(θ) + β_m log p(X | θ) from it, traced (a β of 0 is the
    prior rung). With a variational reference (:mod:`tempering.ladders.reference`) the view is
    ``(s, q)``: the schedule coordinates (``betas`` are then coordinates: β on a one-leg line;
    2 → 1 → 0 on a stabilized one, whose target is the rung at s = 1) and the Gaussian
    reference q (``full``: a full covariance), inactive — the prior — until warmup fits it, or
    ``start_reference``; ``log_q`` is replaceable only to show that a wrongly normalised q is
    caught. A
    sampler that adapts its schedule (:func:`tempering.ladders.adaptive.equal_barrier_betas`)
    replaces the view during warmup and keeps it fixed afterwards.
    """
    start = tuple(float(b) for b in betas)
    target = target_index(np.asarray(start)) if start else 0
    if not start or start[target] != 1.0 or (reference != "stabilized" and target != 0):
        raise ValueError("a ladder starts at the target: betas[0] must be 1")
    n = model.n_data
    log_lik = blocked_log_lik(model)

    @traced_once_per_shape
    def density_at(view, m, theta):
        return path_density(model, view[0][m], reference,
                            None if reference == "prior" else view[1], log_q, log_lik)(theta)

    def rungs(view):
        return tuple(Rung(density_at(view, m), 1.0, None) for m in range(len(start)))

    def draw_view(key):
        if reference == "prior":
            return (jnp.asarray(start),)
        q = initial_reference(model.dim, full) if start_reference is None else start_reference
        return (jnp.asarray(start), q)

    return TemperingLadder("power", start, (n,) * len(start), (1.0,) * len(start), False,
                           draw_view, rungs, density_at, target)


def adaptive_subset_ladder(model: Model, betas: np.ndarray, *,
                           subsets: Literal["nested", "independent"] = "nested",
                           subsets_key: jax.Array | None = None) -> TemperingLadder:
    """Subset rungs whose sizes N_m = max(1, round(β_m N)) follow traced β's: a pilot's ladder.

    The view is ``(β, permutations)``. Rung m sums the per-datum terms of the first N_m points of
    its permutation (one shared permutation for ``nested`` subsets) at bounds read from the
    traced β's, in blocks: shapes stay static while the β's move, which is what lets one
    compilation place an SPT schedule (:mod:`tempering.algorithms.pt.pilot`), and each rung's
    work is its own N_m points (until 2026-11-29 every rung evaluated all N under a mask). The
    rungs' costs are the starting schedule's (N_m / N)^α; the sampler itself then runs on a
    :func:`subset_tempering_ladder` with the placed β's. ``subsets_key``: as there.
    """
    if model.log_lik_terms_fn is None:
        raise ValueError("the adaptive subset schedule needs a model with per-datum terms")
    n = model.n_data
    start = tuple(float(b) for b in betas)
    sizes = subset_sizes(np.asarray(start), n)
    count = 1 if subsets == "nested" else len(start) - 1

    def draw_view(key):
        key = key if subsets_key is None else subsets_key
        return (jnp.asarray(start), jnp.stack(subset_permutations(key, n, count)))

    sums = RangeSums(model)
    target = Rung(blocked_log_density(model), 1.0, 1.0)

    def density_in_turn(view, m):
        """Rung m ≥ 1: the first N_m points of its permutation, N_m from the view's traced β_m,
        summed in blocks (rung m's work is its N_m points); rung 0 (β = 1) is the target."""
        size = jnp.maximum(1.0, jnp.round(view[0][m] * n)).astype(jnp.int32)
        order = view[1][jnp.clip(m - 1, 0, count - 1)]

        def subset(theta):
            return finite_or_neg_inf(model.log_prior(theta)
                                     + sums.total(theta, order, 0, size, size))

        return lambda theta: jax.lax.cond(m == 0, target.log_density, subset, theta)

    def rungs(view):
        return (target,
                *(Rung(density_in_turn(view, m), (sizes[m] / n) ** model.alpha, None)
                  for m in range(1, len(start))))

    return TemperingLadder("subset", start, sizes, tuple((s / n) ** model.alpha for s in sizes),
                           False, draw_view, rungs, density_in_turn=density_in_turn)


def subset_sizes(betas: np.ndarray, n: int) -> tuple[int, ...]:
    """N_m = round(β_m N), at least 1; N_0 = N."""
    return tuple(max(1, int(round(float(b) * n))) for b in betas)


def subset_permutations(key: jax.Array, n: int, count: int) -> list[jax.Array]:
    """``count`` permutations of the N points: one for nested subsets (``count`` = 1, drawn
    from ``key`` itself), else one per subset rung (from ``key``'s split)."""
    if count == 1:
        return [jax.random.permutation(key, n)]
    return [jax.random.permutation(k, n) for k in jax.random.split(key, count)]


def subset_tempering_ladder(model: Model, betas: np.ndarray, *,
                            subsets: Literal["nested", "independent"] = "nested",
                            redraw: bool = False,
                            subsets_key: jax.Array | None = None) -> TemperingLadder:
    """Rungs on subsets of the data: nested or independent, fixed or redrawn every iteration.

    ``subsets_key``: when given (and not ``redraw``), the subsets come from it instead of the
    chain's key, so every chain (and a pilot) runs on the same subsets."""
    n = model.n_data
    sizes = subset_sizes(betas, n)
    costs = tuple((size / n) ** model.alpha for size in sizes)
    count = 1 if subsets == "nested" else len(sizes) - 1
    fixed = None if redraw else subsets_key

    def draw_view(key):
        perms = subset_permutations(key if fixed is None else fixed, n, count)
        return tuple(perms[0 if count == 1 else m][:size] for m, size in enumerate(sizes[1:]))

    target = Rung(blocked_log_density(model), 1.0, 1.0)

    def rungs(view):
        def rung(indices, cost, beta):
            subset = jax.tree.map(lambda a: jnp.take(a, indices, axis=0), model.data)
            return Rung(blocked_log_density(model, subset), cost, beta)

        return (target, *(rung(idx, c, float(b))
                          for idx, c, b in zip(view, costs[1:], betas[1:], strict=True)))

    return TemperingLadder("subset", tuple(float(b) for b in betas), sizes, costs, redraw,
                           draw_view, rungs)

