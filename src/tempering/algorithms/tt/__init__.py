"""Tempered transitions: ``tt`` (Neal 1996 over a powered ladder), ``stt`` (subsampled TT, seed
000 §3.2) and ``tt_approx`` (TT over a ladder of cheap GP approximations, seed 002 §4). The
family's map:

- :mod:`.transitions` — the TT move and the ``tt`` spec;
- :mod:`.stt` — the ``stt`` spec (TT over redrawn subsets);
- :mod:`.approx` — the ``tt_approx`` spec (π_0 = π, π_i the approximations);
- :mod:`.warmup` — the warmup as scans of one loop body with the sampling steps.

``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.tt.approx import SPEC as TT_APPROX_SPEC
from tempering.algorithms.tt.stt import SPEC as STT_SPEC
from tempering.algorithms.tt.transitions import SPEC as TT_SPEC

SPECS = (TT_SPEC, STT_SPEC, TT_APPROX_SPEC)

__all__ = ["SPECS", "STT_SPEC", "TT_APPROX_SPEC", "TT_SPEC"]
