"""Run-file summaries (above the driver and the run file): what ``tempering summary`` prints."""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.summary.summarize import summarize
from tempering.summary.weighted import it_summary

__all__ = ["it_summary", "summarize"]
