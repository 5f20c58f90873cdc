"""Algorithm contract: what the driver runs, one chain at a time (vmapped over chains by the
driver).

An algorithm is a transition on its own state (for plain MCMC the inner kernel's state; for
parallel tempering the states of every rung, and so on) with tunable parameters that warmup may
adapt and that are frozen during sampling:

- ``init(key, position) -> state``;
- ``warmup(key, state, params, num_steps) -> (state, params, cost)``, run before sampling only;
- ``step(key, state, params) -> (state, AlgorithmInfo)``;
- ``position(state) -> θ`` of the target (rung 0) chain — the only draws that reach ``posterior``
  — or, for an algorithm that keeps more than one draw per step, an array with the extra leading
  axes it declares in ``position_dims`` (PT with ``keep_all_rungs``: ``("rung",)``).

``AlgorithmInfo.cost`` is the step's likelihood work in full-data-equivalent evaluations
(docs/architecture.md, "Contracts": info carries cost); ``stats`` holds further per-draw
statistics, each written to ``sample_stats`` under its name with the dims its :class:`Stat`
declares. The driver and the run file writer read the declarations (``stats``, ``position_dims``);
they guess nothing from shapes, and a statistic written without a declaration is an error.

What a run file needs to rebuild the algorithm is kept apart from what was derived from it:
``options`` are the validated, resolved options (they round-trip: validating their dump again
gives the same options), ``facts`` are derived values recorded for the reader (β ladder, subset
sizes, rung costs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import BaseModel

from tempering.numerics import brief_run, like

Array = jax.Array


class Stat(NamedTuple):
    """A per-draw statistic a sampler writes to ``sample_stats``.

    Attributes
    ----------
    name
        Its name in ``sample_stats`` (and in ``AlgorithmInfo.stats``).
    dims
        Its dims after ``(chain, draw)``: ``()`` for a scalar, ``("rung",)`` for one value per
        rung, ``("pair",)`` per adjacent pair of rungs, ...
    meaning
        One line, stored with the variable in the run file.
    """

    name: str
    dims: tuple[str, ...]
    meaning: str


#: What the driver writes for every sampler.
COMMON_STATS: tuple[Stat, ...] = (
    Stat("lp", (), "log density of the target at the draw (rung 0)"),
    Stat("cost", (), "likelihood work of the draw's steps, in full-data-equivalent evaluations"),
    Stat("acceptance_rate", (), "the step's acceptance probability, mean over thinned steps"),
)



def declared_stats(stats: tuple[Stat, ...]) -> tuple[Stat, ...]:
    """:data:`COMMON_STATS` followed by ``stats``; a sampler that declares a common statistic
    again (MINT's ``lp`` is a mini-batch estimate) replaces its meaning."""
    own = {stat.name for stat in stats}
    return tuple(stat for stat in COMMON_STATS if stat.name not in own) + stats


#: Names of the importance-tempering trio written by samplers that keep every rung's draws (ST;
#: PT with ``keep_all_rungs``); the run-file summary weights the draws when all three are there.
RUNG, LOG_TEMPERED, LOG_WEIGHT = "rung", "log_tempered", "log_weight"


def rung_weight_stats(dims: tuple[str, ...] = ()) -> tuple[Stat, Stat, Stat]:
    """The importance-tempering trio with ``dims``: the rung of each draw, U and (1 − k) U."""
    return (Stat(RUNG, dims, "rung of the draw (0 = the target)"),
            Stat(LOG_TEMPERED, dims, "U, the tempered log factor at the draw (seed 001)"),
            Stat(LOG_WEIGHT, dims, "log importance weight (1 − k) U for the target (seed 001)"))


class Headline(NamedTuple):
    """A statistic a sampler puts forward: shown live by the progress bar, reported by
    ``tempering summary`` and, when it has a ``floor``, warned about below it.

    Its value over a run's records (:func:`headline_value`) is the mean of ``stat`` over chains,
    draws and the stat's own dims; with ``per``, the ratio Σ stat / Σ per (e.g. swaps accepted
    per swap proposed); with ``last``, a running count: the last draw's value, summed over chains
    and dims; with ``share_of``, the share of draws whose ``stat`` equals that value (e.g. ST's
    draws at rung 0).

    Attributes
    ----------
    label
        A few words for the progress bar and the summary ("swap accept").
    stat, per
        Names of recorded statistics (:class:`Stat` or :data:`COMMON_STATS`).
    last, share_of
        How the value is formed (see above).
    floor
        ``None``, or the value under which the summary warns (a sampler that barely moves
        between temperatures).
    advice
        What to change when the value is below ``floor`` (the summary's warning says it).
    """

    label: str
    stat: str
    per: str | None = None
    last: bool = False
    share_of: float | None = None
    floor: float | None = None
    advice: str | None = None


#: The headline of a sampler that declares none: the mean acceptance of its steps.
ACCEPTANCE_HEADLINE = Headline("accept", "acceptance_rate")


def headline_value(headline: Headline, record: Mapping[str, Any]) -> float:
    """The headline's value over records (chain, draw, *dims) as NumPy arrays; NaN when a
    statistic is missing, or a ratio has nothing to divide by."""
    if headline.stat not in record or (headline.per is not None and headline.per not in record):
        return float("nan")
    values = np.asarray(record[headline.stat], dtype=float)
    if values.size == 0:
        return float("nan")
    if headline.last:
        return float(np.sum(values[:, -1]))
    if headline.share_of is not None:
        return float(np.mean(values == headline.share_of))
    if headline.per is not None:
        denominator = float(np.sum(record[headline.per]))
        return float(np.sum(values)) / denominator if denominator > 0 else float("nan")
    return float(np.nanmean(values)) if np.any(np.isfinite(values)) else float("nan")


class AlgorithmInfo(NamedTuple):
    """Per-step report of an algorithm (all scalars per chain unless a stat says otherwise)."""

    acceptance_rate: Array
    cost: Array
    lp: Array
    stats: dict[str, Array]


class Scans(NamedTuple):
    """An algorithm's warmup and sampling as one loop body, so that one compiled program runs
    both (:class:`~tempering.algorithms.programs.Compiled`; issue 44). ``warming`` is a traced
    flag, not batched over chains; ``num_steps`` (the warmup's scans) is static unless
    ``steps_traced``.

    Attributes
    ----------
    begin
        (key, state, params, warming, num_steps) ↦ (state, params, carry, cost): what a warmup
        starts with (the parameters, which a per-chain pilot may choose; the carry: whatever its
        scans accumulate, e.g. adapters and round sums), and the cost of starting it; ``key``
        is :func:`begin_key`'s.
    scan
        (key, t, state, params, carry, warming, num_steps) ↦ (state, params, carry, info): scan
        t of the warmup when ``warming`` (which may tune ``params``), else a sampling step
        exactly as ``step`` makes it.
    startup
        Warming scans before the warmup's ``num_steps`` (EE's ladder start-up, which brings
        the levels in one by one): a warmup of ``num_steps`` runs ``startup + num_steps`` scans.
    done_in_begin
        ``num_steps`` ↦ how many of the warmup's steps ``begin`` did itself (TT's per-level
        adaptation, the discretizing chain's run of R on π*), which the warming scans then
        leave out; ``None``: none.
    steps_traced
        ``begin`` and ``scan`` take ``num_steps`` as a traced integer (PT's warmup plan), so
        the driver compiles one program for every warmup length; otherwise it is static.
    segments
        ``None`` (the warmup is one call of the program), or ``num_steps`` ↦ the warming scans
        of each call the driver makes, in order (their sum: :meth:`warming_scans`), so that
        ``between`` may step in on the host (PT's schedule rounds).
    between
        (i, state, params) ↦ (state, params): NumPy on the host after call i of the warmup
        (chains first; PT: round i closed, :func:`~tempering.algorithms.pt.warmup.
        host_rounds`).
    resume
        With ``segments``, (state, params, num_steps, warming, first) ↦ (state, params, carry,
        cost), in place of ``begin``: what a call starts with, ``first`` the warmup's first
        call (PT: later calls re-initialise the replicas at the schedule the host moved).
    """

    begin: Callable[..., tuple[Any, Any, Any, Array]]
    scan: Callable[..., tuple[Any, Any, Any, AlgorithmInfo]]
    startup: int = 0
    done_in_begin: Callable[[int], int] | None = None
    steps_traced: bool = False
    segments: Callable[[int], tuple[int, ...]] | None = None
    between: Callable[[int, Any, Any], tuple[Any, Any]] | None = None
    resume: Callable[..., tuple[Any, Any, Any, Array]] | None = None

    def warming_scans(self, num_steps: int) -> int:
        """The scans of a warmup of ``num_steps``."""
        done = 0 if self.done_in_begin is None else self.done_in_begin(int(num_steps))
        return self.startup + int(num_steps) - done


#: The ``fold_in`` datum of a warmup's begin key: scan t's key folds in t, and no warmup runs
#: 2³¹ − 1 scans.
BEGIN = 2**31 - 1


def begin_key(key: Array) -> Array:
    """The key a warmup's :attr:`Scans.begin` draws from (a per-chain pilot's)."""
    return jax.random.fold_in(key, BEGIN)


def when_warming(warming: Array, work: Callable[[], tuple[Any, Any, Array]], state: Any,
                 params: Any) -> tuple[Any, Any, Array]:
    """(state, params, cost) after ``work`` — a warmup's own start (a pilot, an adaptation)
    returning them — when ``warming``, else unchanged at zero cost: a ``cond`` that a sampling
    call of the one program skips, the tuned parameters kept in ``params``' dtypes."""
    zero = jnp.zeros(())

    def run():
        new_state, new_params, cost = work()
        return new_state, like(new_params, params), jnp.asarray(cost).astype(zero.dtype)

    return jax.lax.cond(warming, run, lambda: (state, params, zero))


def step_scans(step: Callable[..., tuple[Any, AlgorithmInfo]]) -> Scans:
    """The :class:`Scans` of an algorithm whose warmup is its sampling step run ``num_steps``
    times at fixed parameters (a burn-in): ``begin`` starts nothing and every scan, warming or
    not, is ``step`` — so one program, with one copy of the step, runs both."""

    def begin(key, state, params, warming, num_steps):
        del key, warming, num_steps
        return state, params, (), jnp.zeros(())

    def scan(key, t, state, params, carry, warming, num_steps):
        del t, warming, num_steps
        state, info = step(key, state, params)
        return state, params, carry, info

    return Scans(begin, scan)


def begin_then_step(begin: Callable[..., tuple[Any, Any, Array]],
                    step: Callable[..., tuple[Any, AlgorithmInfo]],
                    done: Callable[[int], int]) -> Scans:
    """The :class:`Scans` of an algorithm whose warmup starts with work of its own: ``begin``
    (key, state, params, num_steps) ↦ (state, params, cost) runs when warming (a ``cond`` on
    ``warming``: a sampling call skips it) and does the first ``done(num_steps)`` of the
    warmup's steps (:attr:`Scans.done_in_begin`: the warming scans leave them out); every scan
    is ``step``, the one copy of it in the program. (TT's per-level adaptation does the whole
    warmup, the discretizing chain's run of R on π* its first half.)"""

    def start(key, state, params, warming, num_steps):
        if done(num_steps) == 0:
            return state, params, (), jnp.zeros(())
        state, params, cost = when_warming(
            warming, lambda: begin(key, state, params, num_steps), state, params)
        return state, params, (), cost

    return Scans(start, step_scans(step).scan, done_in_begin=done)


def warmup_by_scans(scans: Scans, key: Array, state: Any, params: Any, num_steps: int
                    ) -> tuple[Any, Any, Array]:
    """``num_steps`` warming scans of ``scans`` on their own, keyed as the driver's one program
    keys them (scan t: ``fold_in(key, t)``): the ``warmup`` of an algorithm with ``Scans``, so
    that a warmup run alone and one inside the program are the same transition."""
    warming = jnp.asarray(True)
    state, params, carry, cost = scans.begin(begin_key(key), state, params, warming,
                                             num_steps)

    def body(t, loop):
        state, params, carry, cost = loop
        state, params, carry, info = scans.scan(jax.random.fold_in(key, t), t, state, params,
                                                carry, warming, num_steps)
        return state, params, carry, cost + info.cost

    state, params, _, cost = jax.lax.fori_loop(0, scans.warming_scans(num_steps), body,
                                               (state, params, carry, cost))
    return state, params, cost


class Algorithm(NamedTuple):
    """A sampler the driver can run. See the module docstring for the four functions.

    Attributes
    ----------
    params
        Initial tunable parameters (adapted in warmup, frozen while sampling).
    stats
        The statistics ``step`` writes (beside :data:`COMMON_STATS`).
    position_dims
        Dims of the extra leading axes of ``position(state)`` (``()``: one draw per step).
    facts
        Derived values recorded in the run file (not options: they are not fed back).
    options
        The validated, resolved options it was built from (``None`` for an algorithm built by
        hand rather than from the registry; such a run cannot be rebuilt from its file).
    headline
        The statistics it puts forward (:class:`Headline`): the progress bar shows them live, the
        summary reports them and warns below their floors.
    name
        The sampler's registry name, set by the registry from the spec (a sampler's name is
        given once, in its :class:`~tempering.algorithms.spec.SamplerSpec`); ``""`` for an
        algorithm built by hand unless it sets one (``algorithm._replace(name="pt")`` gives a
        hand-built PT the PT summary).
    trim
        (record, axis) ↦ the record as the run file keeps it, each statistic's own dims
        starting at ``axis`` (host arrays or shapes), for a program that computes more than it
        keeps (PT's rung window: :mod:`tempering.algorithms.pt.capacity`); ``None``: as is.
    scans
        Warmup and sampling as one loop body (:class:`Scans`; PT), run by one compiled program;
        ``None``: a warmup program and a sampling program.
    """

    init: Callable[[Array, Array], Any]
    warmup: Callable[[Array, Any, Any, int], tuple[Any, Any, Array]]
    step: Callable[[Array, Any, Any], tuple[Any, AlgorithmInfo]]
    position: Callable[[Any], Array]
    params: Any
    stats: tuple[Stat, ...] = ()
    position_dims: tuple[str, ...] = ()
    facts: Mapping[str, Any] = MappingProxyType({})
    options: BaseModel | None = None
    headline: tuple[Headline, ...] = (ACCEPTANCE_HEADLINE,)
    name: str = ""
    trim: Callable[[dict[str, Any], int], dict[str, Any]] | None = None
    scans: Scans | None = None


class RunLayout(NamedTuple):
    """The shapes a run's programs are compiled for, as a pilot that runs them first needs them:
    chains run together (``batch``), warmup steps, draws and thinning, and draws per chunk
    (:func:`tempering.run.driver.chunk_length`). The defaults are :func:`tempering.run_chains`'s
    (4 chains as one batch, 500 warmup steps, 1000 draws in chunks of 50)."""

    batch: int = 4
    warmup: int = 500
    draws: int = 1000
    thin: int = 1
    chunk: int = 50
    #: the run's chains, in every batch together (:func:`~tempering.numerics.brief_run` counts them)
    chains: int = 4

    @property
    def scans(self) -> int:
        """A chain's scans: warmup, then ``thin`` per draw."""
        return self.warmup + self.draws * self.thin

    def brief(self, model: Any) -> bool:
        """Whether the run is brief (:func:`~tempering.numerics.brief_run`)."""
        return brief_run(model, self.chains, self.scans)
