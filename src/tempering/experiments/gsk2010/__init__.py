"""Seed 001: Gramacy, Samworth & King (2010), *Importance Tempering* — ``tempering reproduce
gsk2010``. The paper's map:

- :mod:`.experiment` — the reproduction (``SPEC``): its three parts and their estimators;
- :mod:`.paper` — the published numbers; :mod:`.readme` — the README beside the paper's figures.
"""

from tempering.experiments.gsk2010.experiment import SPEC

SPECS = (SPEC,)

__all__ = ["SPEC", "SPECS"]
