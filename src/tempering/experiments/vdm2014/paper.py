"""Published numbers of van de Meent, Paige & Wood (2014), *Tempering by Subsampling*.

Transcribed from the paper's text (``shared/seeds/000_ae3132567955e81b.txt``): Table 1 (GP, N = 512,
median ESS/s by |θ|), Table 2 (multivariate Gaussian, median ESS/s by dimension), the measured cost
ratios of Section 4.4 / Fig. 1, and the settings of Sections 4.1-4.3. Entries the paper marks with
a star (not converged to R-hat < 1.1) are listed in the ``*_STARS`` sets.
"""

from __future__ import annotations

#: Column order of the paper's tables: the inner sampler alone, then STT, TT, SPT, PT.
SAMPLERS: tuple[str, ...] = ("base", "stt", "tt", "spt", "pt")

#: Table 1, top block (HMC inner sampler), GP regression with N = 512: |θ| -> ESS/s per sampler.
TABLE1_HMC: dict[int, tuple[float, ...]] = {
    5: (0.1378, 0.1828, 0.0445, 0.0682, 0.0189),
    10: (0.0027, 0.0053, 0.0022, 0.0011, 0.0002),
    15: (0.0011, 0.0012, 0.0013, 0.0002, 0.0003),
    20: (0.0007, 0.0033, 0.0016, 0.0009, 0.0001),
    25: (0.0010, 0.0016, 0.0011, 0.0003, 0.0003),
}
TABLE1_HMC_STARS: set[tuple[int, str]] = {(10, "pt"), (15, "spt"), (20, "pt"), (25, "spt"),
                                          (25, "pt")}

#: Table 1, bottom block (MH inner sampler).
TABLE1_MH: dict[int, tuple[float, ...]] = {
    5: (0.0279, 0.0503, 0.0495, 0.0262, 0.0204),
    10: (0.0028, 0.0151, 0.0065, 0.0005, 0.0003),
    15: (0.0021, 0.0038, 0.0035, 0.0005, 0.0002),
    20: (0.0032, 0.0026, 0.0021, 0.0009, 0.0002),
}
TABLE1_MH_STARS: set[tuple[int, str]] = set()

#: Table 2, top block: multivariate Gaussian, N = 1024, HMC inner sampler; D -> ESS/s.
TABLE2_HMC: dict[int, tuple[float, ...]] = {
    5: (0.7915, 0.1380, 0.0681, 0.2201, 0.1089),
    10: (0.3334, 0.1361, 0.0652, 0.2172, 0.1119),
    50: (0.0537, 0.0363, 0.0257, 0.0142, 0.0091),
    100: (0.0101, 0.0145, 0.0101, 0.0026, 0.0020),
}
TABLE2_HMC_STARS: set[tuple[int, str]] = set()

#: Table 2, bottom block: N = 256, MH inner sampler.
TABLE2_MH: dict[int, tuple[float, ...]] = {
    5: (0.9949, 0.4903, 3.1858, 0.0344, 0.1665),
    10: (0.1445, 0.2664, 0.7232, 0.0148, 0.0390),
    50: (0.0221, 0.0579, 0.0524, 0.0012, 0.0018),
    100: (0.0102, 0.0240, 0.0221, 0.0008, 0.0010),
}
TABLE2_MH_STARS: set[tuple[int, str]] = {(100, "spt"), (100, "pt")}

#: Section 4.4 / Fig. 1: measured wall-time cost per draw relative to HMC.
MEASURED_COST_RATIOS: dict[str, dict[str, float]] = {
    "mvn_mean": {"spt": 3.51, "stt": 5.65, "pt": 7.48, "tt": 12.94},
    "gp_regression": {"spt": 1.73, "stt": 2.35, "pt": 6.03, "tt": 9.19},
}

#: Section 4.4: the asymptotic ratios the paper quotes from Eqs. 15-16 (M = 6, β_* = 1/8).
QUOTED_EQ_RATIOS: dict[float, dict[str, float]] = {
    1.0: {"spt": 3.11, "stt": 4.52},
    3.0: {"spt": 1.55, "stt": 1.74},
}


def paper_value(table: str, inner: str, dim: int, sampler: str) -> tuple[float, bool] | None:
    """The paper's ESS/s for ``table`` ("table1" or "table2"), inner ("hmc"|"rwm"), |θ| and sampler.

    Returns
    -------
    tuple or None
        ``(value, starred)``, or None where the paper has no such entry. ``sampler`` is one of
        ``SAMPLERS`` ("base" or the inner sampler's own name means the untempered sampler).
    """
    blocks = {("table1", "hmc"): (TABLE1_HMC, TABLE1_HMC_STARS),
              ("table1", "rwm"): (TABLE1_MH, TABLE1_MH_STARS),
              ("table2", "hmc"): (TABLE2_HMC, TABLE2_HMC_STARS),
              ("table2", "rwm"): (TABLE2_MH, TABLE2_MH_STARS)}
    values, stars = blocks[(table, inner)]
    column = sampler if sampler in SAMPLERS else SAMPLERS[0]  # an inner sampler's name: "base"
    if dim not in values:
        return None
    return values[dim][SAMPLERS.index(column)], (dim, column) in stars
