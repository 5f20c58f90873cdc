"""Parallel tempering: ``pt`` (the powered-likelihood ladder, seed 000 and Syed et al. 2021's
non-reversible, adaptive PT with a variational reference) and ``spt`` (subsampled PT, seed 000
§3.1). The family's map, one concept per module:

- :mod:`.sampler` — the ``pt`` spec: options, their resolution (``rungs=auto`` runs the pilot),
  the build; :mod:`.spt` — the ``spt`` spec on subset rungs;
- :mod:`.algorithm` — :func:`~.algorithm.parallel_tempering`, PT over any ladder and inner
  kernel: init, one scan (inner moves on every rung, then swaps);
- :mod:`.warmup` — the warmup, one loop of those scans: the rungs' kernels tune (swaps off),
  the schedule's rounds move it, the kernels tune again;
- :mod:`.swaps` — swap proposals (sweep, DEO, SEO) over the rung axis; :mod:`.trajectory` —
  the jittered leapfrog count of HMC inside, one per scan for every rung;
- :mod:`.rounds` — the warmup's rounds that move the schedule to equal barrier and fit the
  Gaussian reference;
- :mod:`.pilot` — the pilot that places the schedule (and the number of rungs) before a run,
  on the run's own programs; :mod:`.capacity` — the rung window that lets it: a line of slots
  of which the rungs in use are a window, data to the compiled program;
- :mod:`.stats` — what PT records; :mod:`.mixing` — Λ̂, round trips, stepping stones;
  :mod:`.legs` — the two legs of a stabilized path; :mod:`.summary` — its block of
  ``tempering summary``.

``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.pt.sampler import SPEC as PT_SPEC
from tempering.algorithms.pt.spt import SPEC as SPT_SPEC

SPECS = (PT_SPEC, SPT_SPEC)

__all__ = ["PT_SPEC", "SPECS", "SPT_SPEC"]
