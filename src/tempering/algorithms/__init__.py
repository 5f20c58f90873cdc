"""Sampling algorithms run by the driver."""

from tempering.algorithms.base import Algorithm, AlgorithmInfo
from tempering.algorithms.registry import SAMPLERS, get_sampler

__all__ = ["SAMPLERS", "Algorithm", "AlgorithmInfo", "get_sampler"]
