"""A user's own model from log densities: :func:`from_logdensity` (also
``tempering.Model.from_logdensity``).

The user writes the two halves of the log posterior on a flat, unconstrained θ ∈ R^d,

    log p(θ | X) = log_prior(θ) + log_lik(θ, X) + const,

with ``log_prior`` holding the Jacobian of any transform to unconstrained space (the samplers
move θ and never see a constraint). With per-datum terms ℓ_i(θ) = log p(x_i | θ) of i.i.d. data,
log_lik(θ, X_S) = Σ_{i∈S} ℓ_i(θ) on any subset S, which is what the subset and mini-batch samplers
(``spt``, ``stt``, ``mint``, ...) need. Every function must be pure and written in ``jax.numpy``
(the samplers ``jit``, ``vmap`` and differentiate it).

Inputs are checked when the model is built, with :func:`jax.eval_shape` (no computation) for the
shapes and one evaluation at the initial point for ``log_lik`` against the sum of the terms; a
mismatch is a one-line :class:`~tempering.errors.UserInputError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.errors import UserInputError
from tempering.models.base import Array, Model, ParamSpec, PyTree
from tempering.numerics import float_dtype
from tempering.precision import checked, in_force, scope

#: What ``params`` may be: {name: shape} (an int is a vector's length) or ParamSpecs / pairs.
ParamsLike = Mapping[str, int | Sequence[int]] | Sequence[ParamSpec | tuple[str, Any]]


def as_data(data: PyTree, where: str = "data") -> PyTree:
    """``data`` with every leaf a ``jax.numpy`` array sharing one leading data axis; ``None``
    becomes a dummy length-1 array (a model whose likelihood ignores its data argument)."""
    if data is None:
        return jnp.zeros((1,))
    try:
        data = jax.tree.map(jnp.asarray, data)
    except (TypeError, ValueError) as exc:
        raise UserInputError(f"{where}: not a pytree of arrays ({first_line(exc)})") from None
    leaves = jax.tree.leaves(data)
    if not leaves:
        raise UserInputError(f"{where}: holds no arrays")
    if any(leaf.ndim == 0 for leaf in leaves):
        raise UserInputError(f"{where}: every array needs a leading data axis (got a scalar)")
    lengths = sorted({int(leaf.shape[0]) for leaf in leaves})
    if len(lengths) > 1:
        raise UserInputError(f"{where}: the arrays' leading (data) axes differ: {lengths}")
    if lengths[0] == 0:
        raise UserInputError(f"{where}: the data axis is empty")
    return data


def as_params(params: ParamsLike | None, dim: int | None) -> tuple[ParamSpec, ...]:
    """Named output variables from ``params`` ({name: shape} or ParamSpecs), or one vector
    ``theta`` of length ``dim``."""
    if params is None:
        if dim is None:
            raise UserInputError("from_logdensity: give dim (the length of θ) or params")
        return (ParamSpec("theta", (check_dim(dim),)),)
    items = list(params.items()) if isinstance(params, Mapping) else list(params)
    if not items:
        raise UserInputError("params: empty; name at least one parameter")
    specs = []
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise UserInputError(f"params: expected (name, shape) pairs, got {item!r}")
        name, shape = item
        shape = (shape,) if isinstance(shape, int | np.integer) else shape
        try:
            shape = tuple(int(s) for s in shape)
        except (TypeError, ValueError):
            raise UserInputError(f"params: {name!r}: shape {shape!r} is not a tuple of "
                                 "integers") from None
        if not isinstance(name, str) or not name.isidentifier():
            raise UserInputError(f"params: {name!r} is not a valid name")
        if any(s < 1 for s in shape):
            raise UserInputError(f"params: {name}: shape {shape} has a dimension below 1")
        specs.append(ParamSpec(name, shape))
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise UserInputError(f"params: duplicate names in {names}")
    return tuple(specs)


def check_dim(dim: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer) or dim < 1:
        raise UserInputError(f"dim: expected a positive integer, got {dim!r}")
    return int(dim)


def first_line(exc: BaseException) -> str:
    """``Type: message``, first line only (a user error is one line)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def split_params(params: tuple[ParamSpec, ...]) -> Callable[[Array], dict[str, Array]]:
    """θ ↦ {name: θ[offset : offset + size].reshape(shape)}, in the order of ``params``."""
    def constrain(theta: Array) -> dict[str, Array]:
        out, start = {}, 0
        for spec in params:
            out[spec.name] = theta[start:start + spec.size].reshape(spec.shape)
            start += spec.size
        return out

    return constrain


def abstract_call(what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``jax.eval_shape(fn, *args)``, an exception from the user's function turned into one line."""
    try:
        return jax.eval_shape(fn, *args)
    except UserInputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of user code is the user's input
        raise UserInputError(f"{what} failed: {first_line(exc)}") from None


def expect_shape(what: str, out: Any, shape: tuple[int, ...]) -> None:
    got = getattr(out, "shape", None)
    if got != shape:
        raise UserInputError(f"{what}: expected an array of shape {shape}, got "
                             f"{got if got is not None else type(out).__name__}")


def check_constrain(constrain: Callable, theta: Any, params: tuple[ParamSpec, ...]) -> None:
    out = abstract_call("constrain(θ)", constrain, theta)
    if not isinstance(out, Mapping):
        raise UserInputError(f"constrain(θ): expected a dict name -> value, got "
                             f"{type(out).__name__}")
    names = [spec.name for spec in params]
    if sorted(out) != sorted(names):
        raise UserInputError(f"constrain(θ): returns {sorted(out)}, params name {names}")
    for spec in params:
        expect_shape(f"constrain(θ)[{spec.name!r}]", out[spec.name], spec.shape)


def check_terms_sum(log_lik: Callable, terms: Callable, theta: Array, data: PyTree) -> None:
    """log_lik and Σ terms must agree where both are finite (one evaluation, at ``theta``)."""
    try:
        total, summed = float(log_lik(theta, data)), float(jnp.sum(terms(theta, data)))
    except Exception as exc:  # noqa: BLE001
        raise UserInputError(f"log_lik(θ, data) failed: {first_line(exc)}") from None
    if np.isfinite(total) and np.isfinite(summed) \
            and not np.isclose(total, summed, rtol=1e-8, atol=1e-8):
        raise UserInputError(f"log_lik(θ, data) = {total:.6g} but the sum of log_lik_terms is "
                             f"{summed:.6g} at the initial θ: they must agree")


def check_callables(log_prior: Any, log_lik: Any, log_lik_terms: Any, constrain: Any,
                    init: Any, alpha: Any) -> None:
    if not callable(log_prior):
        raise UserInputError("log_prior: expected a function θ -> log p(θ)")
    if log_lik is None and log_lik_terms is None:
        raise UserInputError("from_logdensity: give log_lik or log_lik_terms")
    for what, fn in (("log_lik", log_lik), ("log_lik_terms", log_lik_terms),
                     ("constrain", constrain), ("init", init)):
        if fn is not None and not callable(fn):
            raise UserInputError(f"{what}: expected a function, got {type(fn).__name__}")
    if isinstance(alpha, bool) or not (isinstance(alpha, int | float) and np.isfinite(alpha)
                                       and alpha > 0):
        raise UserInputError(f"alpha: expected a positive number, got {alpha!r}")


def theta_length(dim: int | None, size: int, constrained: bool) -> int:
    """The length d of θ: ``dim``, default the params' total ``size``, which it must equal
    unless a ``constrain`` map is given."""
    theta_dim = size if dim is None else check_dim(dim)
    if not constrained and theta_dim != size:
        raise UserInputError(f"dim = {theta_dim} but the params' sizes add up to {size}; give "
                             "constrain to map θ to params of other shapes")
    return theta_dim


def checked_init(init: Callable | None, theta_dim: int) -> Callable:
    """``init``, default independent N(0, 1) draws per coordinate, checked (traced) to return a
    θ of length d."""
    init = init or (lambda key: jax.random.normal(key, (theta_dim,)))
    expect_shape("init(key)", abstract_call("init(key)", init, jax.random.key(0)), (theta_dim,))
    return init


def checked_log_lik(log_prior: Callable, log_lik: Callable | None,
                    log_lik_terms: Callable | None, theta: jax.ShapeDtypeStruct,
                    data: PyTree) -> Callable:
    """Check that log_prior(θ) and log_lik(θ, data) are scalars and log_lik_terms(θ, data) has
    one term per datum (traced, not run), and return log_lik: Σ_i of the terms when only they
    are given."""
    n = int(jax.tree.leaves(data)[0].shape[0])
    expect_shape("log_prior(θ)", abstract_call("log_prior(θ)", log_prior, theta), ())
    if log_lik_terms is not None:
        terms_fn = log_lik_terms
        expect_shape("log_lik_terms(θ, data)",
                     abstract_call("log_lik_terms(θ, data)", terms_fn, theta, data), (n,))
        if log_lik is None:
            log_lik = lambda t, d: jnp.sum(terms_fn(t, d))
    assert log_lik is not None
    expect_shape("log_lik(θ, data)", abstract_call("log_lik(θ, data)", log_lik, theta, data), ())
    return log_lik


def from_logdensity(
    log_prior: Callable[[Array], Array],
    log_lik: Callable[[Array, PyTree], Array] | None = None,
    data: PyTree = None,
    *,
    params: ParamsLike | None = None,
    dim: int | None = None,
    log_lik_terms: Callable[[Array, PyTree], Array] | None = None,
    constrain: Callable[[Array], dict[str, Array]] | None = None,
    init: Callable[[Array], Array] | None = None,
    name: str = "user",
    alpha: float = 1.0,
    attrs: dict[str, Any] | None = None,
    precision: str | None = None,
) -> Model:
    """A :class:`~tempering.models.base.Model` from log densities on a flat unconstrained θ.

    The posterior is log p(θ | X) = log_prior(θ) + log_lik(θ, X) + const.

    Parameters
    ----------
    log_prior
        θ ↦ log p(θ), a scalar, the Jacobian of any unconstraining transform included.
    log_lik
        (θ, data view) ↦ log p(data view | θ), a scalar, on ``data`` or any subset of it (the
        leaves indexed along their leading axis). May be omitted when ``log_lik_terms`` is given:
        it is then Σ_i log_lik_terms(θ, view)_i.
    data
        A pytree of arrays with a common leading data axis of length n (default: a dummy
        length-1 array, for a likelihood that closes over its data; subset samplers then have
        nothing to subset).
    params
        The named output variables, {name: shape} (an int is a vector's length) or a sequence
        of :class:`~tempering.models.base.ParamSpec`; default one vector ``theta`` of length
        ``dim``. Without ``constrain`` their sizes must add up to the length of θ.
    dim
        The length d of θ; default the sum of the ``params`` sizes.
    log_lik_terms
        (θ, data view) ↦ (m,) per-datum terms ℓ_i(θ) of i.i.d. data on a view of m points; with
        them the mini-batch samplers (``mint``, ``sgld``, ...) accept the model, and the subset
        samplers (``spt``, ``stt``) evaluate log_lik on subsets of ``data`` either way.
    constrain
        θ ↦ {name: constrained value} for the run file's posterior; default: θ split into
        ``params`` in order (the identity map).
    init
        PRNG key ↦ an initial θ of shape (d,); default independent N(0, 1) draws per coordinate
        (one draw per chain).
    name
        The model's name in run files (``get_model`` sets ``file.py:NAME`` for a file's model).
    alpha
        Cost exponent: an evaluation on m of n points costs (m/n)^α full ones (1 for i.i.d.).
    attrs
        Extra facts recorded in run files.
    precision
        ``"float32"`` or ``"float64"``: what its runs compute in (:mod:`tempering.precision`);
        default the one in force where it is called (float64 if you enabled ``jax_enable_x64``,
        as the arrays you built then are).

    Returns
    -------
    Model

    Raises
    ------
    UserInputError
        A missing function, a malformed ``params`` or ``data``, or a function whose output has
        the wrong shape on θ of length d.
    """
    check_callables(log_prior, log_lik, log_lik_terms, constrain, init, alpha)
    precision = checked(precision or in_force())
    specs = as_params(params, dim if params is None else None)
    size = sum(spec.size for spec in specs)
    theta_dim = theta_length(dim, size, constrain is not None)
    with scope(precision):
        data = as_data(data)
        theta = jax.ShapeDtypeStruct((theta_dim,), float_dtype())
        log_lik = checked_log_lik(log_prior, log_lik, log_lik_terms, theta, data)
        constrain = constrain or split_params(specs)
        check_constrain(constrain, theta, specs)
        init = checked_init(init, theta_dim)
        if log_lik_terms is not None:
            check_terms_sum(log_lik, log_lik_terms, jnp.asarray(init(jax.random.key(0)), float),
                            data)
    return Model(name=name, data=data, log_prior_fn=log_prior, log_lik_fn=log_lik,
                 log_lik_terms_fn=log_lik_terms, alpha=float(alpha), params=specs,
                 constrain_fn=constrain, init_fn=init, attrs=dict(attrs or {}),
                 theta_dim=None if theta_dim == size else theta_dim, precision=precision)
