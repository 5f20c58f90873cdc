"""The driver: chains, chunks, progress, ArviZ output."""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
