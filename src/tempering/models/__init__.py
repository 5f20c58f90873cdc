"""Models: the ``Model`` contract, the built-in models and their registry."""

from tempering.models.barrier import barrier_posterior, communication_barrier
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.changepoint_exact import changepoint_exact_posterior
from tempering.models.gp_regression import gp_regression_prior_mean
from tempering.models.grid import tempered_log_density_points
from tempering.models.mixture import mode_index
from tempering.models.modes2d import nearest_mode
from tempering.models.numpyro_model import from_numpyro
from tempering.models.registry import MODELS, get_model
from tempering.models.tied_means import (
    disc_log_mass,
    mode_mass_ratio,
    tied_means_grid_log_density,
    tied_means_mirror,
)
from tempering.models.user import from_logdensity

__all__ = ["MODELS", "Model", "ModelSpec", "ParamSpec", "barrier_posterior",
           "changepoint_exact_posterior", "communication_barrier",
           "disc_log_mass", "from_logdensity", "from_numpyro", "get_model",
           "gp_regression_prior_mean", "mode_index",
           "mode_mass_ratio", "nearest_mode",
           "tempered_log_density_points", "tied_means_grid_log_density",
           "tied_means_mirror"]
