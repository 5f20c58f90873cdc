"""tempering: MCMC for expensive or multimodal posteriors, on JAX.

Importing the package switches JAX to float64 (``jax_enable_x64``): the GP marginal likelihood
needs it (a float32 Cholesky of a 1000×1000 kernel matrix is unreliable), and one precision
everywhere keeps draws identical across samplers and chain layouts.

It also sets ``OPENBLAS_NUM_THREADS=1`` unless the variable is already set. JAX's CPU Cholesky
and triangular solves call SciPy's OpenBLAS; on a small machine whose cores are shared with other
work (XLA's own threads included), OpenBLAS's spinning worker threads made a 300 × 300 Cholesky
take 40–240 ms instead of 1–2 ms in our measurements. The setting takes effect only if SciPy's
linear algebra has not been loaded yet; set the variable yourself to choose otherwise.

And it makes ``vmap`` call jaxlib's CPU LAPACK kernels once per matrix
(:mod:`tempering.lapack_batching`): batched ones can deadlock XLA's thread pool in jaxlib 0.10.
"""

import os
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

from tempering.lapack_batching import install as _install_lapack_batching  # noqa: E402

_install_lapack_batching()  # chains batched with vmap must not deadlock jaxlib's LAPACK kernels
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
