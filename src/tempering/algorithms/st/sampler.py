"""Simulated tempering (Marinari & Parisi 1992; Geyer & Thompson 1995; seed 001 §2).

State: the inner sampler's state x (any state space, see
:mod:`tempering.algorithms.st.family`) and its rung i, rung 0 the target (k_0 = 1; the
paper's k_1). The chain targets

    π(x, i) ∝ p̃(i) exp(b(x) + k_i U(x)),

so its draws at rung 0 are draws from the target and its draws at every rung are importance
samples for it with log weight (1 − k_i) U(x) (seed 001 Eq. 1 and §2.1; :mod:`importance`).

One iteration: ``inner_steps`` inner updates of x at the current rung (any inner kernel, with that
rung's parameters), then a proposal to a neighbouring rung j — from an end rung its only
neighbour, otherwise either neighbour with probability ½ (tgp's ``Temper::Propose``) — accepted
with probability min(1, r),

    log r = (k_j − k_i) U(x) + log p̃(j) − log p̃(i) + log q(j → i) − log q(i → j),

q(i → j) = 1/(number of neighbours of i). Both updates leave π(x, i) invariant, so their
composition does. The pseudo-prior p̃ is a tunable parameter: adapted in warmup
(:mod:`pseudo_prior`: a pilot starting value, stochastic approximation, occupation-count
correction) and frozen while sampling, when :func:`simulated_tempering`'s ``step`` cannot change
it (it is an argument, not part of the state).

Warmup of W steps: first a pilot in which every rung's inner kernel runs on its own (vmapped over
rungs) for P = min(⌊W/4⌋, 1000) adaptation — NUTS, ``adapt_step_size`` — or burn-in steps and
then P recorded steps, which give the starting pseudo-prior (skipped with
``pseudo_prior_init="uniform"``, tgp's start); then ⌊W/2⌋ ST iterations with stochastic
approximation; then the remaining W − ⌊W/2⌋ iterations with p̃ fixed, counting occupations for
the final correction (:mod:`~tempering.algorithms.st.warmup`: the warmup's scans and the
sampling steps are one loop body, which the driver compiles into one program). The pilot costs
about 2 m P extra evaluations (counted in the warmup cost);
it only has to bring p̃ within a few nats, hence the cap. The counts' precision is what limits
the final equalisation: their relative error is roughly one over the square root of the number
of round trips over the ladder made while counting.

Cost per iteration: the inner steps' evaluations, plus one evaluation of U at the prior rung
(k = 0; elsewhere U is read off the cached density) and one re-initialisation after an accepted
rung move when the inner state caches a gradient (HMC, NUTS).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal, NamedTuple, Self

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, model_validator

from tempering.algorithms.base import (
    Algorithm,
    AlgorithmInfo,
    Headline,
    Stat,
    rung_weight_stats,
    warmup_by_scans,
)
from tempering.algorithms.options import TemperingOptions
from tempering.algorithms.rungs import rung_slice
from tempering.algorithms.spec import SamplerSpec
from tempering.algorithms.st.family import TemperedFamily, flat_family
from tempering.algorithms.st.pseudo_prior import uniform_log_pseudo_prior
from tempering.algorithms.st.warmup import st_scans
from tempering.kernels.base import evals_and_acceptance
from tempering.models.base import Model
from tempering.numerics import metropolis, run_steps, select

Array = jax.Array

RUNG_STAT, LOG_TEMPERED_STAT, LOG_WEIGHT_STAT = rung_weight_stats()
RUNG_PROB = Stat("rung_accept_prob", (), "acceptance probability of the proposed rung move")
RUNG_ACCEPTED = Stat("rung_accepted", (), "whether the rung move was accepted")
INNER_ACCEPTANCE = Stat("inner_acceptance", (), "mean acceptance of the inner updates")
ST_STATS = (RUNG_STAT, LOG_TEMPERED_STAT, LOG_WEIGHT_STAT, RUNG_PROB, RUNG_ACCEPTED,
            INNER_ACCEPTANCE)
#: Rung-move acceptance (floor 0.05) and the share of draws at the target rung.
ST_HEADLINE = (Headline("rung accept", "rung_accepted", floor=0.05,
                        advice="neighbouring rungs are too far apart, or the pseudo-prior is "
                               "off: more rungs, a higher beta_min, a longer warmup"),
               Headline("at rung 0", RUNG_STAT.name, share_of=0))


class STState(NamedTuple):
    inner: Any  # inner-kernel state; its cached density belongs to rung ``rung``
    rung: Array  # () int32, 0 = the target


def rung_log_ratio(delta_k: Array, energy: Array, log_p_new: Array, log_p_old: Array,
                   log_q_ratio: Array) -> Array:
    """log r = (k_j − k_i) U + log p̃(j) − log p̃(i) + log q(j→i) − log q(i→j)."""
    return delta_k * energy + log_p_new - log_p_old + log_q_ratio


def propose_rung(key: Array, rung: Array, num_rungs: int) -> tuple[Array, Array]:
    """A neighbouring rung and log q(j → i) − log q(i → j) (end rungs have one neighbour)."""
    if num_rungs == 1:
        return rung, jnp.zeros(())
    top = num_rungs - 1
    up = jax.random.bernoulli(key)
    new = jnp.where(rung == 0, 1, jnp.where(rung == top, top - 1,
                                            jnp.where(up, rung + 1, rung - 1)))

    def neighbours(r):
        return jnp.where((r == 0) | (r == top), 1.0, 2.0)

    return new.astype(jnp.int32), jnp.log(neighbours(rung)) - jnp.log(neighbours(new))


def simulated_tempering(family: TemperedFamily, betas: np.ndarray, *,
                        inner_steps: int = 1, c0: float = 100.0,
                        n0: float = 1000.0,
                        pseudo_prior_init: Literal["pilot", "uniform"] = "pilot",
                        log_ratio: Callable = rung_log_ratio) -> Algorithm:
    """Build ST over ``betas`` (k_0 = 1 > k_1 > … ≥ 0) with ``family``'s inner kernels.

    Parameters
    ----------
    c0, n0
        Stochastic-approximation gain c0/(t + n0) (tgp's defaults 100, 1000).
    pseudo_prior_init
        ``"pilot"`` (thermodynamic-integration starting value from per-rung pilot runs) or
        ``"uniform"``.
    log_ratio
        The rung-move log ratio; replaceable only to show that a wrong one breaks invariance.

    Returns
    -------
    Algorithm
        ``params`` = {"inner": rung-stacked inner parameters, "log_pseudo_prior": (m,)};
        per-draw stats ``rung``, ``log_tempered`` (U), ``log_weight`` ((1 − k) U),
        ``rung_accept_prob``, ``rung_accepted``, ``inner_acceptance``; ``lp`` is the untempered
        log target b + U.
    """
    ks = jnp.asarray(betas, float)
    m = int(ks.shape[0])
    if float(betas[0]) != 1.0 or np.any(np.diff(betas) >= 0) or float(betas[-1]) < 0:
        raise ValueError("betas must start at 1 and decrease strictly to a value ≥ 0")
    params0 = {"inner": family.params, "log_pseudo_prior": uniform_log_pseudo_prior(m)}

    def kernel_at(params, rung):
        return family.make(ks[rung], rung_slice(params["inner"], rung))

    def init(key, position):
        del key
        return STState(kernel_at(params0, 0).init(position), jnp.zeros((), jnp.int32))

    def step(key, state, params):
        k_inner, k_prop, k_accept = jax.random.split(key, 3)
        rung = state.rung
        inner, (n_evals, accept) = run_steps(kernel_at(params, rung).step, k_inner, state.inner,
                                             inner_steps, evals_and_acceptance)
        accept = accept / inner_steps
        energy, energy_evals = family.energy(inner, ks[rung])
        new, log_q_ratio = propose_rung(k_prop, rung, m)
        lpp = params["log_pseudo_prior"]
        log_r = log_ratio(ks[new] - ks[rung], energy, lpp[new], lpp[rung], log_q_ratio)
        accepted, prob = metropolis(k_accept, log_r)
        accepted = (new != rung) & accepted
        moved, move_evals = family.retemper(inner, ks[new], energy,
                                            rung_slice(params["inner"], new))
        inner = select(accepted, moved, inner)
        rung = jnp.where(accepted, new, rung).astype(jnp.int32)
        evals = n_evals + energy_evals + jnp.where(accepted, move_evals, 0.0)
        one_minus_k = 1.0 - ks[rung]
        log_weight = jnp.where(one_minus_k == 0, 0.0, one_minus_k * energy)
        stats = {RUNG_STAT.name: rung, LOG_TEMPERED_STAT.name: energy,
                 LOG_WEIGHT_STAT.name: log_weight, RUNG_PROB.name: prob,
                 RUNG_ACCEPTED.name: accepted, INNER_ACCEPTANCE.name: accept}
        lp = family.base(inner.position) + energy
        return STState(inner, rung), AlgorithmInfo(accept, evals * family.eval_cost, lp, stats)

    scans = st_scans(family, ks, step, pseudo_prior_init == "pilot", (c0, n0),
                     lambda inner: STState(inner, jnp.zeros((), jnp.int32)))
    return Algorithm(init, partial(warmup_by_scans, scans), step, lambda s: s.inner.position,
                     params0, ST_STATS, headline=ST_HEADLINE,
                     facts={"betas": [float(b) for b in betas]}, scans=scans)


# --------------------------------------------------------------------------- the sampler


class STOptions(TemperingOptions):
    """Simulated tempering (seed 001): a ladder of ``rungs`` = m inverse temperatures (tgp's
    defaults m = 40, k_min = 0.1), ``tempering`` of the likelihood only or of the whole
    posterior, stochastic-approximation gain c0/(t + n0) for the pseudo-prior in warmup, and its
    starting value (``pilot``: thermodynamic integration over short per-rung runs; ``uniform``)."""

    rungs: int = Field(40, ge=2)
    beta_min: float = Field(0.1, gt=0.0, lt=1.0)
    tempering: Literal["likelihood", "posterior"] = "likelihood"
    c0: float = Field(100.0, gt=0.0)
    n0: float = Field(1000.0, ge=0.0)
    pseudo_prior_init: Literal["pilot", "uniform"] = "pilot"

    @model_validator(mode="after")
    def _prior_rung_needs_likelihood(self) -> Self:
        if self.prior_rung and self.tempering != "likelihood":
            raise ValueError("prior_rung: needs tempering = likelihood (the tempered posterior at "
                             "k = 0 is flat)")
        return self


def build(model: Model, options: STOptions) -> Algorithm:
    """ST over a model's flat θ with any inner kernel."""
    betas = options.betas()
    spec, bound = options.bind_inner(model.dim)
    family = flat_family(model, bound, spec.rung_params(bound, betas), options.tempering)
    return simulated_tempering(family, betas, inner_steps=options.inner_steps, c0=options.c0,
                               n0=options.n0, pseudo_prior_init=options.pseudo_prior_init)


SPEC = SamplerSpec(
    name="st",
    summary="simulated tempering with a tuned pseudo-prior, every draw kept for importance "
            "tempering (seed 001); also takes the inner kernel's options",
    options=STOptions,
    build=build,
    stats=ST_STATS,
)
