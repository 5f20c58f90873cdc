"""Published numbers of Wang & Neal (2013), *MCMC methods for Gaussian process models using fast
approximations for the likelihood* (seed 002, ``shared/seeds/002_24dd6d92d745af9f.txt``).

Transcribed from §6: Table 1 (generating hyperparameters, in :mod:`tempering.models.gp_const`),
Table 2 (the ten data sets, the subset sizes m used by SOD, NYS and TMP, and autocorrelation time ×
CPU time per iteration: the standard method's value and the others' ratios to it) and Table 3
(CPU seconds per iteration and autocorrelation time of each run). ``None`` marks the paper's "-"
(no result: Nyström needed m ≥ 95 % of n on short-length-scale data with p = 5; TMP was run only
on the n = 300 sets).
"""

from __future__ import annotations

from typing import NamedTuple


class DataSet(NamedTuple):
    """One row of Table 2's left half: how the data set was generated and the m of each method."""

    number: int
    lengthscales: str  # "short" or "long"
    kernel: str  # "iso" or "ard"
    p: int
    n: int
    m_sod: int
    m_nys: int | None
    m_tmp: tuple[int, int] | None


DATASETS: tuple[DataSet, ...] = (
    DataSet(1, "short", "iso", 1, 300, 40, 30, (40, 20)),
    DataSet(2, "short", "iso", 5, 300, 150, None, (100, 50)),
    DataSet(3, "short", "ard", 5, 300, 100, None, (90, 45)),
    DataSet(4, "long", "iso", 5, 300, 150, 120, (130, 65)),
    DataSet(5, "long", "ard", 5, 300, 90, 80, (100, 50)),
    DataSet(6, "short", "iso", 1, 900, 60, 90, (60, 30)),
    DataSet(7, "short", "iso", 5, 900, 300, None, None),
    DataSet(8, "short", "ard", 5, 900, 100, None, None),
    DataSet(9, "long", "iso", 5, 900, 100, 110, None),
    DataSet(10, "long", "ard", 5, 900, 300, 90, None),
)

#: Methods in the tables' column order: standard slice sampler, discretizing chain with SOD and
#: with Nyström–Cholesky, tempered transitions over SOD approximations.
METHODS: tuple[str, ...] = ("std", "sod", "nys", "tmp")

#: Table 2, right half: T_STD = τ × CPU s per iteration of the standard method, then the ratios
#: T_SOD/T_STD, T_NYS/T_STD, T_TMP/T_STD.
TABLE2: dict[int, tuple[float, float | None, float | None, float | None]] = {
    1: (0.76, 0.45, 0.51, 1.05),
    2: (1.62, 0.81, None, 0.14),
    3: (3.39, 0.83, None, 0.36),
    4: (2.05, 0.81, 0.97, 0.69),
    5: (5.23, 0.66, 0.85, 0.51),
    6: (9.06, 0.27, 0.23, 0.28),
    7: (18.17, 0.51, None, None),
    8: (25.47, 0.43, None, None),
    9: (16.86, 0.34, 0.40, None),
    10: (47.46, 0.67, 0.34, None),
}

#: Table 3: CPU seconds per iteration (STD, SOD, NYS, TMP), then autocorrelation time (same order).
TABLE3_CPU: dict[int, tuple[float | None, ...]] = {
    1: (0.26, 0.078, 0.11, 0.15),
    2: (0.28, 0.14, None, 0.13),
    3: (0.56, 0.23, None, 0.14),
    4: (0.13, 0.072, 0.15, 0.09),
    5: (0.49, 0.19, 0.41, 0.13),
    6: (3.10, 0.53, 0.83, 0.61),
    7: (3.76, 0.82, None, None),
    8: (7.21, 1.48, None, None),
    9: (1.81, 0.69, 0.91, None),
    10: (5.66, 1.95, 1.75, None),
}
TABLE3_ACT: dict[int, tuple[float | None, ...]] = {
    1: (2.90, 4.32, 3.53, 5.40),
    2: (5.77, 9.32, None, 1.67),
    3: (6.09, 11.98, None, 8.63),
    4: (15.62, 23.04, 12.88, 16.56),
    5: (11.16, 18.07, 10.89, 20.37),
    6: (2.92, 4.63, 2.48, 4.21),
    7: (4.83, 11.24, None, None),
    8: (3.53, 7.38, None, None),
    9: (9.33, 8.27, 7.40, None),
    10: (8.39, 16.18, 9.14, None),
}

#: §6.2: every chain started at the generating hyperparameters, 2000 iterations, τ (Eq. 44) of the
#: log likelihood from the last two thirds.
ITERATIONS = 2000
