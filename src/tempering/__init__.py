"""tempering: MCMC for expensive or multimodal posteriors, on JAX.

This namespace is a lazy facade: ``import tempering`` imports neither JAX nor ArviZ nor any
sampler, and each public name is imported on first use (``tempering.sample``,
``from tempering import Model``), so the command line starts quickly and a program loads only what
it uses.

Importing the package sets ``OPENBLAS_NUM_THREADS=1`` unless the variable is already set. JAX's CPU
Cholesky and triangular solves call SciPy's OpenBLAS; on a small machine whose cores are shared
with other work (XLA's own threads included), OpenBLAS's spinning worker threads made a 300 × 300
Cholesky take 40–240 ms instead of 1–2 ms in our measurements. The setting takes effect only if
SciPy's linear algebra has not been loaded yet; set the variable yourself to choose otherwise.

The package changes no global JAX setting of precision: each model's runs compute in the model's
own precision (float32, or float64 for the GP models and where you ask: :mod:`tempering.precision`),
inside JAX's thread-local ``enable_x64`` scope, so your own JAX code keeps yours. The first part
of the package that uses JAX to be imported makes ``vmap`` call jaxlib's CPU LAPACK kernels once
per matrix on jaxlib < 0.11.2 (:mod:`tempering.jax_setup`; ``TEMPERING_LAPACK_PER_MATRIX=0``
keeps JAX's own rules). ArviZ is imported on first use too (:mod:`tempering.lazy_arviz`).

The public API is this namespace and the ``__all__`` of the packages ``algorithms``, ``gp``,
``kernels``, ``ladders``, ``models``, ``estimators`` and ``summary``; ``docs/architecture.md``
describes the layers and contracts.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import TYPE_CHECKING, Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"

#: Each public name → the module it is imported from on first use.
_PUBLIC = {
    "MODELS": "tempering.models",
    "Model": "tempering.models",
    "ParamSpec": "tempering.models",
    "from_logdensity": "tempering.models",
    "from_numpyro": "tempering.models",
    "from_pymc": "tempering.models",
    "get_model": "tempering.models",
    "SAMPLERS": "tempering.algorithms",
    "get_sampler": "tempering.algorithms",
    "UserInputError": "tempering.errors",
    "dask_client": "tempering.run.distributed",
    "RunResult": "tempering.run.driver",
    "run_chains": "tempering.run.driver",
    "run_layout": "tempering.run.driver",
    "sample": "tempering.run.driver",
    "rerun": "tempering.run.files",
    "run_and_save": "tempering.run.files",
    "run_spec": "tempering.run.files",
    "load_run": "tempering.run.loading",
    "save_run": "tempering.run.output",
    "RunSpec": "tempering.run.spec",
    "summarize": "tempering.summary.summarize",
}

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
    "run_layout",
    "run_spec",
    "sample",
    "save_run",
    "summarize",
]

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names come lazily
    from tempering.algorithms import SAMPLERS, get_sampler
    from tempering.errors import UserInputError
    from tempering.models import (
        MODELS,
        Model,
        ParamSpec,
        from_logdensity,
        from_numpyro,
        from_pymc,
        get_model,
    )
    from tempering.run.distributed import dask_client
    from tempering.run.driver import RunResult, run_chains, run_layout, sample
    from tempering.run.files import rerun, run_and_save, run_spec
    from tempering.run.loading import load_run
    from tempering.run.output import save_run
    from tempering.run.spec import RunSpec
    from tempering.summary.summarize import summarize


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (and kept here), or a submodule
    (``tempering.lapack_batching``), imported on first use."""
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
