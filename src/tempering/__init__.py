"""tempering: MCMC for expensive or multimodal posteriors, on JAX.

Importing the package switches JAX to float64 (``jax_enable_x64``): the GP marginal likelihood
needs it (a float32 Cholesky of a 1000×1000 kernel matrix is unreliable), and one precision
everywhere keeps draws identical across samplers and chain layouts.
"""

import warnings

import jax

jax.config.update("jax_enable_x64", True)
# ArviZ 0.23 announces its 1.x refactor on import; the package keeps to APIs that survive it.
warnings.filterwarnings("ignore", category=FutureWarning, module="arviz")

from tempering.models import get_model, list_models  # noqa: E402
from tempering.run.driver import run_chains, sample  # noqa: E402
from tempering.run.output import load_run, save_run  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "get_model",
    "list_models",
    "load_run",
    "run_chains",
    "sample",
    "save_run",
]
