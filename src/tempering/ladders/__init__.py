"""Rungs of a temperature or approximation ladder."""

from tempering.ladders.base import Ladder, Rung, power_ladder, target_rung

__all__ = ["Ladder", "Rung", "power_ladder", "target_rung"]
