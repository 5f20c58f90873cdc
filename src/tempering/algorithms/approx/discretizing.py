"""Mapping to a discretizing chain, with caching (seed 002 §3, Eqs. 10–13).

π is the posterior, π* a cheap approximation of it (prior + approximate log likelihood), R an inner
kernel leaving π* invariant and R̃ its reverse with respect to π*,
R̃(x | x′) = R(x′ | x) π*(x) / π*(x′) (for the coordinate slice sweep: the same updates in reversed
order; R itself when R is reversible). One iteration from x:

1. map x to a realisation of the chain (…, x_{−1}, x_0 = x, x_1, …) with the mark at step 0; steps
   k > 0 follow R from x_{k−1}, steps k < 0 follow R̃ from x_{k+1} (K → ∞, so the mark never
   meets an end);
2. make r mark moves: propose k′ = k ± s with equal probability and accept with (Eq. 13)

       min(1, [π(x_k′) / π*(x_k′)] / [π(x_k) / π*(x_k)]),

   which leaves the distribution ρ of the marked realisation invariant (Eqs. 10–12: the chain's
   own factors cancel because R and R̃ are mutual reverses);
3. return x at the mark.

Steps are simulated lazily, only when a proposal reaches them: forward with R from the furthest
forward step so far, backward with R̃ from the furthest backward one. They live in a buffer of
2·r·s + 1 steps (static shape under ``jit``) with step 0 in the middle, and step k's PRNG key is
``fold_in(key, k + r·s)``, so the realisation does not depend on the order steps are simulated in.
π* at each step comes with the inner kernel's state (no re-evaluation); π is evaluated only at
proposed steps and, with ``cache=True``, kept, so a step proposed again costs nothing (seed 002
§2.2: the discretizing chain makes revisits possible). With ``cache=False`` π is recomputed at
every proposed step — only the counts change, not the draws. π at the mark is carried between
iterations, as any Metropolis method carries π at its current state.

π* must be positive wherever π is (Eq. 13 divides by it); a mark at a step where π* is zero but π
is not would never move again.

Per iteration, ``sample_stats`` holds ``n_pi_evals`` (π evaluations), ``n_approx_evals`` (π*
evaluations made by R and R̃), ``cache_hits`` (proposals whose π was already known) and
``mark_accept`` (fraction of the r mark moves accepted); the iteration's ``cost`` is
n_pi_evals + n_approx_evals × cost(π*) in full-evaluation units.

Under ``vmap`` (chains batched) a lazy branch runs while any chain needs it; the counts are each
chain's own, i.e. what a serial implementation does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Literal, NamedTuple, Self

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveInt, field_validator

from tempering.algorithms.approx.pilot import MIN_ACCEPT, choose_m
from tempering.algorithms.base import (
    Algorithm,
    AlgorithmInfo,
    Headline,
    Stat,
    begin_then_step,
    warmup_by_scans,
)
from tempering.algorithms.options import ApproximationOptions
from tempering.algorithms.spec import SamplerSpec, StatArrays
from tempering.gp.approx import draw_subset
from tempering.kernels.base import BoundKernel
from tempering.ladders import target_rung
from tempering.ladders.approximation import approximate_rung, check_approximation
from tempering.ladders.base import Rung
from tempering.models.base import Model
from tempering.numerics import lazy, metropolis, run_steps

Array = jax.Array

N_PI = Stat("n_pi_evals", (), "evaluations of π in the iteration")
N_APPROX = Stat("n_approx_evals", (), "evaluations of π* made by R and R̃ in the iteration")
CACHE_HITS = Stat("cache_hits", (), "proposed steps whose π was already known")
MARK_ACCEPT = Stat("mark_accept", (), "fraction of the r mark moves accepted")
DC_STATS = (N_PI, N_APPROX, CACHE_HITS, MARK_ACCEPT)
#: Mark acceptance (floor 0.05: below it the chain rarely leaves its current point).
DC_HEADLINE = (Headline(
    "mark accept", MARK_ACCEPT.name, floor=0.05,
    advice="π* is too far from π where the chain goes (log π − log π* varies too much): use a "
           "larger m, m=auto (a pilot picks it), or approx=sod"),)


class DCState(NamedTuple):
    """The state between iterations: the inner state at the mark (π* cached) and log π there."""

    current: Any
    log_pi: Array


class _Realisation(NamedTuple):
    """One mapping's chain realisation, simulated so far, and its counters."""

    states: Any  # inner states, leading axis = buffer slot (step k at slot k + r·s)
    log_pi: Array  # log π at each slot (valid where ``known``)
    known: Array  # bool: log π evaluated at this slot in this mapping
    forward: Array  # slot of the furthest forward step simulated
    backward: Array  # slot of the furthest backward step simulated
    mark: Array  # slot of the mark
    n_pi: Array
    n_approx: Array
    hits: Array
    accepted: Array


def _take(tree: Any, i: Array) -> Any:
    return jax.tree.map(lambda a: a[i], tree)


def _put(tree: Any, i: Array, value: Any) -> Any:
    return jax.tree.map(lambda a, v: a.at[i].set(v), tree, value)


def extend(chain: _Realisation, goal: Array, kernel, direction: int,
           key: Array) -> _Realisation:
    """Simulate the realisation one step at a time from its furthest step in ``direction``
    (+1 with R, −1 with R̃) up to slot ``goal``; step k's key is ``fold_in(key, slot)``, so the
    realisation does not depend on the order its steps are simulated in."""
    end = "forward" if direction > 0 else "backward"

    def needed(c):
        return getattr(c, end) * direction < goal * direction

    def one(c):
        slot = getattr(c, end) + direction
        new, info = kernel.step(jax.random.fold_in(key, slot), _take(c.states, getattr(c, end)))
        return c._replace(states=_put(c.states, slot, new), n_approx=c.n_approx + info.n_evals,
                          **{end: slot})

    return jax.lax.while_loop(needed, one, chain)


def mark_move(target: Rung, forward, backward, k_chain: Array, *, s: int, cache: bool,
              correct: bool) -> Callable[[_Realisation, Array], tuple[_Realisation, None]]:
    """One mark move (Eq. 13) as a ``scan`` body: propose k ± s, simulate the realisation up to
    it with R or R̃ (keys from ``k_chain``), evaluate π there unless cached, accept with
    min(1, [π/π*](proposed) / [π/π*](mark))."""

    def move(chain: _Realisation, key: Array) -> tuple[_Realisation, None]:
        k_dir, k_accept = jax.random.split(key)
        goal = chain.mark + jnp.where(jax.random.bernoulli(k_dir), s, -s).astype(jnp.int32)
        chain = extend(chain, goal, forward, 1, k_chain)
        chain = extend(chain, goal, backward, -1, k_chain)
        proposed = _take(chain.states, goal)
        need = ~chain.known[goal] if cache else jnp.ones((), bool)
        log_pi = lazy(need, lambda: target.log_density(proposed.position),
                      chain.log_pi[goal])
        here = _take(chain.states, chain.mark)
        log_ratio = ((log_pi - proposed.logdensity)
                     - (chain.log_pi[chain.mark] - here.logdensity))
        if correct:
            accept, _ = metropolis(k_accept, log_ratio)
        else:  # BROKEN on purpose (tests only): the π/π* correction dropped
            accept = jnp.ones((), bool)
        chain = chain._replace(
            log_pi=chain.log_pi.at[goal].set(log_pi), known=chain.known.at[goal].set(True),
            mark=jnp.where(accept, goal, chain.mark), n_pi=chain.n_pi + need,
            hits=chain.hits + (~need), accepted=chain.accepted + accept)
        return chain, None

    return move


def warm_on_approx(key: Array, state: DCState, params: Any, num_steps: int, bound: BoundKernel,
                   target: Rung, approx: Rung) -> tuple[DCState, Any, Array]:
    """Run R alone on π* for ``num_steps`` (adapting it when the kernel adapts), then evaluate π
    at the end point; returns the state, the parameters and the cost in full evaluations."""
    if bound.warmup is not None:
        adapted, params, n_evals = bound.warmup(key, approx.log_density, state.current.position,
                                                num_steps, params)
    else:
        forward = bound.make(approx.log_density, params)
        adapted, n_evals = run_steps(forward.step, key, state.current, num_steps,
                                     lambda info: info.n_evals)
    state = DCState(adapted, target.log_density(adapted.position))
    return state, params, n_evals * approx.cost + target.cost


def discretizing_chain(target: Rung, approx: Rung, bound: BoundKernel, *, r: int = 1, s: int = 1,
                       cache: bool = True, correct: bool = True,
                       ) -> Algorithm:
    """Build the discretizing-chain sampler.

    Parameters
    ----------
    target
        π (its ``cost`` is one full evaluation).
    approx
        π* and the cost of one of its evaluations.
    bound
        The inner kernel: ``bound.make`` is R on π*, ``bound.reverse()`` is R̃.
    r, s
        Mark moves per mapping and steps of R per move.
    cache
        Keep π at every step evaluated within a mapping.
    correct
        ``False`` only in tests: accept every mark move (drop Eq. 13's π/π* ratio), which makes
        the mark a draw from π* instead of π — the check that the correction matters.
    """
    half = r * s
    size = 2 * half + 1

    def kernels(params):
        return (bound.make(approx.log_density, params),
                bound.reverse()(approx.log_density, params))

    def init(key, position):
        del key
        forward, _ = kernels(bound.params)
        return DCState(forward.init(position), target.log_density(position))

    def step(key, state, params):
        forward, backward = kernels(params)
        k_chain, k_moves = jax.random.split(key)
        states = jax.tree.map(lambda a: jnp.broadcast_to(a, (size, *jnp.shape(a))), state.current)
        centre = jnp.asarray(half, jnp.int32)
        zero = jnp.zeros(())
        chain = _Realisation(states, jnp.zeros(size).at[half].set(state.log_pi),
                             jnp.zeros(size, bool).at[half].set(True), centre, centre, centre,
                             zero, zero, zero, zero)

        move = mark_move(target, forward, backward, k_chain, s=s, cache=cache, correct=correct)
        chain, _ = jax.lax.scan(move, chain, jax.random.split(k_moves, r))
        current = _take(chain.states, chain.mark)
        log_pi = chain.log_pi[chain.mark]
        stats = {N_PI.name: chain.n_pi, N_APPROX.name: chain.n_approx,
                 CACHE_HITS.name: chain.hits, MARK_ACCEPT.name: chain.accepted / r}
        cost = chain.n_pi * target.cost + chain.n_approx * approx.cost
        return DCState(current, log_pi), AlgorithmInfo(chain.accepted / r, cost, log_pi, stats)

    def on_approx(key, state, params, num_steps):
        """The first half of the warmup (``begin_then_step``'s begin) runs R alone on π* (its
        own invariant density), adapting it when the kernel adapts (``adapt_step_size``); the
        rest are the sampler's own steps.

        From a start in π's tails, where π/π* varies wildly, mark moves are all rejected (a
        Nyström chain on GP-ARD never left its starting draws), while R on π* leads the chain to
        π*'s bulk — near π's when π* is good there, which is what the ``m="auto"`` pilot checks.
        Warmup draws are discarded, so exactness is untouched."""
        return warm_on_approx(key, state, params, num_steps // 2, bound, target, approx)

    scans = begin_then_step(on_approx, step, lambda num_steps: num_steps // 2)
    return Algorithm(init, partial(warmup_by_scans, scans), step,
                     lambda st: st.current.position, bound.params, DC_STATS,
                     headline=DC_HEADLINE, scans=scans)


# --------------------------------------------------------------------------- the sampler


class DiscretizingOptions(ApproximationOptions):
    """Mapping to a discretizing chain (seed 002 §3).

    ``approx``/``m``: π*'s approximation and its subset size (rank for eigen-exact). ``m="auto"``
    (the default) picks the smallest size of a √2-spaced sequence whose pilot mark acceptance
    reaches ``pilot_accept`` (0.4; :mod:`tempering.algorithms.approx.pilot`: Laplace draws of
    π, one mark move each): the run file records the chosen m as the option, and the pilot's
    record in the facts (``pilot``); an explicit m is used as given.
    Either way the first half of warmup runs R on π* alone (the pilot vouches for π* near π's
    bulk, not in the tails a chain may start in).
    ``r``: mark moves per mapping; ``s``: steps of R per proposed move; ``cache``: keep π of every
    step evaluated within a mapping (``false``: recompute π at every proposed step — same draws,
    more evaluations).
    """

    approx: Literal["sod", "nystrom", "eigen"] = "sod"
    m: PositiveInt | Literal["auto"] = "auto"
    pilot_accept: float = Field(MIN_ACCEPT, gt=0.0, lt=1.0)
    r: PositiveInt = 1
    s: PositiveInt = 1
    cache: bool = True

    @field_validator("m", mode="before")
    @classmethod
    def _int_or_auto(cls, value: Any) -> Any:
        if isinstance(value, str) and value != "auto":
            raise ValueError("expected a positive integer or auto")
        return value

    def resolve(self, model: Model) -> Self:
        """An explicit ``m`` must suit ``approx`` and the model; ``auto`` needs only ``approx``
        to suit the model (the pilot runs in :meth:`run_pilot`)."""
        resolved = super().resolve(model)
        check_approximation(model, resolved.approx, 1 if resolved.m == "auto" else resolved.m)
        return resolved

    def run_pilot(self, model: Model, layout: Any = None) -> Self:
        """With ``m=auto``, the pilot's m (:func:`~tempering.algorithms.approx.pilot.choose_m`);
        its record (with its ``seconds`` and ``cost`` in full evaluations) rides along as
        ``pilot_record`` for the run's facts."""
        del layout  # its pilot has programs of its own
        if self.m != "auto":
            return self
        _, bound = self.bind_inner(model.dim)
        started = time.perf_counter()
        m, record = choose_m(model, self.approx, bound, subset_seed=self.subset_seed,
                             jitter=self.jitter, s=self.s, min_accept=self.pilot_accept)
        accept = record["accept_by_m"][str(m)]
        return self.model_copy(update={"m": m}).carrying({
            **record, "cost": record["pilot_cost"], "seconds": time.perf_counter() - started,
            "chose": f"m = {m} (pilot mark acceptance {accept:.3f}, bar {self.pilot_accept:g})"})


def build(model: Model, options: DiscretizingOptions) -> Algorithm:
    if options.m == "auto":  # built without the builder: run the pilot here
        options = options.run_pilot(model)
    m = int(options.m)
    facts = options.pilot_facts()
    approx = approximate_rung(model, options.approx,
                              draw_subset(options.subset_seed, model.n_data, m), options.jitter)
    _, bound = options.bind_inner(model.dim)
    algorithm = discretizing_chain(target_rung(model), approx, bound, r=options.r, s=options.s,
                                   cache=options.cache)
    return algorithm._replace(facts={"approx_cost": approx.cost, **facts})


def evaluation_summary(stats: StatArrays) -> dict[str, Any]:
    """π and π* evaluations and cache hits — totals over all chains and draws, and means per
    iteration — the share of mark moves served from the cache, and the mark acceptance rate."""
    counts = {}
    for stat in (N_PI, N_APPROX, CACHE_HITS):
        values = stats[stat.name]
        counts[stat.name] = {"total": float(values.sum()), "per_iteration": float(values.mean())}
    moves = counts[N_PI.name]["total"] + counts[CACHE_HITS.name]["total"]
    return {"evaluations": {
        **counts,
        "cache_hit_rate": counts[CACHE_HITS.name]["total"] / moves if moves else float("nan"),
        "mark_accept_rate": float(np.mean(stats[MARK_ACCEPT.name])),
    }}


def evaluation_lines(summary: Mapping[str, Any]) -> list[str]:
    ev = summary["evaluations"]
    parts = [f"{label} {ev[stat.name]['total']:.0f} ({ev[stat.name]['per_iteration']:.3g}/iter)"
             for stat, label in ((N_PI, "π evaluations"), (N_APPROX, "π* evaluations"),
                                 (CACHE_HITS, "cache hits"))]
    rate = ev["cache_hit_rate"]
    shown = "nan" if rate != rate else f"{100 * rate:.3g}"
    return [f"{', '.join(parts)}; {shown}% of mark moves from cache; mark acceptance "
            f"{ev['mark_accept_rate']:.3f}"]


SPEC = SamplerSpec(
    name="discretizing_chain",
    summary="mapping to a discretizing chain of an approximation π*, with caching (seed 002 §3); "
            "also takes the inner kernel's options",
    options=DiscretizingOptions,
    build=build,
    stats=DC_STATS,
    summarize=evaluation_summary,
    render=evaluation_lines,
)
