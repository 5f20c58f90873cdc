"""The benchmark's targets: library models with exact answers, and what each method needs to
run on them and be scored.

A :class:`Target` holds the model (θ ∈ ℝ^d, the library's contract), the prior transform from
the unit cube to θ that nested sampling needs (the inverse CDF of each target's independent
prior: Gaussian, or logistic for the egg-box's θ = logit(x/10π)), the exact log Z, and either
exact mode masses with a mode assignment or, for a unimodal target, a moment with its exact
value (and the exact communication barrier Λ where known):

- ``gauss-mixture-<d>d``: ``gauss_mixture`` with 4 modes of weights 0.1–0.4 and unequal widths
  (σ = 0.5, 1, 1.5, 2) under N(0, 10² I); masses w' and log Z in closed form;
- ``mixture``: ``mixture``'s label switching, K = 3 components at −3, 0, 3 (K! = 6 orderings of
  mass 1/6 each), log Z by grid quadrature;
- ``spike-slab``: ``spike_slab``'s concentric spike and slab (a phase transition near β = 1);
- ``eggbox``: the egg-box's 18 peaks (masses 0.08, 0.04, 0.02), log Z = 235.856;
- ``scaled-normal``: Pigeons.jl's scaled-precision normal path, Λ and log Z in closed form;
  scored by the relative error of E|θ|² = d/p₁.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy.special import logit, ndtri

from tempering import get_model
from tempering.bench.multimodal.sizes import Size
from tempering.models import (
    Model,
    box_point,
    eggbox_log_evidence,
    eggbox_mode_masses,
    eggbox_mode_of,
    gauss_mixture_log_evidence,
    gauss_mixture_masses,
    gauss_mixture_mode_of,
    mixture_log_evidence,
    ordering_index,
    ordering_masses,
    scaled_normal_barrier,
    scaled_normal_log_evidence,
    spike_slab_log_evidence,
    spike_slab_mode_masses,
    spike_slab_mode_of,
)

ArrayFn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Target:
    """A model and its exact answers (module docstring).

    ``mode_of`` maps θ draws (..., d) to mode indices into ``masses``; ``moment`` maps them to a
    scalar per draw whose exact mean is ``moment_value`` (unimodal targets). ``barrier`` is the
    exact Λ(0, 1) of the power path, when known.
    """

    key: str
    title: str
    model: Model
    prior_transform: ArrayFn
    log_z: float
    masses: np.ndarray | None = None
    mode_of: ArrayFn | None = None
    moment: ArrayFn | None = None
    moment_value: float | None = None
    barrier: float | None = None

    @property
    def n_modes(self) -> int:
        return 0 if self.masses is None else len(self.masses)

    def error_name(self) -> str:
        return "mode-mass err" if self.masses is not None else "E|θ|² rel err"

    def in_precision(self) -> AbstractContextManager[None]:
        """JAX's thread-local ``enable_x64`` scope in the model's precision, for the peers' JAX
        code: what ``tempering.precision.scope`` is inside the library, through JAX's public
        API, as a user would write it."""
        import jax

        return jax.enable_x64(self.model.precision == "float64")


def gaussian_transform(sd: float) -> ArrayFn:
    """Unit cube → N(0, sd² I): θ = sd Φ⁻¹(u)."""
    return lambda u: sd * ndtri(np.asarray(u))


def gauss_mixture(dim: int) -> Target:
    """The 4-mode mixture likelihood with unequal weights and widths in ``dim`` dimensions."""
    model = get_model("gauss_mixture", dim=dim, widths="unequal")
    return Target(
        f"gauss-mixture-{dim}d",
        f"gauss_mixture, {dim}-D: 4 modes, weights 0.1–0.4, widths 0.5–2, prior N(0, 10²)",
        model, gaussian_transform(float(model.options["prior_sd"])),
        gauss_mixture_log_evidence(model), gauss_mixture_masses(model),
        lambda theta: np.asarray(gauss_mixture_mode_of(theta, model)))


def label_switching(means: tuple[float, ...], n: int) -> Target:
    """``mixture`` with components at ``means`` and ``n`` points: K! orderings of mass 1/K!."""
    model = get_model("mixture", means=list(means), n=n)
    k = len(means)
    return Target(
        "mixture", f"mixture, label switching: K = {k} at {', '.join(f'{m:g}' for m in means)}, "
        f"n = {n} (K! = {len(ordering_masses(k))} orderings of equal mass)",
        model, gaussian_transform(float(model.options["prior_sd"])),
        mixture_log_evidence(model), ordering_masses(k), ordering_index)


def spike_slab(dim: int) -> Target:
    """The concentric spike and slab in ``dim`` dimensions (the model's other defaults)."""
    model = get_model("spike_slab", dim=dim)
    return Target(
        "spike-slab", f"spike_slab, {dim}-D: spike sd {model.options['spike_sd']:g}, slab sd "
        f"{model.options['slab_sd']:g}, weight {model.options['spike_weight']:g} (phase "
        "transition near β = 1)",
        model, gaussian_transform(float(model.options["prior_sd"])),
        spike_slab_log_evidence(model), spike_slab_mode_masses(model),
        lambda theta: np.asarray(spike_slab_mode_of(theta, model)))


def eggbox() -> Target:
    """The egg-box on [0, 10π]², θ = logit(x/10π)."""
    return Target(
        "eggbox", "eggbox: 18 peaks on [0, 10π]² (masses 0.08 / 0.04 edge / 0.02 corner), "
        "θ = logit(x/10π)",
        get_model("eggbox"), lambda u: logit(np.asarray(u)), eggbox_log_evidence(),
        eggbox_mode_masses(), lambda theta: np.asarray(eggbox_mode_of(box_point(theta))))


def scaled_normal(dim: int) -> Target:
    """Pigeons.jl's scaled-precision normal path in ``dim`` dimensions (p₀ = 1, p₁ = 10)."""
    model = get_model("scaled_normal", dim=dim)
    p0, p1 = float(model.options["precision0"]), float(model.options["precision1"])
    return Target(
        "scaled-normal", f"scaled_normal (Pigeons.jl's path), {dim}-D: precision {p0:g} → "
        f"{p1:g}, unimodal",
        model, gaussian_transform(1.0 / np.sqrt(p0)), scaled_normal_log_evidence(model),
        moment=lambda theta: np.sum(np.asarray(theta) ** 2, axis=-1), moment_value=dim / p1,
        barrier=float(scaled_normal_barrier(model, 1.0)))


def build_targets(size: Size) -> dict[str, Callable[[], Target]]:
    """Key ↦ a builder of each target at ``size`` (built lazily: the mixture's log Z takes a
    quadrature)."""
    builders: dict[str, Callable[[], Target]] = {
        f"gauss-mixture-{d}d": partial(gauss_mixture, d) for d in size.gauss_dims}
    builders["mixture"] = lambda: label_switching(size.mixture_means, size.mixture_n)
    builders["spike-slab"] = lambda: spike_slab(size.spike_dim)
    builders["eggbox"] = eggbox
    builders["scaled-normal"] = lambda: scaled_normal(size.normal_dim)
    return builders
