"""A PyMC model as a :class:`~tempering.models.base.Model`: :func:`from_pymc`.

PyMC's own machinery defines everything, compiled through PyTensor's JAX backend
(``pymc.sampling.jax.get_jaxified_graph``, the backend of PyMC's own JAX samplers). The
unconstrained space is PyMC's: the value variables ``model.value_vars`` (each free variable
through its default transform ``model.rvs_to_transforms`` — log for positive, log-odds for bounded,
the simplex transform for Dirichlet), concatenated raveled in that order into θ. With z = the
value variables,

    log_prior(θ) = Σ_free log p(x_v | parents) + Σ_free log |det ∂x_v/∂z_v|  = ``model.varlogp``,
    log_lik(θ, X) = Σ_observed log p(y_o | x) + Σ potentials  = ``model.observedlogp`` (+
                    ``model.potentiallogp``),

so log_prior + log_lik = ``model.logp(jacobian=True)``, PyMC's own log density (checked when the
model is built). Observed variables — and ``pm.Potential`` terms, like NumPyro's ``factor`` — are
the likelihood, the part that tempering powers or subsamples; a prior stays untempered. The
constrained output is the free variables and ``pm.Deterministic``s
(``model.replace_rvs_by_values``), in model order.

Per-datum terms. When the data live in ``pm.Data`` containers whose leading axis is the data axis
(length n, the leading length of every observed variable) and the graph follows their length —
PyMC's own rule for ``pm.set_data`` — those containers are the model's ``data`` and a data view
replaces them by its rows: ℓ_i(θ) sums every observed variable's elementwise log probability
(``model.logp(observed, sum=False)``) over all axes but the first. The rule is checked by tracing
the terms on the full data and on 1- and 2-point views (shapes only); a model that fails it (data
as NumPy constants, a latent vector as long as the data, a potential) has no terms and a dummy
length-1 ``data``, with the reason in ``attrs["per_datum"]``: the full-data samplers run it.
``per_datum=True`` makes the reason an error.

Written by hand: the ravel/unravel of θ, and the initial points. PyMC's ``initial_point()`` (its
support points, in the transformed space, computed once) is jittered by U(−1, 1) per coordinate
(``pm.sample``'s own jitter), redrawn up to 10 times until the log density is finite, as PyMC's
``_init_jitter`` does — here one jittable function of the chain's key.

PyMC is an optional dependency (``pip install 'tempering[pymc]'``), imported on first use.
Importing ``pymc.sampling.jax`` sets ``XLA_FLAGS`` to 100 host devices for later processes; the
import here restores the variable as it was.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.errors import UserInputError
from tempering.models.base import Array, Model, ParamSpec, PyTree
from tempering.models.user import as_data, first_line
from tempering.numerics import float_dtype
from tempering.precision import scope

#: PyMC's ``_init_jitter`` tries this many jittered points before giving up.
JITTER_TRIES = 10


def import_pymc() -> tuple[Any, Callable]:
    """The ``pymc`` module and ``get_jaxified_graph``, or one line saying how to install them."""
    flags = os.environ.get("XLA_FLAGS")
    try:
        pymc = importlib.import_module("pymc")
        jaxified = importlib.import_module("pymc.sampling.jax").get_jaxified_graph
    except ImportError:
        raise UserInputError("PyMC models need PyMC: pip install 'tempering[pymc]'") from None
    finally:
        if flags is None:
            os.environ.pop("XLA_FLAGS", None)
        else:
            os.environ["XLA_FLAGS"] = flags
    return pymc, jaxified


def is_pymc_model(obj: Any) -> bool:
    """Whether ``obj`` is a ``pymc.Model`` (without importing PyMC when nothing has)."""
    pymc = sys.modules.get("pymc")
    return pymc is not None and isinstance(obj, pymc.Model)


def check_variables(pymc_model: Any) -> None:
    """Continuous free variables and at least one observed variable, else one line."""
    if not pymc_model.free_RVs:
        raise UserInputError("from_pymc: the model has no free variables")
    if pymc_model.discrete_value_vars:
        name = pymc_model.discrete_value_vars[0].name
        raise UserInputError(f"from_pymc: free variable {name!r} is discrete; tempering samples "
                             "continuous parameters only (marginalize it out, e.g. a pm.Mixture)")
    if not pymc_model.observed_RVs:
        raise UserInputError("from_pymc: the model has no observed variables (pass the "
                             "observations, observed=...)")


def jaxify(jaxified: Callable, inputs: Sequence[Any], outputs: Sequence[Any], what: str
           ) -> Callable:
    """A PyTensor graph as a JAX function of ``inputs`` (positional) returning a list."""
    try:
        return jaxified(inputs=list(inputs), outputs=list(outputs))
    except Exception as exc:  # noqa: BLE001 - a graph PyTensor's JAX backend cannot take
        raise UserInputError(f"from_pymc: {what} does not compile to JAX: {first_line(exc)}"
                             ) from None


def leading_length(var: Any) -> int | None:
    """The leading length of an observed value or data container (``None`` for a scalar)."""
    value = var.get_value(borrow=True) if hasattr(var, "get_value") else getattr(var, "data",
                                                                                  None)
    shape = np.shape(value) if value is not None else ()
    return int(shape[0]) if shape else None


class Terms(NamedTuple):
    """Per-datum terms: the data (containers by name), and the terms on a view; or the reason
    there are none."""

    data: dict[str, np.ndarray] | None
    terms: Callable[[list[Array], PyTree], Array] | None
    reason: str


def per_datum_terms(jaxified: Callable, pymc_model: Any) -> Terms:
    """The per-datum terms of the module docstring, or why the model has none."""
    observed = pymc_model.observed_RVs
    lengths = {leading_length(pymc_model.rvs_to_values[rv]) for rv in observed}
    if len(lengths) != 1 or None in lengths:
        return Terms(None, None, "observed variables do not share a leading data axis")
    n = lengths.pop()
    if n is None or n < 2:
        return Terms(None, None, "fewer than 2 data points")
    if pymc_model.potentials:
        return Terms(None, None, "pm.Potential terms are not per datum")
    containers = [v for v in pymc_model.data_vars if leading_length(v) == n]
    if not containers:
        return Terms(None, None, f"no pm.Data container of length {n} holds the data")
    symbols = {v: v.type.clone(shape=(None, *v.type.shape[1:]))(name=f"{v.name}_view")
               for v in containers}
    elementwise = pymc_model.logp(observed, sum=False)
    graph = importlib.import_module("pytensor.graph.replace").clone_replace(elementwise, symbols)
    fn = jaxify(jaxified, [*pymc_model.value_vars, *symbols.values()], graph,
                "the per-datum log likelihood")
    names = [v.name for v in containers]

    def terms(values: list[Array], view: PyTree) -> Array:
        m = int(jax.tree.leaves(view)[0].shape[0])
        out = fn(*values, *(view[k] for k in names))
        return sum((jnp.reshape(t, (m, -1)).sum(axis=1) for t in out), jnp.zeros(m))

    data = {k: np.asarray(v.get_value()) for k, v in zip(names, containers, strict=True)}
    values = [jax.ShapeDtypeStruct(tuple(v.type.shape), v.dtype)
              for v in pymc_model.value_vars]
    for m in (n, 1, 2):
        view = {k: jax.ShapeDtypeStruct((m, *a.shape[1:]), a.dtype) for k, a in data.items()}
        try:
            shape = jax.eval_shape(terms, values, view).shape
        except Exception as exc:  # noqa: BLE001 - the graph does not follow the view's length
            return Terms(None, None, f"the model does not evaluate on {m} of its {n} data points "
                                     f"({first_line(exc)})")
        if shape != (m,):
            return Terms(None, None, f"the terms have shape {shape} on {m} data points")
    return Terms(data, terms, "")


class Functions(NamedTuple):
    log_prior: Callable[[Array], Array]
    log_lik: Callable[[Array, PyTree], Array]
    log_lik_terms: Callable[[Array, PyTree], Array] | None
    constrain: Callable[[Array], dict[str, Array]]
    init: Callable[[Array], Array]
    unravel: Callable[[Array], list[Array]]
    names: tuple[str, ...]
    start: np.ndarray  # PyMC's initial point, raveled


def unraveller(shapes: list[tuple[int, ...]]) -> Callable[[Array], list[Array]]:
    """θ ↦ the value variables, in order (θ is their raveled concatenation)."""
    sizes = [int(np.prod(s)) for s in shapes]
    offsets = np.cumsum([0, *sizes])

    def unravel(theta: Array) -> list[Array]:
        return [theta[offsets[i]:offsets[i + 1]].reshape(s) for i, s in enumerate(shapes)]

    return unravel


def functions(jaxified: Callable, pymc_model: Any, terms: Terms) -> Functions:
    """The Model's functions from PyMC's graphs (module docstring)."""
    value_vars = pymc_model.value_vars
    try:
        point = pymc_model.initial_point()
    except Exception as exc:  # noqa: BLE001
        raise UserInputError(f"from_pymc: no initial point: {first_line(exc)}") from None
    shapes = [tuple(np.shape(point[v.name])) for v in value_vars]
    start = np.concatenate([np.ravel(point[v.name]) for v in value_vars]).astype(np.float64)
    unravel = unraveller(shapes)
    prior = jaxify(jaxified, value_vars, [pymc_model.varlogp], "the log prior")
    lik = jaxify(jaxified, value_vars, [pymc_model.observedlogp + pymc_model.potentiallogp],
                 "the log likelihood")
    outputs = [*pymc_model.free_RVs, *pymc_model.deterministics]
    names = tuple(v.name for v in outputs)
    constrained = jaxify(jaxified, value_vars, pymc_model.replace_rvs_by_values(outputs),
                         "the constrained output")

    def log_prior(theta: Array) -> Array:
        return prior(*unravel(theta))[0]

    def log_lik(theta: Array, view: PyTree) -> Array:
        if terms.terms is None:
            return lik(*unravel(theta))[0]
        return jnp.sum(terms.terms(unravel(theta), view))

    def log_lik_terms(theta: Array, view: PyTree) -> Array:
        assert terms.terms is not None
        return terms.terms(unravel(theta), view)

    def constrain(theta: Array) -> dict[str, Array]:
        return dict(zip(names, constrained(*unravel(theta)), strict=True))

    full = as_data(terms.data)

    @jax.jit  # one compiled program, also under the driver's vmap over chains
    def init(key: Array) -> Array:
        def density(theta: Array) -> Array:
            return log_prior(theta) + log_lik(theta, full)

        def draw(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
            tries, _, k = carry
            k, sub = jax.random.split(k)
            return tries + 1, jnp.asarray(start) + jax.random.uniform(sub, start.shape, minval=-1.0,
                                                         maxval=1.0), k

        def again(carry: tuple[Array, Array, Array]) -> Array:
            tries, theta, _ = carry
            return (tries == 0) | ((tries < JITTER_TRIES) & ~jnp.isfinite(density(theta)))

        _, theta, _ = jax.lax.while_loop(again, draw, (jnp.zeros((), jnp.int32),
                                                       jnp.asarray(start), key))
        return jnp.where(jnp.isfinite(density(theta)), theta, jnp.asarray(start))

    return Functions(log_prior, log_lik, log_lik_terms if terms.terms else None, constrain, init,
                     unravel, names, start)


def check_start(model: Model, jaxified: Callable, pymc_model: Any, fns: Functions) -> None:
    """At PyMC's initial point: the log density is finite and log_prior + log_lik equals PyMC's
    own ``model.logp()`` there."""
    whole = jaxify(jaxified, pymc_model.value_vars, [pymc_model.logp()], "the log density")

    def probe(theta: Array) -> tuple[Array, Array]:
        ours = model.log_prior_fn(theta) + model.log_lik_fn(theta, model.data)
        return ours, whole(*fns.unravel(theta))[0]

    try:
        ours, theirs = map(float, jax.jit(probe)(jnp.asarray(fns.start)))
    except Exception as exc:  # noqa: BLE001 - the user's model failed on its own initial point
        raise UserInputError(f"from_pymc: the model fails: {first_line(exc)}") from None
    if not np.isfinite(theirs):
        raise UserInputError("from_pymc: the log density is not finite at PyMC's initial point")
    if not np.isclose(ours, theirs, rtol=1e-8, atol=1e-8):
        raise UserInputError(f"from_pymc: log prior + log likelihood = {ours:.8g} differs from "
                             f"PyMC's log density {theirs:.8g} (unsupported model construct?)")


def from_pymc(pymc_model: Any, *, per_datum: bool | None = None, name: str | None = None
              ) -> Model:
    """A PyMC model as a tempering ``Model``, in PyMC's own unconstrained space.

    The log density is PyMC's ``model.logp()``, split into prior (``model.varlogp``: free
    variables and the Jacobians of their transforms) and likelihood (``model.observedlogp`` and
    the potentials): module docstring.

    Parameters
    ----------
    pymc_model
        A ``pymc.Model`` with its observations.
    per_datum
        ``None`` (default): per-datum terms when the model allows them (module docstring: data in
        ``pm.Data`` containers the graph follows); ``True``: required (an error says why not);
        ``False``: none.
    name
        The model's name (default ``pymc:<model name>`` or ``pymc:model``).

    Returns
    -------
    Model
        θ is the raveled value variables (``model.value_vars``); the output variables are the
        free variables (constrained) and the deterministics, in model order.

    Raises
    ------
    UserInputError
        PyMC missing, not a ``pymc.Model``, discrete free variables, no observed variable, a
        graph the JAX backend cannot compile, a log density that is not finite at PyMC's initial
        point, or ``per_datum=True`` on a model without per-datum terms.
    """
    with warnings.catch_warnings():
        # PyTensor's C backend warns that it found no BLAS; the JAX backend needs none
        warnings.filterwarnings("ignore", message="PyTensor could not link to a BLAS")
        return build(pymc_model, per_datum, name)


def build(pymc_model: Any, per_datum: bool | None, name: str | None) -> Model:
    """:func:`from_pymc`'s work, in float64: PyTensor types its graphs by ``floatX``, float64 by
    default, and its JAX functions keep those types."""
    with scope("float64"):
        return _built(pymc_model, per_datum, name)


def _built(pymc_model: Any, per_datum: bool | None, name: str | None) -> Model:
    pymc, jaxified = import_pymc()
    if not isinstance(pymc_model, pymc.Model):
        raise UserInputError(f"from_pymc: expected a pymc.Model, got {type(pymc_model).__name__}")
    check_variables(pymc_model)
    terms = (per_datum_terms(jaxified, pymc_model) if per_datum is not False
             else Terms(None, None, "per_datum=False"))
    if per_datum and terms.terms is None:
        raise UserInputError(f"from_pymc: per_datum: {terms.reason}")
    fns = functions(jaxified, pymc_model, terms)
    out_shapes = jax.eval_shape(fns.constrain,
                                jax.ShapeDtypeStruct(fns.start.shape, float_dtype()))
    model = Model(
        name=name or f"pymc:{pymc_model.name or 'model'}", data=as_data(terms.data),
        log_prior_fn=fns.log_prior, log_lik_fn=fns.log_lik, log_lik_terms_fn=fns.log_lik_terms,
        alpha=1.0, params=tuple(ParamSpec(k, tuple(out_shapes[k].shape)) for k in fns.names),
        constrain_fn=fns.constrain, init_fn=fns.init, theta_dim=int(fns.start.size),
        attrs={"pymc_value_vars": [v.name for v in pymc_model.value_vars],
               "per_datum": terms.reason or sorted(terms.data or {})}, precision="float64")
    check_start(model, jaxified, pymc_model, fns)
    return model
