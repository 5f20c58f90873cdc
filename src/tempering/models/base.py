"""The ``Model`` contract (docs/architecture.md, "Contracts").

A model is a posterior over a flat, unconstrained parameter vector θ:

    log p(θ | X) = log_prior(θ) + log_lik(θ, X) + const,

where ``log_prior`` already holds the Jacobian of the transform to unconstrained space. ``data`` is
a pytree whose leaves share a leading data axis, so a subset, mini-batch or view is
``jax.tree.map(lambda a: a[idx], data)``. For i.i.d. models ``log_lik_terms`` gives the (n,)
per-datum terms whose sum is ``log_lik``; a GP's likelihood on a subset is the marginal likelihood
of that subset (not additive), so it has no terms and declares the cost exponent α = 3 (one
evaluation on N_m points costs (N_m/N)^α full-data evaluations; i.i.d. models have α = 1).

A plain frozen dataclass of pure functions is enough here: no inheritance, every function is
jittable and closes over its (constant) data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import prod
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from tempering.numerics import finite_or_neg_inf
from tempering.precision import in_force

Array = jax.Array
PyTree = Any


class ParamSpec(NamedTuple):
    """One named output variable: its constrained shape (``()`` for a scalar)."""

    name: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return prod(self.shape)


@dataclass(frozen=True, eq=False)
class Model:
    """A posterior on an unconstrained flat vector θ, with named constrained output.

    Attributes
    ----------
    name
        Registry name (``mvn_mean``, ``gp_regression``, ...).
    data
        Pytree with a leading data axis of length ``n_data``.
    log_prior_fn
        θ ↦ log p(θ), Jacobian of the unconstraining transform included.
    log_lik_fn
        (θ, data view) ↦ log p(data view | θ).
    log_lik_terms_fn
        (θ, data view) ↦ (n,) per-datum log-likelihood terms, for i.i.d. models; ``None`` otherwise.
    alpha
        Cost exponent: an evaluation on m of the n data points costs (m/n)^α full evaluations.
    params
        Named output variables in the order their (flattened) values appear in θ.
    constrain_fn
        θ ↦ {name: constrained value}.
    init_fn
        PRNG key ↦ an initial θ (a draw from the prior unless the model says otherwise).
    options
        The validated options the model was built from (recorded in run files).
    attrs
        Extra facts recorded in run files (e.g. standardisation constants, generating θ).
    gp
        For GP regression models, the noise-free kernel and residual variance
        (:class:`~tempering.gp.structure.GPParts`) that the approximations of seed 002 §5.2 and
        the predictive distribution need; ``None`` for other models.
    predictive_checks
        For models with a held-out test set (kept out of ``data``, so never mini-batched): θ draws
        (S, dim) ↦ ``{"test_accuracy", "test_log_predictive"}`` of the posterior predictive
        p(y*|x*) ≈ (1/S) Σ_s p(y*|x*, θ_s) (:func:`~tempering.models.predictive.predictive_checks`);
        ``None`` for other models.
    splits
        Fast/slow splits of θ by name (:class:`~tempering.models.fast_slow.FastSlowSplit`, seed
        004): what the ensemble sampler uses; empty for models without cheap fast variables.
    theta_dim
        Length of θ when it is not the sum of the ``params`` sizes — a user's model whose output
        holds derived quantities (NumPyro ``deterministic`` sites) or whose constrained shapes
        differ from the unconstrained ones (a simplex); ``None``: the sum.
    precision
        ``"float32"`` or ``"float64"``: the width its runs compute in (:mod:`tempering.precision`:
        the sampler's build and every program of its runs are traced inside that scope); by
        default the precision in force where the model is made, as its arrays are.
    """

    name: str
    data: PyTree
    log_prior_fn: Callable[[Array], Array]
    log_lik_fn: Callable[[Array, PyTree], Array]
    alpha: float
    params: tuple[ParamSpec, ...]
    constrain_fn: Callable[[Array], dict[str, Array]]
    init_fn: Callable[[Array], Array]
    log_lik_terms_fn: Callable[[Array, PyTree], Array] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    gp: Any = None
    predictive_checks: Callable[[Array], dict[str, Array]] | None = None
    splits: dict[str, Any] = field(default_factory=dict)
    theta_dim: int | None = None
    precision: str = field(default_factory=in_force)

    @classmethod
    def from_logdensity(cls, log_prior: Callable[[Array], Array],
                        log_lik: Callable[[Array, PyTree], Array] | None = None,
                        data: PyTree = None, **kwargs: Any) -> Model:
        """A model from a user's own log densities on a flat unconstrained θ:
        :func:`tempering.models.user.from_logdensity` (same arguments)."""
        from tempering.models.user import from_logdensity

        return from_logdensity(log_prior, log_lik, data, **kwargs)

    @property
    def n_data(self) -> int:
        """Number of data points (length of the leading axis of ``data``)."""
        return int(jax.tree.leaves(self.data)[0].shape[0])

    @property
    def dim(self) -> int:
        """Length of the unconstrained parameter vector θ."""
        if self.theta_dim is not None:
            return self.theta_dim
        return sum(p.size for p in self.params)

    def log_prior(self, theta: Array) -> Array:
        """log p(θ) in unconstrained space; non-finite values become −∞."""
        return finite_or_neg_inf(self.log_prior_fn(theta))

    def log_lik(self, theta: Array, data: PyTree | None = None) -> Array:
        """log p(data | θ) on ``data`` (default: all data); non-finite values become −∞."""
        return finite_or_neg_inf(self.log_lik_fn(theta, self.data if data is None else data))

    def log_lik_terms(self, theta: Array, data: PyTree | None = None) -> Array:
        """Per-datum log-likelihood terms (i.i.d. models only)."""
        if self.log_lik_terms_fn is None:
            raise TypeError(f"model {self.name} is not i.i.d.: it has no per-datum terms")
        return self.log_lik_terms_fn(theta, self.data if data is None else data)

    def log_density(self, theta: Array) -> Array:
        """The unnormalised log posterior log p(θ) + log p(X | θ); −∞ where either is not finite."""
        return finite_or_neg_inf(self.log_prior(theta) + self.log_lik(theta))

    def constrain(self, theta: Array) -> dict[str, Array]:
        """Named, constrained values of one θ."""
        return self.constrain_fn(theta)

    def init_position(self, key: Array) -> Array:
        """An initial θ for one chain."""
        return jnp.asarray(self.init_fn(key), dtype=float)


class ModelSpec(NamedTuple):
    """A registered model: its name, one line for ``tempering models``, its options class (unknown
    keys are errors), ``build(options) -> Model``, whether its models carry
    ``predictive_checks`` (so a run summary rebuilds the model only when it has something to add)
    and the precision it is built and run in unless the user chooses
    (:mod:`tempering.precision`).
    """

    name: str
    summary: str
    options: type[Any]
    build: Callable[[Any], Model]
    predictive: bool = False
    precision: str = "float32"
