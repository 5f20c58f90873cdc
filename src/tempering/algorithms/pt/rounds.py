"""Round-based schedule adaptation of parallel tempering during warmup (Syed, Bouchard-Côté,
Deligiannidis & Doucet 2021, JRSS-B, §5.1 and Algorithm 4; the rounds of Pigeons.jl).

Warmup is cut into rounds of 1, 2, 4, … scans. Over a round the swap acceptance probability of
every adjacent pair is averaged (the probabilities, not the 0/1 outcomes: the same mean, lower
variance), giving rejections r_i; at the round's end the schedule moves to equal estimated
communication barrier (:func:`tempering.ladders.adaptive.equal_barrier_betas`) and the
accumulators restart, so each round's estimate comes from the schedule it ran on. A round in
which some pair was never proposed (the first, single-scan round under even/odd swaps) keeps its
schedule. Steps after the last round keep the last schedule. The schedule lives in the chain
state (the ladder's view); warmup alone moves it, so sampling runs a fixed ladder and is exact.

What each round ran on is recorded in the parameters: ``schedule`` (rounds, rungs), the β's
after each round, and ``rejection`` (rounds, pairs), the rejections it measured (NaN for rounds
not run and pairs not proposed).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.pt.capacity import inside_pairs, window_in
from tempering.ladders.reference import (
    FIRST_FIT_ROUND,
    equal_barrier_legs,
    fitted_reference,
    second_moment,
)


class Rounds(NamedTuple):
    """How a PT warmup adapts its schedule.

    Attributes
    ----------
    max_rounds
        Rounds at most (the warmup's length may allow fewer: 2^R − 1 scans make R rounds).
    inner_for
        (new β's, old β's, the inner parameters on the old ones) ↦ the inner kernel's
        rung-stacked parameters on the new schedule, applied after each move of the schedule:
        the kernel's per-rung rule (e.g. RWM's σ_m = σ β_m^(−1/2)) for a kernel that does not
        adapt, the tuned parameters carried over (:func:`~tempering.algorithms.rungs.
        carried_params`) for one that does.
    final_tune
        Whether a warmup with an adapting inner kernel ends by tuning it on the last schedule
        (a pilot that only places the schedule skips it).
    target
        The target rung's index in the line (0 unless the reference is ``stabilized``): each leg
        is placed on its own (:func:`~tempering.ladders.reference.equal_barrier_legs`).
    fit_reference
        ``None`` (the prior is the reference), or whether the Gaussian reference q in the view
        (``view[1]``) has a full covariance: it is then moment-matched to the target rung's
        draws of each round from round ``first_fit`` on (0-based; round r has 2^r scans).
    """

    max_rounds: int
    inner_for: Callable[[jax.Array, jax.Array, Any], Any]
    final_tune: bool = True
    target: int = 0
    fit_reference: bool | None = None
    first_fit: int = FIRST_FIT_ROUND


def round_record(rounds: int, rungs: int) -> dict[str, jax.Array]:
    """The empty record of ``rounds`` rounds on ``rungs`` rungs (NaN = not run)."""
    return jax.device_put({"schedule": np.full((rounds, rungs), np.nan),  # jnp.full: programs
                           "rejection": np.full((rounds, rungs - 1), np.nan)})


def rounds_in(num_steps: Any, max_rounds: int) -> Any:
    """Complete rounds in ``num_steps`` scans: R with 2^R − 1 ≤ num_steps, at most
    ``max_rounds`` (an int for an int; for a traced count, ⌊log₂(num_steps + 1)⌋ by counting
    leading zeros, exact in integers)."""
    if isinstance(num_steps, int | np.integer):
        return min(int(max_rounds), int(np.floor(np.log2(int(num_steps) + 1))))
    bits = 31 - jax.lax.clz(jnp.asarray(num_steps, jnp.int32) + 1)
    return jnp.minimum(int(max_rounds), bits)


def round_step(rounds: Rounds, reinit: Callable, count: int, s: jax.Array, active: jax.Array,
               state: Any, params: dict[str, Any], sums: RoundSums, swaps: tuple[Any, Any],
               on_host: bool = False) -> tuple[Any, dict[str, Any], RoundSums, jax.Array]:
    """A scan's share of the rounds: its swap statistics added to the round's sums, and the
    round closed when the scan ends it — or, ``on_host``, only recorded (its rejections, and q
    refitted), the schedule to be moved by :func:`close_on_host` between the program's calls.

    Parameters
    ----------
    count
        The rounds to run (:func:`rounds_in` of the rounds' scans).
    s
        The scan's index among the rounds' scans; round r ends after scan s when
        s + 2 = 2^(r + 1).
    active
        Whether the scan is one of the rounds' (a warmup's tuning scans add nothing).
    reinit
        (state, params) ↦ the state with every replica's kernel state rebuilt at its rung
        (cached densities and gradients are the old schedule's once the β's move), and the
        cost of those evaluations. Round ends alone pay for it: ``s`` and ``active`` are not
        batched by the driver's chain ``vmap``, so the ``lax.cond`` is a real branch.
    params
        ``{"inner": ..., "schedule": ..., "rejection": ...}`` (:func:`round_record`).
    swaps
        The scan's acceptance probability and proposal flag per pair.

    Returns
    -------
    The state and parameters (moved at a round's end), the sums (emptied there) and the cost
    of the re-initialisation.
    """
    full = rounds.fit_reference
    added = sums.add(*swaps, state.replicas.position[rounds.target], full)
    sums = jax.tree.map(lambda a, b: jnp.where(active, a, b), added, sums)
    u = jnp.maximum(s + 2, 1)
    r = jnp.round(jnp.log2(u.astype(float))).astype(jnp.int32) - 1
    ends = active & ((u & (u - 1)) == 0) & (r < count)
    closing = (partial(recorded_round, rounds=rounds) if on_host
               else partial(close_round, rounds, reinit))
    state, params, moving = jax.lax.cond(
        ends, lambda: closing(jnp.clip(r, 0, rounds.max_rounds - 1), state, params, sums),
        lambda: (state, params, jnp.zeros(())))
    keep = 1.0 - ends.astype(sums.prob.dtype)
    return state, params, jax.tree.map(lambda a: a * keep, sums), moving


class RoundSums(NamedTuple):
    """What a round accumulates: per pair the swap acceptance probabilities and proposals; with
    a fitted reference, the target rung's Σ θ, Σ θ² (or Σ θθᵀ) and the number of draws (``None``
    otherwise)."""

    prob: jax.Array
    proposed: jax.Array
    total: jax.Array | None = None
    outer: jax.Array | None = None
    draws: jax.Array | None = None

    @staticmethod
    def empty(pairs: int, dim: int, full: bool | None) -> RoundSums:
        zeros = jnp.zeros(pairs)
        if full is None:
            return RoundSums(zeros, zeros)
        return RoundSums(zeros, zeros, jnp.zeros(dim), jnp.zeros((dim, dim) if full else dim),
                         jnp.zeros(()))

    def add(self, prob: jax.Array, proposed: jax.Array, theta: jax.Array,
            full: bool | None) -> RoundSums:
        if full is None:
            return RoundSums(self.prob + prob, self.proposed + proposed)
        assert self.total is not None and self.outer is not None and self.draws is not None
        return RoundSums(self.prob + prob, self.proposed + proposed, self.total + theta,
                         self.outer + second_moment(theta, full), self.draws + 1.0)


def _measured(params: dict[str, Any], sums: RoundSums) -> tuple[jax.Array, ...]:
    """The round's pairs inside the window, whether each was seen (a free pair counts as
    seen) and its rejection (0 outside the window)."""
    window = window_in(params)  # a rung window's free pairs are never proposed
    inside = inside_pairs(window, sums.proposed.shape[0])
    seen = (sums.proposed > 0) | ~inside
    rejection = jnp.where(inside, 1.0 - sums.prob / jnp.maximum(sums.proposed, 1), 0.0)
    return inside, seen, rejection


def recorded_round(r: jax.Array, state: Any, params: dict[str, Any], sums: RoundSums, *,
                   rounds: Rounds) -> tuple[Any, dict[str, Any], jax.Array]:
    """Round r's rejections recorded (NaN where a pair was not proposed) and, from round
    ``first_fit`` on, q refitted to its target draws; the schedule stays for
    :func:`close_on_host`, and the replicas' kernels are re-initialised when the next call of
    the program resumes (:func:`~tempering.algorithms.pt.warmup.host_rounds`)."""
    inside, seen, rejection = _measured(params, sums)
    params = {**params, "rejection": params["rejection"].at[r].set(
        jnp.where(seen & inside, rejection, jnp.nan))}
    if rounds.fit_reference is not None:
        assert sums.total is not None and sums.outer is not None and sums.draws is not None
        fitted = fitted_reference(sums.total, sums.outer, sums.draws, rounds.fit_reference)
        q = jax.tree.map(lambda a, b: jnp.where(r >= rounds.first_fit, a, b), fitted,
                         state.view[1])
        state = state._replace(view=(state.view[0], q, *state.view[2:]))
    return state, params, jnp.zeros(())


def close_on_host(rounds: Rounds, r: int, state: Any, params: dict[str, Any]
                  ) -> tuple[Any, dict[str, Any]]:
    """Round r closed between two calls of the driver's program, in NumPy (chains first): each
    chain's schedule moved to equal barrier where its round saw every pair, the inner
    parameters carried along (``rounds.inner_for``), the schedule recorded. What
    :func:`close_round` does inside a program, without its placement and interpolations in the
    compiled hot loop; the replicas' kernels are re-initialised when the program resumes."""
    betas = np.asarray(state.view[0])
    rejection = np.asarray(params["rejection"])[:, r]
    window = params.get("window")
    schedule, inners = np.array(np.asarray(params["schedule"])), []
    moved = betas.copy()
    for b in range(betas.shape[0]):  # NumPy only: an eager jnp call would compile a program
        lo_hi = None if window is None else np.asarray(window)[b]
        inside = inside_pairs(lo_hi, rejection.shape[1], np)
        seen = np.isfinite(rejection[b]) | ~inside
        inner = jax.tree.map(lambda a, b=b: np.asarray(a)[b], params["inner"])
        if np.all(seen):
            rates = np.where(inside, np.nan_to_num(rejection[b]), 0.0)
            new = equal_barrier_legs(betas[b].astype(float), rates, rounds.target, lo_hi)
            carried = rounds.inner_for(new, betas[b].astype(float), inner)
            inner = jax.tree.map(lambda a, o: np.asarray(a).astype(o.dtype), carried, inner)
            moved[b] = new
        schedule[b, r] = moved[b]
        inners.append(inner)
    inner = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *inners)
    state = state._replace(view=(moved, *state.view[1:]))
    return state, {**params, "inner": inner, "schedule": schedule}


def close_round(rounds: Rounds, reinit: Callable, r: jax.Array, state: Any,
                params: dict[str, Any], sums: RoundSums) -> tuple[Any, dict[str, Any], jax.Array]:
    """Record round r; move the schedule when every pair was proposed (and count the
    re-initialisation's evaluations); refit q from the round's target draws."""
    window = window_in(params)
    inside, seen, rejection = _measured(params, sums)
    betas = state.view[0]
    move = jnp.all(seen)
    new_betas = jnp.where(move, equal_barrier_legs(betas, rejection, rounds.target, window),
                          betas)
    params = {
        **params,
        "inner": jax.tree.map(lambda a, b: jnp.where(move, a, b),
                              rounds.inner_for(new_betas, betas, params["inner"]),
                              params["inner"]),
        "schedule": params["schedule"].at[r].set(new_betas),
        "rejection": params["rejection"].at[r].set(jnp.where(seen & inside, rejection,
                                                             jnp.nan)),
    }
    view = (new_betas, *state.view[1:])
    refit = move
    if rounds.fit_reference is not None:
        assert sums.total is not None and sums.outer is not None and sums.draws is not None
        fits = r >= rounds.first_fit
        refit = move | fits
        fitted = fitted_reference(sums.total, sums.outer, sums.draws, rounds.fit_reference)
        view = (new_betas, jax.tree.map(lambda a, b: jnp.where(fits, a, b), fitted,
                                        state.view[1]))
    moved, cost = reinit(state._replace(view=view), params)
    state = jax.tree.map(lambda a, b: jnp.where(refit, a, b), moved, state)
    return state, params, jnp.where(refit, cost, 0.0)
