"""Sampling algorithms run by the driver, their specs and the sampler registry."""

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat
from tempering.algorithms.cost_model import paper_cost_ratios, pt_iteration_costs, tt_iteration_cost
from tempering.algorithms.registry import SAMPLERS, build_sampler, get_sampler
from tempering.algorithms.spec import SamplerSpec

__all__ = ["SAMPLERS", "Algorithm", "AlgorithmInfo", "SamplerSpec", "Stat", "build_sampler",
           "get_sampler", "paper_cost_ratios", "pt_iteration_costs", "tt_iteration_cost"]
