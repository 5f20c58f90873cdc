"""What SGLD's and SGHMC's warmup computes on the full data before the chain moves: the posterior
mode θ̂ (the control variates' centre, Baker, Fearnhead, Fox & Nemeth 2019, "Control variates for
stochastic gradient MCMC", Statistics and Computing 29: 599–615, §3: "find θ̂ by stochastic
optimisation"; here a full-data L-BFGS, as the data fit in memory) and λ_max, the largest
eigenvalue of the negative log-posterior Hessian there, from which the step size is chosen.

Both run inside the algorithm's ``warmup``, so that the driver counts their seconds as warmup
and their work in the run's cost; each returns its number of full-data gradient evaluations (a
value-and-gradient evaluation counts one; a Hessian-vector product, a forward pass over the
gradient, counts two).

The optimiser is optax's L-BFGS (``optax.lbfgs``, memory 10, zoom line search); its loop and
stopping rule are written here, as optax leaves them to the caller: stop when ‖∇f‖_∞ ≤ 10⁻⁶ (1 +
|f|) — scale-free, and for a log posterior of order n, whose sd is O(n^(−½)), far below what moves
θ̂ by a fraction of an sd — or after :data:`MODE_MAX_ITERATIONS` iterations. An imprecise θ̂ costs
efficiency only: the control-variate estimator is unbiased at any centre.

λ_max: the exact eigenvalue of the dense Hessian H (``jax.hessian``, d Hessian-vector products)
for d ≤ :data:`DENSE_HESSIAN_MAX`, else :data:`POWER_ITERATIONS` steps of the power iteration
(its Rayleigh quotient converges to λ_max from below at the rate (λ₂/λ₁)^(2k)). With the dense
Hessian the sampler may also move in the coordinates that whiten it (a preconditioner B with
B Bᵀ = H⁻¹, the Laplace approximation's covariance): the curvature is then 1 in every direction
at the mode, and a step chosen for the stiffest direction is as large in the flattest one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

Array = jax.Array

#: L-BFGS iterations at most.
MODE_MAX_ITERATIONS = 200
#: Stop when ‖∇f‖_∞ ≤ this × (1 + |f|).
MODE_GRADIENT_TOLERANCE = 1e-6
#: Dimension up to which λ_max comes from the dense Hessian (2d passes over the data, against
#: the power iteration's 60), so that the default preconditions: SGLD-CV at its defaults on
#: ``logistic`` n = 10⁵, d = 50 (4 × 1000 draws, seeds 0 and 1) ended 0.233 and 0.152 sd off
#: unpreconditioned, 0.147 and 0.132 preconditioned (2026-11-28; at 32, the former bound).
DENSE_HESSIAN_MAX = 64
#: Power-iteration steps above it.
POWER_ITERATIONS = 30


def find_mode(log_density: Callable[[Array], Array], start: Array) -> tuple[Array, Array]:
    """The maximiser of ``log_density`` from ``start`` by L-BFGS, and the evaluations made
    (value and gradient each; see the module docstring for the stopping rule)."""

    def objective(theta):
        return -log_density(theta)

    solver = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(objective)

    def improving(carry):
        _, state, iteration, _ = carry
        value = optax.tree.get(state, "value")
        grad = optax.tree.get(state, "grad")
        far = jnp.max(jnp.abs(grad)) > MODE_GRADIENT_TOLERANCE * (1.0 + jnp.abs(value))
        return (iteration == 0) | ((iteration < MODE_MAX_ITERATIONS) & far
                                   & jnp.isfinite(value))

    def iterate(carry):
        theta, state, iteration, evals = carry
        fresh = ~jnp.isfinite(optax.tree.get(state, "value"))  # the first: not in the state yet
        value, grad = value_and_grad(theta, state=state)
        updates, state = solver.update(grad, state, theta, value=value, grad=grad,
                                       value_fn=objective)
        searched = optax.tree.get(state, "info").num_linesearch_steps
        evals = evals + fresh.astype(evals.dtype) + searched.astype(evals.dtype)
        return optax.apply_updates(theta, updates), state, iteration + 1, evals

    carry = (start, solver.init(start), jnp.zeros((), jnp.int32), jnp.zeros((), start.dtype))
    theta, _, _, evals = jax.lax.while_loop(improving, iterate, carry)
    return theta, evals


class Curvature(NamedTuple):
    """The curvature at a point, as the step-size rules need it.

    Attributes
    ----------
    largest
        λ_max of Bᵀ H B, H = −∇² log π at the point and B the ``basis`` (the identity when
        there is none): 1 when B whitens H.
    basis
        ``None``, or B with B Bᵀ = H⁻¹ (B = C⁻ᵀ, H = C Cᵀ by Cholesky): the chain then moves
        φ with θ = θ₀ + B φ, in which the posterior near the mode has unit curvature.
    evals
        Full-data gradient evaluations made (2 per Hessian-vector product).
    """

    largest: Array
    basis: Array | None
    evals: Array


def curvature_at(log_density: Callable[[Array], Array], theta: Array,
                 whiten: bool) -> Curvature:
    """λ_max of −∇² log_density at θ (dense for d ≤ :data:`DENSE_HESSIAN_MAX`, else by power
    iteration), and with ``whiten`` (dense only) the basis that whitens it — the identity when
    the Hessian is not positive definite (its Cholesky factor is not finite)."""
    dim = theta.shape[0]
    if dim > DENSE_HESSIAN_MAX:
        largest, evals = power_iteration(log_density, theta)
        return Curvature(largest, jnp.eye(dim, dtype=theta.dtype) if whiten else None, evals)
    hessian = -jax.hessian(log_density)(theta)
    evals = jnp.asarray(2.0 * dim, theta.dtype)
    if not whiten:
        return Curvature(jnp.linalg.eigvalsh(hessian)[-1], None, evals)
    eye = jnp.eye(dim, dtype=theta.dtype)
    factor = jnp.linalg.cholesky(hessian)
    basis = jax.scipy.linalg.solve_triangular(factor, eye, lower=True).T
    basis = jnp.where(jnp.all(jnp.isfinite(basis)), basis, eye)
    return Curvature(jnp.linalg.eigvalsh(basis.T @ hessian @ basis)[-1], basis, evals)


def power_iteration(log_density: Callable[[Array], Array], theta: Array) -> tuple[Array, Array]:
    """λ_max of −∇² log_density at θ by :data:`POWER_ITERATIONS` Hessian-vector products from
    a fixed generic start, and the evaluations made (2 per product)."""
    gradient = jax.grad(log_density)

    def product(v):
        return -jax.jvp(gradient, (theta,), (v,))[1]

    def power(v, _):
        w = product(v)
        return w / jnp.linalg.norm(w), None

    start = jax.random.normal(jax.random.key(0), theta.shape, theta.dtype)
    v, _ = jax.lax.scan(power, start / jnp.linalg.norm(start), None,
                        length=POWER_ITERATIONS - 1)
    return jnp.vdot(v, product(v)), jnp.asarray(2.0 * POWER_ITERATIONS, theta.dtype)
