"""tempering: MCMC for expensive or multimodal posteriors, on JAX.

Importing the package switches JAX to float64 (``jax_enable_x64``): the GP marginal likelihood
needs it (a float32 Cholesky of a 1000×1000 kernel matrix is unreliable), and one precision
everywhere keeps draws identical across samplers and chain layouts.

It also sets ``OPENBLAS_NUM_THREADS=1`` unless the variable is already set. JAX's CPU Cholesky
and triangular solves call SciPy's OpenBLAS; on a small machine whose cores are shared with other
work (XLA's own threads included), OpenBLAS's spinning worker threads made a 300 × 300 Cholesky
take 40–240 ms instead of 1–2 ms in our measurements. The setting takes effect only if SciPy's
linear algebra has not been loaded yet; set the variable yourself to choose otherwise.

And, on jaxlib < 0.11.2, it makes ``vmap`` call jaxlib's CPU LAPACK kernels once per matrix
(:mod:`tempering.lapack_batching`): batched ones can deadlock XLA's thread pool there. Set
``TEMPERING_LAPACK_PER_MATRIX=0`` before the import to keep JAX's own rules, or call
:func:`tempering.lapack_batching.uninstall` afterwards.

The public API is this namespace and the ``__all__`` of the packages ``algorithms``, ``gp``,
``kernels``, ``ladders``, ``models``, ``estimators`` and ``summary``; ``docs/architecture.md``
describes the layers and contracts.
"""

import os
import sys
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

from tempering import lapack_batching  # noqa: E402

if lapack_batching.enabled_by_environment():
    lapack_batching.install()  # chains batched with vmap must not deadlock jaxlib's LAPACK kernels
# ArviZ 0.23 announces its 1.x refactor on import; the package keeps to APIs that survive it.
warnings.filterwarnings("ignore", category=FutureWarning, module="arviz")
# ArviZ 0.23 takes Numba paths whenever Numba is importable (PyMC's PyTensor brings it): Numba is
# then imported with ArviZ (~0.8 s a process), its functions compile on first use, and
# az.mcse(method="mean") returns a shape-(1,) array, which float() refuses on NumPy >= 2.4. The
# package keeps ArviZ's NumPy paths, the ones its summaries were validated with: ArviZ is
# imported with Numba hidden (when nothing imported either yet) and its Numba flag is off.
_hide_numba = "arviz" not in sys.modules and "numba" not in sys.modules
if _hide_numba:
    sys.modules["numba"] = None  # type: ignore[assignment]  # find_spec → None, import fails
try:
    import arviz  # noqa: E402
finally:
    if _hide_numba:
        del sys.modules["numba"]
arviz.Numba.disable_numba()

from tempering.algorithms import SAMPLERS, get_sampler  # noqa: E402
from tempering.errors import UserInputError  # noqa: E402
from tempering.models import (  # noqa: E402
    MODELS,
    Model,
    ParamSpec,
    from_logdensity,
    from_numpyro,
    from_pymc,
    get_model,
)
from tempering.run.distributed import dask_client  # noqa: E402
from tempering.run.driver import RunResult, run_chains, sample  # noqa: E402
from tempering.run.files import rerun, run_and_save, run_spec  # noqa: E402
from tempering.run.loading import load_run  # noqa: E402
from tempering.run.output import save_run  # noqa: E402
from tempering.run.spec import RunSpec  # noqa: E402
from tempering.summary import summarize  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "MODELS",
    "SAMPLERS",
    "Model",
    "ParamSpec",
    "RunResult",
    "RunSpec",
    "UserInputError",
    "__version__",
    "dask_client",
    "from_logdensity",
    "from_numpyro",
    "from_pymc",
    "get_model",
    "get_sampler",
    "load_run",
    "rerun",
    "run_and_save",
    "run_chains",
    "run_spec",
    "sample",
    "save_run",
    "summarize",
]
