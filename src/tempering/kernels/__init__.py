"""Inner kernels: factories ``make(logdensity_fn, **params)`` and their registry."""

from tempering.kernels import hmc, nuts, rj_changepoint, rwm, slice
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, StepInfo

KERNELS: dict[str, KernelSpec] = {spec.name: spec for spec in
                                  (rwm.SPEC, hmc.SPEC, nuts.SPEC, slice.SPEC,
                                                rj_changepoint.SPEC)}

__all__ = ["KERNELS", "BoundKernel", "Kernel", "KernelSpec", "StepInfo"]
