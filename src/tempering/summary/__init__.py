"""Run-file summaries (above the driver and the run file): what ``tempering summary`` prints."""

from tempering.summary.summarize import summarize
from tempering.summary.weighted import it_summary

__all__ = ["it_summary", "summarize"]
