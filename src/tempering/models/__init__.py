"""Models: the ``Model`` contract, the built-in models and their registry."""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.models.barrier import barrier_posterior, communication_barrier
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.changepoint_exact import changepoint_exact_posterior
from tempering.models.eggbox import (
    box_point,
    eggbox_log_evidence,
    eggbox_mode_masses,
    eggbox_mode_of,
)
from tempering.models.gauss_mixture import exact_log_evidence as gauss_mixture_log_evidence
from tempering.models.gauss_mixture import exact_mode_masses as gauss_mixture_masses
from tempering.models.gauss_mixture import mode_of as gauss_mixture_mode_of
from tempering.models.gp_regression import LENGTHSCALE_LOGNORMAL as GP_LENGTHSCALE_LOGNORMAL
from tempering.models.gp_regression import SIGMA_F_GAMMA as GP_SIGMA_F_GAMMA
from tempering.models.gp_regression import SIGMA_N_GAMMA as GP_SIGMA_N_GAMMA
from tempering.models.gp_regression import gp_regression_model, gp_regression_prior_mean
from tempering.models.grid import tempered_log_density_points
from tempering.models.mixture import mode_index
from tempering.models.mixture_exact import mixture_log_evidence, ordering_index, ordering_masses
from tempering.models.modes2d import nearest_mode
from tempering.models.numpyro_model import from_numpyro
from tempering.models.pymc_model import from_pymc
from tempering.models.registry import MODELS, get_model
from tempering.models.scaled_normal import (
    scaled_normal_barrier,
    scaled_normal_local_barrier,
    scaled_normal_log_evidence,
)
from tempering.models.spike_slab import (
    spike_slab_log_evidence,
    spike_slab_mode_masses,
    spike_slab_mode_of,
    tempered_spike_mass,
)
from tempering.models.tied_means import (
    disc_log_mass,
    mode_mass_ratio,
    tied_means_grid_log_density,
    tied_means_mirror,
)
from tempering.models.user import from_logdensity

__all__ = ["GP_LENGTHSCALE_LOGNORMAL", "GP_SIGMA_F_GAMMA", "GP_SIGMA_N_GAMMA",
           "MODELS", "Model", "ModelSpec", "ParamSpec", "barrier_posterior", "box_point",
           "changepoint_exact_posterior", "communication_barrier",
           "disc_log_mass", "eggbox_log_evidence", "eggbox_mode_masses", "eggbox_mode_of",
           "from_logdensity", "from_numpyro", "from_pymc", "gauss_mixture_log_evidence",
           "gauss_mixture_masses", "gauss_mixture_mode_of", "get_model",
           "gp_regression_model", "gp_regression_prior_mean", "mixture_log_evidence", "mode_index",
           "mode_mass_ratio", "nearest_mode", "ordering_index", "ordering_masses",
           "scaled_normal_barrier", "scaled_normal_local_barrier", "scaled_normal_log_evidence",
           "spike_slab_log_evidence", "spike_slab_mode_masses", "spike_slab_mode_of",
           "tempered_spike_mass",
           "tempered_log_density_points", "tied_means_grid_log_density",
           "tied_means_mirror"]
