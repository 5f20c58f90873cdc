"""``tempering.numpyro``: the package's samplers as NumPyro ``MCMCKernel``\\ s.

    from numpyro.infer import MCMC
    import tempering.numpyro

    mcmc = MCMC(tempering.numpyro.PT(model, rungs="auto"), num_warmup=1000, num_samples=2000)
    mcmc.run(jax.random.key(0), **data)
    mcmc.print_summary()

:mod:`tempering.interop.numpyro_kernel` has the contract (keys, warmup, what NumPyro's driver
cannot carry). Needs NumPyro (``pip install 'tempering[numpyro]'``). Inside this module
``import numpyro`` is the NumPyro package (imports are absolute).
"""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.interop.numpyro_kernel import PT, TemperingKernel, TemperingState

__all__ = ["PT", "TemperingKernel", "TemperingState"]
