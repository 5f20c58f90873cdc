"""JAX's settings for the package, made once, before any of its JAX code runs.

Importing this module (layer 0) does two things, both idempotent:

- it switches JAX to float64 (``jax_enable_x64``): the GP marginal likelihood needs it (a float32
  Cholesky of a 1000×1000 kernel matrix is unreliable), and one precision everywhere keeps draws
  identical across samplers and chain layouts;
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

import jax

from tempering.lapack_batching import enabled_by_environment, install


def setup() -> None:
    """Switch JAX to float64 and, unless ``TEMPERING_LAPACK_PER_MATRIX=0``, install the
    per-matrix LAPACK rules (idempotent). Runs once, when this module is first imported."""
    jax.config.update("jax_enable_x64", True)
    if enabled_by_environment():
        install()  # chains batched with vmap must not deadlock jaxlib's LAPACK


setup()
