"""Precision per model: which floating-point width a model's run computes in, and the scope that
puts it in force.

Importing the package changes no global JAX setting. Every model carries a ``precision``,
``"float32"`` or ``"float64"``, and everything that builds or runs it — the model's own build (its
data become arrays of that width), the sampler's build and pilot, and every program of its run —
runs inside :func:`scope`, which is JAX's thread-local ``jax.enable_x64`` context: a user's own
JAX code before and after keeps whatever precision the user chose.

The rule (``docs/architecture.md``, "Precision"):

- ``float64`` for the models that factorise matrices whose conditioning float32 cannot carry: the
  Gaussian-process models (a float32 Cholesky of a 1000 × 1000 kernel matrix fails or is
  inaccurate), and any model whose spec or user says so;
- ``float32`` for everything else: their log densities are sums of smooth per-datum terms, where
  float32's relative error (6e-8 per operation, ~1e-7 · log₂ n for XLA's tree-summed reductions)
  moves a log density of order n by far less than one nat — the Metropolis–Hastings ratios and
  the gradients keep every figure a chain can resolve — and halves the memory traffic that tall
  data are bound by (NumPyro's default too).

A user chooses otherwise with the model option ``precision`` (``--set model.precision=float64``,
``get_model(name, precision="float64")``, ``from_logdensity(..., precision="float64")``); the
run file records the precision (attribute ``precision``) and a rerun or resume rebuilds the model
in it. The summaries, estimators and checks that read a run file compute in float64 on the host
(NumPy), whatever the run's precision.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, TypeVar

import jax

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.errors import UserInputError

Precision = Literal["float32", "float64"]
PRECISIONS: tuple[Precision, ...] = ("float32", "float64")
T = TypeVar("T")


def checked(precision: str, source: str = "model.precision") -> Precision:
    """``precision`` if it is one of :data:`PRECISIONS`; otherwise a one-line error."""
    if precision not in PRECISIONS:
        raise UserInputError(f"{source}: {precision!r} is not one of {', '.join(PRECISIONS)}")
    return precision  # type: ignore[return-value]


def in_force() -> Precision:
    """The precision JAX computes in here and now (the global setting, or an enclosing
    :func:`scope`)."""
    return "float64" if jax.config.read("jax_enable_x64") else "float32"


@contextmanager
def scope(precision: str) -> Iterator[None]:
    """Run the enclosed JAX code in ``precision`` (JAX's thread-local ``enable_x64``): arrays
    built, programs traced and compiled and their arguments converted in it take its width.

    Matrix products run at full precision too (``jax.default_matmul_precision("highest")``):
    float32 is IEEE float32, not the TensorFloat-32 products a GPU uses by default, whose 10-bit
    mantissas put a log density of order n off by far more than a nat on tall data (NUTS then
    derails; ``tempering bench tall`` saw it). CPUs compute the same either way."""
    with jax.enable_x64(checked(precision) == "float64"), \
            jax.default_matmul_precision("highest"):
        yield


def in_model_precision(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` run in the precision of the model among its arguments (the first argument that has
    a ``precision``, positional or the keyword ``model``): the run driver's and the sampler
    builders' entry points."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> T:
        model = kwargs.get("model") or next(
            (a for a in args if isinstance(getattr(a, "precision", None), str)), None)
        if model is None:
            return fn(*args, **kwargs)
        with scope(model.precision):
            return fn(*args, **kwargs)

    return wrapped


def in_float64(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` run in float64, whatever the caller's precision: the estimators that read a run's
    record on the host (log Z, delta-method errors) keep their figures however the run computed."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> T:
        with scope("float64"):
            return fn(*args, **kwargs)

    return wrapped
