"""What ``bench tall-mixture`` runs: its sizes, its cases (data points n), its contenders and
each run's request to its child process (:mod:`tempering.bench.tall.child`).

The model is the library's ``mixture`` with synthetic data (:data:`MODEL_OPTIONS`: n points
split evenly over the means −3, 0 and 3, σ = 1, prior N(0, 3²) on each of the 3 means): a tall
posterior whose 3! = 6 label orderings hold 1/6 of the mass each. The contenders, each as a user
who read its documentation would run it:

- the library's ``pt``, ``spt``, ``stt`` and ``mintee`` at their defaults, through
  :func:`tempering.run_chains`, chains batched; ``spt``, whose draws cost a few per cent of
  ``pt``'s, runs 4 × the size's draws (:attr:`Contender.draws_factor`);
- BlackJAX's adaptive tempered SMC (``bench multimodal``'s runner,
  :func:`tempering.bench.multimodal.smc_run.run_smc`): ``particles`` particles, ``moves``
  random-walk moves per stage — the baseline of the tables' ratios;
- NumPyro's NUTS (chains vectorised, NumPyro's default float32) on the same posterior written in
  NumPyro.

A request is a plain dict (it travels as JSON): ``kind`` (``library``, ``numpyro_nuts``,
``smc``), ``label``, ``n``, ``model_options``, the sampler's name and options (library), the
run's layout (``chains``, ``warmup``, ``draws``, ``seed``), ``particles`` and ``moves`` (SMC),
``runs`` (the runners' file, :mod:`.runs`), and ``draws_path`` and ``weights_path`` (set by the
parent: where the child writes the draws and SMC's weights).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tempering.bench.tall.plan import chosen_among, parse_list

SEED = 0
#: The mixture's components and its prior (``get_model("mixture", n=n, **MODEL_OPTIONS)``).
MEANS = (-3.0, 0.0, 3.0)
MODEL_OPTIONS: dict[str, Any] = {"means": list(MEANS), "sigma": 1.0, "prior_sd": 3.0}
#: The contender whose seconds the others' are compared with.
BASELINE = "smc"
#: The child's runners (loaded there by path).
RUNS = Path(__file__).with_name("runs.py")


@dataclass(frozen=True)
class Size:
    """One size of the benchmark.

    Attributes
    ----------
    rows
        The cases: the data points n of each.
    chains, warmup, draws
        The MCMC contenders' run layout (draws per chain).
    particles, moves
        SMC's particles and random-walk moves per stage.
    timeout
        Each child's time limit in seconds.
    workers
        Children run at a time: 1 for figures to read; the tests' quick size runs 2 (its
        seconds are then not for reading).
    """

    name: str
    rows: tuple[int, ...]
    chains: int
    warmup: int
    draws: int
    particles: int
    moves: int
    timeout: float
    workers: int = 1


FULL = Size("full", rows=(10_000, 100_000), chains=4, warmup=1000, draws=4000, particles=4000,
            moves=25, timeout=7200.0)
QUICK = Size("quick", rows=(300,), chains=2, warmup=100, draws=200, particles=500, moves=25,
             timeout=300.0, workers=2)


@dataclass(frozen=True)
class Contender:
    """One row of every table: a label, the kind of run, and a library sampler's name (``None``
    for the others)."""

    label: str
    kind: str
    sampler: str | None = None
    #: Draws per chain, in the size's: a sampler whose draws cost a few per cent of ``pt``'s
    #: runs longer, as its user would (the seconds to the level are read from the draws so
    #: far, so a longer run lets a contender reach the level and never moves when it did).
    draws_factor: int = 1


CONTENDERS: tuple[Contender, ...] = (
    Contender("pt", "library", "pt"),
    Contender("spt", "library", "spt", draws_factor=4),  # 4 × 4000 draws: 61 s, pt's 377 s
    Contender("stt", "library", "stt"),
    Contender("mintee", "library", "mintee"),
    Contender("numpyro nuts", "numpyro_nuts"),
    Contender(BASELINE, "smc"),
)


def chosen_size(quick: bool, rows: str | None) -> Size:
    """The size to run: ``QUICK`` or ``FULL``, with ``--rows`` in force."""
    size = QUICK if quick else FULL
    return replace(size, rows=parse_list(rows, size.rows, "--rows", 100))


def chosen_contenders(only: str | None) -> list[Contender]:
    """Every contender, or those named (comma-separated labels) in ``only``."""
    return chosen_among(only, CONTENDERS)


def request(contender: Contender, size: Size, n: int) -> dict[str, Any]:
    """The child's request for ``contender`` on the case of ``n`` data points."""
    out: dict[str, Any] = {
        "kind": contender.kind, "label": contender.label, "n": n,
        "model_options": {"n": n, **MODEL_OPTIONS}, "seed": SEED, "chains": size.chains,
        "warmup": size.warmup, "draws": size.draws * contender.draws_factor,
        "runs": str(RUNS)}
    if contender.sampler is not None:
        out |= {"sampler": contender.sampler, "sampler_options": {}}
    if contender.kind == "smc":
        out |= {"particles": size.particles, "moves": size.moves}
    return out
