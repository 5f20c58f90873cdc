"""Simulated tempering, ``st`` (Marinari & Parisi 1992; Geyer & Thompson 1995; seed 001 §2), with
importance tempering's weights (seed 001 §3). The family's map:

- :mod:`.sampler` — the ``st`` spec and its joint (θ, k) move;
- :mod:`.family` — the inner-kernel contract: one kernel for every inverse temperature;
- :mod:`.pseudo_prior` — tuning the pseudo-prior log c_k;
- :mod:`.warmup` — the pilot and the warmup's scans, one loop body with the sampling steps.

``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.st.sampler import SPEC as ST_SPEC

SPECS = (ST_SPEC,)

__all__ = ["SPECS", "ST_SPEC"]
