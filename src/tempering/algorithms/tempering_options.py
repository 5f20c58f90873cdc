"""Options shared by the tempering samplers, and the per-rung inner kernels they build.

A tempering sampler's options are its own (``inner``, ``rungs``, ``beta_min``, ``inner_steps``,
...) plus the options of the inner kernel it names, all at one level: ``--set sampler.inner=hmc
--set sampler.step_size=0.01 --set sampler.num_steps=5``. Per-rung parameters follow seed 000 §4.3:
the RWM proposal scale is σ_m = σ · β_m^(−1/2) (``step_size`` is σ at the target, default 0.1); HMC
keeps one ε on every rung, as the paper does; slice widths and NUTS start equal on every rung (NUTS
and any ``adapt_step_size`` adapt per rung in warmup). A prior rung (β = 0) gets the RWM scale of
the smallest positive β.

``ladder`` picks the spacing of β between 1 and ``beta_min`` (geometric, harmonic, sigmoidal; see
:mod:`tempering.ladders.schedule`), ``prior_rung`` appends β = 0 (power ladders only).
"""

from __future__ import annotations

from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from tempering.config import validate_options
from tempering.kernels import KERNELS
from tempering.kernels.base import BoundKernel, Kernel, run_kernel


class TemperingOptions(BaseModel):
    """Options every tempering sampler has; the inner kernel's options ride along as extras.
    ``inner`` is any registered kernel; ``rj_changepoint`` (reversible jump) fits only the
    ``changepoint`` model's layout."""

    model_config = ConfigDict(extra="allow")

    inner: Literal["rwm", "hmc", "nuts", "slice", "rj_changepoint"] = "rwm"
    rungs: int = Field(7, ge=2)
    beta_min: float = Field(0.125, gt=0.0, lt=1.0)
    inner_steps: PositiveInt = 1
    ladder: Literal["geometric", "harmonic", "sigmoidal"] = "geometric"
    prior_rung: bool = False


class PTOptions(TemperingOptions):
    """``keep_all_rungs``: write every rung's draws (IMC3, for importance tempering and evidence
    estimates), not only the target's."""

    swap: Literal["sweep", "deo"] = "sweep"
    keep_all_rungs: bool = False


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


class SPTOptions(PTOptions):
    subsets: Literal["nested", "independent"] = "nested"


class TTOptions(TemperingOptions):
    """A tempered transition must travel between modes within one excursion, so each level gets
    several inner updates by default (10; the PT family's default is the paper's single update)."""

    inner_steps: PositiveInt = 10


class STTOptions(TTOptions):
    subsets: Literal["nested", "independent"] = "nested"


def bind_inner(options: TemperingOptions, dim: int) -> tuple[BoundKernel, Any]:
    """Validate the extra (inner-kernel) options and bind the inner kernel."""
    spec = KERNELS[options.inner]
    inner_options = validate_options(spec.options, dict(options.model_extra or {}),
                                     prefix="sampler")
    return spec.bind(inner_options, dim), inner_options


def rung_params(bound: BoundKernel, inner: str, betas: np.ndarray) -> dict[str, jax.Array]:
    """Tunable inner-kernel parameters stacked over rungs (leading axis = rung)."""
    stacked = jax.tree.map(lambda p: jnp.stack([p] * len(betas)), bound.params)
    if inner == "rwm":
        betas = np.asarray(betas, dtype=float)
        floor = betas[betas > 0].min()  # a prior rung (β = 0) takes the hottest positive β's scale
        scale = jnp.asarray(np.maximum(betas, floor), jnp.float64) ** -0.5
        stacked = {**stacked, "step_size": stacked["step_size"] * scale[:, None]}
    return stacked


def rung_slice(params: Any, m: int) -> Any:
    """Rung m's parameters from a rung-stacked pytree."""
    return jax.tree.map(lambda p: p[m], params)


def visit(kernel: Kernel, key: jax.Array, state: Any, steps: int) -> tuple[Any, jax.Array,
                                                                          jax.Array]:
    """``steps`` inner updates; returns the state, evaluations made and mean acceptance."""

    def body(carry, step_key):
        state, n_evals, accept = carry
        state, info = kernel.step(step_key, state)
        return (state, n_evals + info.n_evals, accept + info.acceptance_rate), None

    zero = jnp.zeros(())
    (state, n_evals, accept), _ = jax.lax.scan(body, (state, zero, zero),
                                               jax.random.split(key, steps))
    return state, n_evals, accept / steps


def warmup_rung(bound: BoundKernel, key, log_density, state, params, num_steps):
    """Adapt one rung's parameters on its own density (warmup only), or just run it."""
    if bound.warmup is not None:
        return bound.warmup(key, log_density, state.position, num_steps, params)
    state, n_evals = run_kernel(key, bound.make(log_density, params), state, num_steps)
    return state, params, n_evals
