"""Micro-benchmarks, run by ``tempering bench NAME``. Each module has ``run(**options) -> None``
and prints a small table; benchmarks report ratios measured in one run (DESIGN.md), not tests."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from tempering.errors import UserInputError

BENCHMARKS: dict[str, str] = {"gp-grad": "tempering.bench.gp_grad"}


def get_benchmark(name: str) -> Callable[..., None]:
    """The ``run`` function of a benchmark, by name."""
    if name not in BENCHMARKS:
        raise UserInputError(f"unknown benchmark {name!r} (known: {', '.join(BENCHMARKS)})")
    return importlib.import_module(BENCHMARKS[name]).run
