"""dynesty's static nested sampler (``dynesty.NestedSampler``) at its defaults: 500 live points
(``nlive``, the size's), multi-ellipsoid bounds, ``sample='auto'`` (uniform sampling in the
bounds below 10 dimensions, random walks for 10–20, slice sampling above) and the default
stopping rule (remaining evidence Δlog Z < 0.001 (nlive − 1) + 0.01).

The log likelihood is the model's, jitted and called one point at a time (dynesty's interface; a
NumPy scalar per call), on θ = the target's prior transform of the unit cube, so the prior is
exactly the model's. log Z and its error are dynesty's; the draws are the dead and final live
points with their importance weights exp(log w − log Z) (one weighted population, so the
error-versus-time curve is one point). Compilation of the likelihood is timed apart (a first
call before the run); evaluations are dynesty's ``ncall`` total. The likelihood is traced and
run in the model's precision (``Target.in_precision``: JAX's ``enable_x64`` scope), as the
library's runs are.
"""

from __future__ import annotations

import time
import warnings

import jax
import numpy as np

from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.targets import Target


def run_dynesty(target: Target, size: Size, seed: int) -> MethodRun:
    """One static nested-sampling run with ``size.nlive`` live points, in the model's precision
    (module docstring)."""
    with target.in_precision():
        return _run(target, size, seed)


def _run(target: Target, size: Size, seed: int) -> MethodRun:
    import dynesty  # the optional ``bench`` extra: imported when a run needs it

    start = time.perf_counter()
    model = target.model
    log_lik = jax.jit(model.log_lik)
    compile_start = time.perf_counter()
    probe = target.prior_transform(np.full(model.dim, 0.5))
    float(log_lik(probe))
    compiled = time.perf_counter() - compile_start

    def loglike(theta: np.ndarray) -> float:
        value = float(log_lik(theta))
        return value if np.isfinite(value) else -1e300

    sampler = dynesty.NestedSampler(loglike, target.prior_transform, model.dim,
                                    nlive=size.nlive, rstate=np.random.default_rng(seed))
    sampling_start = time.perf_counter()
    with warnings.catch_warnings():  # its note on large bootstrap enlargement, on every update
        warnings.simplefilter("ignore", UserWarning)
        sampler.run_nested(print_progress=False, maxcall=size.dynesty_maxcall)
    sampling = time.perf_counter() - sampling_start
    results = sampler.results
    log_z = float(results["logz"][-1])
    log_w = np.asarray(results["logwt"], dtype=float) - log_z
    weights = np.exp(log_w - np.max(log_w))
    return MethodRun(
        "dynesty", np.asarray(results["samples"], dtype=float)[None], weights / weights.sum(),
        log_z, float(results["logzerr"][-1]),
        {"compile": compiled, "sampling": sampling, "total": time.perf_counter() - start},
        float(np.sum(results["ncall"])), "density",
        {"nlive": size.nlive, "iterations": int(results["niter"]),
         "sample": type(getattr(sampler, "internal_sampler_next", None)
                        or getattr(sampler, "internal_sampler", None)).__name__})
