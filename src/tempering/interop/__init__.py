"""Bridges to other libraries' drivers: :mod:`.numpyro_kernel` — the package's samplers as
NumPyro ``MCMCKernel``\\ s (``tempering.numpyro``).

This layer sits beside the run layer (``docs/architecture.md``, "Layers"): it runs an
``Algorithm`` (layer 7) on a ``Model`` (layer 3) under another library's driver, and never imports
the package's own driver, run files or summaries.
"""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
