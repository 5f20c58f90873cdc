"""Inner kernels: factories ``make(logdensity_fn, **params)``, their specs and their registry.

Adding a kernel is one module exporting ``SPEC`` (see :mod:`tempering.kernels.base`) and one line
in the tuple below; every sampler that takes an ``inner`` kernel then accepts it by name.
"""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.kernels import hmc, mala, nuts, rj_changepoint, rwm, slice
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, StepInfo
from tempering.registry import Registry

KERNELS: Registry[KernelSpec] = Registry("kernel", (
    rwm.SPEC,
    hmc.SPEC,
    nuts.SPEC,
    slice.SPEC,
    mala.SPEC,
    rj_changepoint.SPEC,
))

__all__ = ["KERNELS", "BoundKernel", "Kernel", "KernelSpec", "StepInfo"]
