"""Published numbers and settings of Neal (2010), *MCMC using ensembles of states for problems
with fast and slow variables such as Gaussian process regression* (seed 004, §3).

Transcribed from ../shared/seeds/004_caeb92b1141727b1.txt (beside the repository) and its
errata in the seeds' README. The paper reports no ESS or autocorrelation time: Figs. 2–5 are traces
(every 300th of 300 000 iterations), and its numbers are the rejection rates and the seconds per
slow evaluation below.

- ``SLOW_BUDGET``: every run does 300 000 slow evaluations (§3, "to allow a fair comparison").
- ``JOINT_SCALES``: Fig. 2's Metropolis proposal N(x, s² I) of all 14 log-parameters at once.
- ``SINGLE_SCALES``: Fig. 3's single-variable proposal sds (2 for log ν_h, 0.6 for log η and
  log σ); the seeds' errata take 0.6 for log ψ too and these sds for the ensembles' slow updates,
  which the paper does not state.
- ``EXTRA_FAST``: Fig. 3 (bottom): 49 extra Metropolis updates of the fast variables per
  iteration.
- ``ENSEMBLE_SIZE``: K = 49 for every ensemble (a 7 × 7 grid with η and σ fast; 49 points with η
  alone, by "all ensembles had K = 49").
- ``REJECTION``: joint s = 0.25: 87 %, s = 0.35: 94 %; single-variable: 53 %–77 % per variable.
- ``SECONDS_PER_SLOW``: Intel seconds per slow evaluation (n = 100, p = 12).
- ``TEXT_CLAIMS``: the qualitative rankings, checked in the README.
"""

from __future__ import annotations

SLOW_BUDGET = 300_000
JOINT_SCALES = (0.25, 0.35)
SINGLE_SCALES = {"log_nu": 2.0, "log_eta": 0.6, "log_sigma": 0.6, "log_psi": 0.6}
EXTRA_FAST = 49
ENSEMBLE_SIZE = 49
EXCHANGEABLE_SCALE = 0.4  # × the prior sd (§3)
GRID_EXTENT = (1.0, 1.1)  # × the prior sd, drawn uniformly at every mapping (§3)

REJECTION: dict[str, tuple[float, float]] = {
    "joint s=0.25": (0.87, 0.87),
    "joint s=0.35": (0.94, 0.94),
    "single-variable": (0.53, 0.77),
}

SECONDS_PER_SLOW: dict[str, float] = {
    "Cholesky (Metropolis)": 0.0081,
    "eigen (Metropolis)": 0.0128,
    "ensemble, eigen": 0.0139,
    "ensemble, Cholesky": 0.0082,
}

TEXT_CLAIMS = (
    "Fig. 2: joint Metropolis with s = 0.35 finds modes of σ that s = 0.25 misses; neither moves "
    "between modes often.",
    "Fig. 3: single-variable Metropolis is better than joint; 49 extra fast updates per iteration "
    "give little or no improvement.",
    "Fig. 4: every ensemble with η and σ fast moves between the modes much better than "
    "single-variable Metropolis; exchangeable and grid slightly better than independent.",
    "Fig. 5: ensembles with η alone fast are much better than standard Metropolis but not as good "
    "as with η and σ fast; their cost is about 1 % above standard Metropolis.",
)
