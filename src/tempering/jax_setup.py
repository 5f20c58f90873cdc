"""JAX's settings for the package, made once, before any of its JAX code runs.

Importing this module (layer 0) changes no global precision — each model's runs compute in its
own (:mod:`tempering.precision`, JAX's thread-local ``enable_x64`` scope) — and does one thing,
idempotent:

- on jaxlib < 0.11.2 it makes ``vmap`` call jaxlib's CPU LAPACK kernels once per matrix
  (:mod:`tempering.lapack_batching`): batched ones can deadlock XLA's thread pool there. Set
  ``TEMPERING_LAPACK_PER_MATRIX=0`` before the package's JAX code is imported to keep JAX's own
  rules, or call :func:`tempering.lapack_batching.uninstall` afterwards.

``import tempering`` itself imports no JAX (it is a lazy facade). Every subpackage that uses JAX
imports this module at the top of its ``__init__``, and every top-level module that uses JAX at
its own top, so the settings are in force before any of the package's JAX code runs, whichever
part is imported first (``tests/package/test_startup.py`` checks it).
"""

from __future__ import annotations

from tempering.lapack_batching import enabled_by_environment, install


def setup() -> None:
    """Unless ``TEMPERING_LAPACK_PER_MATRIX=0``, install the per-matrix LAPACK rules
    (idempotent). Runs once, when this module is first imported."""
    if enabled_by_environment():
        install()  # chains batched with vmap must not deadlock jaxlib's LAPACK


setup()
