"""A NumPyro model as a :class:`~tempering.models.base.Model`: :func:`from_numpyro`.

NumPyro's own machinery defines everything: the unconstrained space is that of NumPyro's MCMC
(``biject_to`` of each latent site's support), flattened by ``jax.flatten_util.ravel_pytree`` in
the order of the site names; with z = unravel(θ) and x = constrain_fn(z) the constrained values,

    log_prior(θ) = Σ_latent log p(x_s | parents) + Σ_latent log |det ∂x_s/∂z_s|
                 = −potential_energy(z) of the model with its observed sites masked out,
    log_lik(θ, X) = Σ_observed log p(y_o | x)   (``numpyro.infer.util.log_likelihood``),

so log_prior + log_lik = −potential_energy(z), NumPyro's own log density (checked when the model
is built). Observed sites — ``numpyro.factor`` sites included — are the likelihood, the part that
tempering powers or subsamples. The posterior's named output is ``constrain_fn(z)`` with the
model's ``deterministic`` sites.

Per-datum terms. When the user names the keyword arguments that hold per-datum arrays
(``data_kwargs=("x", "y")``, each with the data on its leading axis), those arrays are the model's
``data`` and a data view is a model call with them sliced. Every observed site must then sit in a
plate whose size follows the data (``numpyro.plate("data", x.shape[0])``, not a separate ``N``
argument and no ``subsample_size``), and every latent site must be global (outside that plate);
ℓ_i(θ) sums the observed sites' log probabilities over every axis but the plate's. Both rules are
checked by tracing the model on the full data and on a small view. Without ``data_kwargs`` the
model has no terms and a dummy length-1 ``data``: the full-data samplers (``nuts``, ``pt``, ``tt``,
``st``, ...) run it; the subset and mini-batch ones have nothing to subset.

Initial points come from NumPyro's ``initialize_model`` with ``init_to_uniform`` (uniform on
(−2, 2) in unconstrained space, retried until the density is finite), one per chain's key;
any NumPyro init strategy may be passed instead (``init_to_median``, ``init_to_sample``, ...).

NumPyro is an optional dependency (``pip install 'tempering[numpyro]'``), imported on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree

from tempering.errors import UserInputError
from tempering.models.base import Array, Model, ParamSpec, PyTree
from tempering.models.user import as_data, first_line
from tempering.numerics import float_dtype
from tempering.precision import in_force, scope


def import_numpyro() -> Any:
    """The ``numpyro`` module, or one line saying how to install it."""
    try:
        numpyro = importlib.import_module("numpyro")
        importlib.import_module("numpyro.infer.util")
    except ImportError:
        raise UserInputError("NumPyro models need NumPyro: pip install 'tempering[numpyro]'"
                             ) from None
    return numpyro


class Sites(NamedTuple):
    """A NumPyro trace's sites by role, in trace order, each one's shape, and each observed
    site's plates {name: (size, batch dim)}."""

    latent: tuple[str, ...]
    observed: tuple[str, ...]
    deterministic: tuple[str, ...]
    shapes: dict[str, tuple[int, ...]]
    frames: dict[str, dict[str, tuple[int, int]]]


def model_sites(numpyro: Any, model_fn: Callable, args: tuple, kwargs: dict) -> Sites:
    """The model's sites, from one seeded trace run abstractly (``jax.eval_shape``: shapes only,
    nothing computed or compiled); the model's own error as one line."""
    handlers, found = numpyro.handlers, []

    def run() -> Array:
        trace = handlers.trace(handlers.seed(model_fn, 0)).get_trace(*args, **kwargs)
        found.append(sites_of(trace))
        return jnp.zeros(())

    try:
        jax.eval_shape(run)
    except UserInputError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's model failed on the user's inputs
        raise UserInputError(f"from_numpyro: the model fails: {first_line(exc)}") from None
    return found[0]


def sites_of(trace: Any) -> Sites:
    """Classify a trace's sites and refuse what tempering cannot sample."""
    latent, observed, deterministic, shapes, frames = [], [], [], {}, {}
    for name, site in trace.items():
        if site["type"] == "param":
            raise UserInputError(f"from_numpyro: param site {name!r}: give it a prior "
                                 "(numpyro.sample), tempering samples every unknown")
        if site["type"] not in ("sample", "deterministic"):
            continue
        shapes[name] = tuple(jnp.shape(site["value"]))
        if site["type"] == "deterministic":
            deterministic.append(name)
        elif site["scale"] is not None:
            raise UserInputError(f"from_numpyro: site {name!r} is scaled (a plate with "
                                 "subsample_size?); tempering takes subsets itself")
        elif site["is_observed"]:
            observed.append(name)
            frames[name] = {f.name: (int(f.size), int(f.dim)) for f in site["cond_indep_stack"]}
        elif site["fn"].is_discrete:
            raise UserInputError(f"from_numpyro: latent site {name!r} is discrete; tempering "
                                 "samples continuous parameters only")
        else:
            latent.append(name)
    if not latent:
        raise UserInputError("from_numpyro: the model has no latent sample sites")
    if not observed:
        raise UserInputError("from_numpyro: the model has no observed sites (pass the "
                             "observations, e.g. y=...)")
    return Sites(tuple(latent), tuple(observed), tuple(deterministic), shapes, frames)


def data_plate_dims(numpyro: Any, model_fn: Callable, args: tuple, kwargs: dict, data: dict,
                    full: Sites) -> dict[str, int]:
    """For each observed site, the batch dim of its plate over the data: the plate whose size is
    n on the full data and m on an m-point view. Latent sites must not change with the view."""
    n = int(jax.tree.leaves(data)[0].shape[0])
    if n < 2:
        raise UserInputError("data_kwargs: need at least 2 data points to take subsets")
    m = 2 if n > 2 else 1
    try:
        small = model_sites(numpyro, model_fn, args,
                            {**kwargs, **{k: v[:m] for k, v in data.items()}})
    except UserInputError as exc:
        raise UserInputError(f"data_kwargs: the model fails on {m} of the {n} data points, so "
                             "its size does not follow the data_kwargs arrays (size plates by "
                             f"them, e.g. numpyro.plate(name, x.shape[0])): {exc}") from None
    grown = [s for s in full.latent if small.shapes.get(s) != full.shapes[s]]
    if grown:
        raise UserInputError(f"data_kwargs: latent site {grown[0]!r} changes with the data "
                             "(a local variable): per-datum terms need global latent sites; "
                             "leave out data_kwargs")
    dims = {}
    for site in full.observed:
        found = [dim for plate, (size, dim) in full.frames[site].items()
                 if size == n and small.frames.get(site, {}).get(plate, (0, 0))[0] == m]
        if len(found) != 1:
            raise UserInputError(f"data_kwargs: observed site {site!r} is not in a plate whose "
                                 "size follows the data (use numpyro.plate(name, "
                                 "x.shape[0]) with x a data_kwargs array)")
        dims[site] = found[0]
    return dims


def per_datum(log_prob: Array, dim: int, m: int) -> Array:
    """(m,) terms: a site's log probabilities summed over every axis but the plate's."""
    log_prob = jnp.asarray(log_prob)
    axis = log_prob.ndim + dim
    if axis < 0 or log_prob.shape[axis] != m:
        raise UserInputError(f"data_kwargs: an observed site's log probability has shape "
                             f"{log_prob.shape}, not {m} along the data plate")
    return jnp.moveaxis(log_prob, axis, 0).reshape(m, -1).sum(axis=1)


def masked_prior(numpyro: Any, model_fn: Callable, observed: Sequence[str]) -> Callable:
    """The model with its observed sites' log probabilities masked to zero: its potential energy
    is −(log prior + log Jacobian)."""

    class MaskObserved(numpyro.primitives.Messenger):
        def process_message(self, msg: dict) -> None:
            if msg["type"] == "sample" and msg["name"] in observed:
                msg["fn"] = msg["fn"].mask(False)

    return MaskObserved(model_fn)


def check_start(model: Model, numpyro: Any, model_fn: Callable, args: tuple, kwargs: dict,
                unravel: Callable) -> None:
    """One compiled evaluation at the first chain's initial point: NumPyro's log density there
    must be finite, and log_prior + log_lik must equal it (−potential_energy)."""
    util = numpyro.infer.util

    def probe(key: Array) -> tuple[Array, Array]:
        theta = model.init_fn(key)
        ours = model.log_prior_fn(theta) + model.log_lik_fn(theta, model.data)
        return ours, -util.potential_energy(model_fn, args, kwargs, unravel(theta))

    try:
        ours, theirs = map(float, jax.jit(probe)(jax.random.key(0)))
    except UserInputError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's model failed on the user's inputs
        raise UserInputError(f"from_numpyro: the model fails: {first_line(exc)}") from None
    if not np.isfinite(theirs):
        raise UserInputError("from_numpyro: no initial point with a finite log density found")
    if not np.isclose(ours, theirs, rtol=1e-8, atol=1e-8):
        raise UserInputError(f"from_numpyro: log prior + log likelihood = {ours:.8g} differs "
                             f"from NumPyro's log density {theirs:.8g} (unsupported model "
                             "construct?)")


def check_terms(model: Model) -> None:
    """The terms have shape (m,) on the full data and on a one-point view (by shape only)."""
    theta = jax.ShapeDtypeStruct((model.dim,), float_dtype())
    for view in (model.data, jax.tree.map(lambda a: a[:1], model.data)):
        m = int(jax.tree.leaves(view)[0].shape[0])
        out = jax.eval_shape(model.log_lik_terms, theta, view)
        if out.shape != (m,):
            raise UserInputError(f"data_kwargs: per-datum terms have shape {out.shape} on {m} "
                                 "points")


class Functions(NamedTuple):
    log_prior: Callable[[Array], Array]
    log_lik: Callable[[Array, PyTree], Array]
    log_lik_terms: Callable[[Array, PyTree], Array]
    constrain: Callable[[Array], dict[str, Array]]
    init: Callable[[Array], Array]
    unravel: Callable[[Array], dict[str, Array]]
    size: int  # the length of θ


def functions(numpyro: Any, model_fn: Callable, args: tuple, kwargs: dict, sites: Sites,
              data_names: tuple[str, ...], dims: dict[str, int], strategy: Callable
              ) -> Functions:
    """The Model's functions through NumPyro's ``potential_energy``, ``constrain_fn``,
    ``log_likelihood`` and ``initialize_model`` (θ = ravel_pytree of the unconstrained sites)."""
    util = numpyro.infer.util
    prior_model = masked_prior(numpyro, model_fn, sites.observed)
    output = (*sites.latent, *sites.deterministic)

    def start(key: Array) -> dict[str, Array]:
        return util.initialize_model(key, model_fn, init_strategy=strategy, model_args=args,
                                     model_kwargs=kwargs).param_info.z

    try:
        z_shapes = jax.eval_shape(start, jax.random.key(0))
    except Exception as exc:  # noqa: BLE001
        raise UserInputError(f"from_numpyro: no initial point: {first_line(exc)}") from None
    flat, unravel = ravel_pytree(jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), z_shapes))

    def log_prior(theta: Array) -> Array:
        return -util.potential_energy(prior_model, args, kwargs, unravel(theta))

    def site_log_probs(theta: Array, view: PyTree) -> tuple[dict[str, Array], int]:
        call = {**kwargs, **view} if data_names else kwargs
        values = util.constrain_fn(model_fn, args, call, unravel(theta))
        m = int(jax.tree.leaves(view)[0].shape[0])
        return util.log_likelihood(model_fn, values, *args, batch_ndims=0, **call), m

    def log_lik(theta: Array, view: PyTree) -> Array:
        log_probs, _ = site_log_probs(theta, view)
        return sum((jnp.sum(log_probs[s]) for s in sites.observed), jnp.zeros(()))

    def log_lik_terms(theta: Array, view: PyTree) -> Array:
        log_probs, m = site_log_probs(theta, view)
        return sum((per_datum(log_probs[s], dims[s], m) for s in sites.observed), jnp.zeros(m))

    def constrain(theta: Array) -> dict[str, Array]:
        out = util.constrain_fn(model_fn, args, kwargs, unravel(theta), return_deterministic=True)
        return {name: out[name] for name in output}

    @jax.jit  # one compiled program, also under the driver's vmap over chains
    def init(key: Array) -> Array:
        return ravel_pytree(start(key))[0]

    return Functions(log_prior, log_lik, log_lik_terms, constrain, init, unravel, flat.size)


def from_numpyro(model_fn: Callable[..., Any], *args: Any,
                 data_kwargs: Sequence[str] | None = None, name: str | None = None,
                 init_strategy: Callable | None = None, **kwargs: Any) -> Model:
    """A NumPyro model, called as ``model_fn(*args, **kwargs)``, as a tempering ``Model``.

    The log density is NumPyro's own, split into prior (latent sites and the Jacobian of the
    unconstraining transforms) and likelihood (observed sites): module docstring.

    Parameters
    ----------
    model_fn
        The NumPyro model (a function of NumPyro primitives), with its observations passed in.
    *args, **kwargs
        Its arguments, fixed for every evaluation (a data view replaces the ``data_kwargs``).
    data_kwargs
        Names of keyword arguments holding per-datum arrays (common leading data axis): they
        become ``Model.data`` and the model gets per-datum terms (module docstring: observed
        sites in a plate sized by the data, latent sites global).
    name
        The model's name (default ``numpyro:<function name>``).
    init_strategy
        A NumPyro init strategy for the chains' initial points (default ``init_to_uniform``).

    Returns
    -------
    Model
        θ is the raveled unconstrained latent sites; the output variables are the latent sites
        (constrained) and the deterministic sites, in trace order.

    Raises
    ------
    UserInputError
        NumPyro missing, a model that fails on its inputs, discrete or ``param`` sites, no
        observed site, subsample plates, or ``data_kwargs`` that break the rules above.

    The model computes in the precision in force where it is called (NumPyro's way: float64 if
    ``jax_enable_x64`` is on, float32 otherwise; :mod:`tempering.precision`).
    """
    precision = in_force()
    with scope(precision):
        return _built(model_fn, args, kwargs, data_kwargs, name, init_strategy, precision)


def _built(model_fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any],
           data_kwargs: Sequence[str] | None, name: str | None, init_strategy: Callable | None,
           precision: str) -> Model:
    numpyro = import_numpyro()
    if not callable(model_fn):
        raise UserInputError(f"from_numpyro: expected a NumPyro model function, got "
                             f"{type(model_fn).__name__}")
    names = tuple(data_kwargs or ())
    missing = [k for k in names if k not in kwargs]
    if missing:
        raise UserInputError(f"data_kwargs: {missing[0]!r} is not a keyword argument of the call")
    data = as_data({k: kwargs[k] for k in names}, "data_kwargs") if names else as_data(None)
    kwargs = {**kwargs, **(data if names else {})}
    sites = model_sites(numpyro, model_fn, args, kwargs)
    dims = data_plate_dims(numpyro, model_fn, args, kwargs, data, sites) if names else {}
    fns = functions(numpyro, model_fn, args, kwargs, sites, names, dims,
                    init_strategy or numpyro.infer.init_to_uniform)
    model = Model(
        name=name or f"numpyro:{getattr(model_fn, '__name__', 'model')}", data=data,
        log_prior_fn=fns.log_prior, log_lik_fn=fns.log_lik,
        log_lik_terms_fn=fns.log_lik_terms if names else None, alpha=1.0,
        params=tuple(ParamSpec(s, sites.shapes[s]) for s in (*sites.latent, *sites.deterministic)),
        constrain_fn=fns.constrain, init_fn=fns.init,
        theta_dim=fns.size,
        attrs={"numpyro_model": getattr(model_fn, "__qualname__", repr(model_fn)),
               "data_kwargs": list(names)}, precision=precision)
    if names:
        check_terms(model)
    check_start(model, numpyro, model_fn, args, kwargs, fns.unravel)
    return model
