"""Gaussian-process linear algebra, float64 throughout."""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.gp.covariance import se_ard
from tempering.gp.exact import gaussian_log_marginal

__all__ = ["gaussian_log_marginal", "se_ard"]
