"""The batch gradient estimators of SGLD and SGHMC, plain and with control variates (Baker,
Fearnhead, Fox & Nemeth 2019, "Control variates for stochastic gradient MCMC", Statistics and
Computing 29: 599–615), and the variance of their noise, read off the batch.

With l_i(θ) = log p(x_i | θ), log π(θ) = log π₀(θ) + Σ_i l_i(θ) and a batch B of m of the n data
points drawn uniformly without replacement, the plain estimator is

    ĝ(θ) = ∇ log π₀(θ) + (n/m) Σ_{i∈B} ∇l_i(θ),

and the control-variate estimator, centred at a point θ̂ (the posterior mode, found in warmup),

    ĝ_cv(θ) = ∇ log π(θ̂) + ∇ log π₀(θ) − ∇ log π₀(θ̂) + (n/m) Σ_{i∈B} [∇l_i(θ) − ∇l_i(θ̂)]
            = ∇ log π₀(θ) + Σ_i ∇l_i(θ̂) + (n/m) Σ_{i∈B} [∇l_i(θ) − ∇l_i(θ̂)]

(Baker et al. 2019, Eq. 5), with the full-data sum Σ_i ∇l_i(θ̂) computed once, in warmup. Both are
unbiased over B; the control variate's noise is that of (n/m) Σ_B d_i with d_i = ∇l_i(θ) −
∇l_i(θ̂) = O(|θ − θ̂|), so near the mode it is smaller than the plain one's by a factor of order
|θ − θ̂|² / (posterior sd)² × 1/n — Baker et al. show the batch needed for an ε-accurate SGLD
drops from O(n) to O(1).

The noise of either estimator, per coordinate j, is V_j = n² (1 − m/n) S²_j / m (sampling
without replacement, S²_j the population variance of the d_ij — of the ∇_j l_i for the plain
estimator), estimated by the batch's sample variance: the per-datum gradients are computed
anyway (one ``vmap`` of ``grad`` over the batch rows, O(m d) like the gradient of the sum), so
V costs nothing extra. The ∇l_i(θ̂) of the batch are recomputed every step (BlackJAX's
``sgmcmc.gradients.control_variates`` does the same, but it fixes θ̂ when it is built, where this
one is found in warmup and kept in the algorithm's parameters): storing them for all n would
take n × d numbers. A step with control variates therefore costs one more batch gradient.

The estimator's pieces are kept apart so that SGHMC's later inner steps on the same batch need
the gradient of the batch sum only: ĝ(θ) = ∇[log π₀ + (n/m) Σ_B l_i](θ) + c_B, with the batch's
correction c_B = Σ_i ∇l_i(θ̂) − (n/m) Σ_B ∇l_i(θ̂) (0 for the plain estimator).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from tempering.ladders.minibatch import MinibatchTarget
from tempering.models.base import Model

Array = jax.Array


class BatchGradient(NamedTuple):
    """One batch's gradient estimate at the step's starting point.

    Attributes
    ----------
    gradient
        ĝ(θ), the estimate of ∇ log π(θ) (plain or with control variates).
    noise_variance
        V_j, the estimated variance over batches of the j-th coordinate of Bᵀĝ(θ), B the
        sampler's basis (ĝ_j itself without one; finite-population factor included).
    correction
        c_B, added to the gradient of the batch sum at any θ on this batch (zeros without
        control variates, or before warmup has found a centre).
    """

    gradient: Array
    noise_variance: Array
    correction: Array


class Centre(NamedTuple):
    """The control variates' centre θ̂, the full-data Σ_i ∇l_i(θ̂), and 1.0 once warmup has set
    them (0.0: the plain estimator is used)."""

    position: Array
    lik_grad: Array
    active: Array


def batch_view(model: Model, n: int, batch: Array) -> Any:
    """The data rows in ``batch`` (all the data, in order, when the batch is all of it)."""
    if batch.shape[0] == n:
        return model.data
    return jax.tree.map(lambda a: jnp.take(a, batch, axis=0), model.data)


def per_datum_gradients(model: Model, theta: Array, view: Any) -> Array:
    """(m, d): ∇l_i(θ) for each row of ``view``, one ``vmap`` of ``grad`` over the rows."""

    def one(row):
        single = jax.tree.map(lambda a: a[None], row)
        return jax.grad(lambda t: model.log_lik_terms_fn(t, single)[0])(theta)

    return jax.vmap(one)(view)


def sum_noise_variance(terms: Array, n: int) -> Array:
    """V_j of (n/m) Σ_B t_ij over uniform m-subsets without replacement, from the batch's terms
    (m, d): n² (1 − m/n) s²_j / m, s²_j the sample variance (0 when m = n)."""
    m = terms.shape[0]
    if m == n:
        return jnp.zeros(terms.shape[1:], terms.dtype)
    return n**2 * (1.0 - m / n) * jnp.var(terms, axis=0, ddof=1) / m


def full_log_density(model: Model, target: MinibatchTarget) -> Callable[[Array], Array]:
    """θ ↦ κ log π₀(θ) + (s/n) Σ_i l_i(θ) on all the data (the density the batch estimates;
    SGLD and SGHMC use κ = 1, s = n: the log posterior)."""

    def log_density(theta):
        return target.log_prior(theta) + target.beta * jnp.sum(model.log_lik_terms(theta))

    return log_density


def full_lik_gradient(model: Model, target: MinibatchTarget, theta: Array) -> Array:
    """(s/n) Σ_i ∇l_i(θ) on all the data: one full-data gradient."""
    return jax.grad(lambda t: target.beta * jnp.sum(model.log_lik_terms(t)))(theta)


class GradientEstimator(NamedTuple):
    """The estimator of one target (see the module docstring).

    Attributes
    ----------
    estimate
        (θ, batch, centre or None, basis B or None) ↦ :class:`BatchGradient` at θ, its noise
        variance in the coordinates φ of θ = θ₀ + B φ (those the sampler moves).
    batch_sum_gradient
        (θ, batch) ↦ ∇[κ log π₀ + (s/m) Σ_B l_i](θ), the gradient of the batch sum (add the
        step's ``correction``).
    """

    estimate: Callable[[Array, Array, Centre | None, Array | None], BatchGradient]
    batch_sum_gradient: Callable[[Array, Array], Array]


def gradient_estimator(model: Model, target: MinibatchTarget) -> GradientEstimator:
    """The plain and control-variate estimators of ∇[κ log π₀ + (s/n) Σ_i l_i] on ``target``'s
    batches (s = n for SGLD and SGHMC)."""
    n, weight = target.n, target.scale / target.m
    prior_grad = jax.grad(target.log_prior)

    def estimate(theta, batch, centre, basis):
        view = batch_view(model, n, batch)
        raw = per_datum_gradients(model, theta, view)
        if centre is None:
            correction, diffs = jnp.zeros_like(theta), raw
        else:
            at_centre = per_datum_gradients(model, centre.position, view)
            shift = target.beta * centre.lik_grad - weight * jnp.sum(at_centre, axis=0)
            # where, not a product: the centre's gradients may be NaN before warmup sets them
            active = centre.active > 0
            correction = jnp.where(active, shift, jnp.zeros_like(shift))
            diffs = jnp.where(active, raw - at_centre, raw)
        gradient = prior_grad(theta) + weight * jnp.sum(raw, axis=0) + correction
        if basis is not None:
            diffs = diffs @ basis  # ∇_φ = Bᵀ ∇_θ, row by row
        noise = (target.scale / n) ** 2 * sum_noise_variance(diffs, n)
        return BatchGradient(gradient, noise, correction)

    def batch_sum_gradient(theta, batch):
        return jax.grad(lambda t: target.log_prior(t)
                        + target.scale * target.mean_terms(t, batch))(theta)

    return GradientEstimator(estimate, batch_sum_gradient)
