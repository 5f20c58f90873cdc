"""Gaussian-process linear algebra, float64 throughout."""

from tempering.gp.covariance import se_ard
from tempering.gp.exact import gaussian_log_marginal

__all__ = ["gaussian_log_marginal", "se_ard"]
