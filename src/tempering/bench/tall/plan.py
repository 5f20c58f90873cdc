"""What ``bench tall`` runs: its sizes, its cases (rows n × coefficients d), its contenders and
each run's request to its child process (:mod:`.child`).

The model is the library's ``logistic`` with synthetic data (:data:`MODEL_OPTIONS`: x_ij ~ N(0, 1),
a true θ of norm 3, no test split) and the N(0, 5²) prior. The contenders, each as a user who
read its documentation would run it:

- the library's ``nuts`` and ``hmc`` at their defaults;
- ``sgld`` and ``sghmc`` at their defaults, and with control variates off
  (``control_variates=false``) — those rows run only where the sampler has that option
  (:func:`missing_option`; otherwise they are skipped rows with a note);
- ``mint`` at its defaults, scored against its own tempered target (:mod:`.reference`);
- NumPyro's NUTS (chains vectorised, NumPyro's default float32);
- NumPyro's HMCECS (NUTS inside, :data:`SUBSAMPLE` points per likelihood estimate, Taylor proxy
  at the MAP found by BFGS on the full data, whose seconds and passes count).

A request is a plain dict (it travels as JSON): ``kind`` (``library``, ``numpyro_nuts``,
``numpyro_hmcecs``), ``label``, the case (``n``, ``dim``, ``model_options``), the sampler's name
and options (library), the run's layout (``chains``, ``warmup``, ``draws``, ``seed``),
``subsample`` and ``num_blocks`` (HMCECS), and ``draws_path`` (set by the parent: where the
child writes the draws).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from tempering import SAMPLERS, UserInputError

SEED = 0
PRIOR_SD = 5.0
#: The options of the ``logistic`` model, less ``n`` and ``dim``.
MODEL_OPTIONS: dict[str, Any] = {"prior_sd": PRIOR_SD, "test_fraction": 0.0}
#: The contender whose seconds the others' are compared with.
BASELINE = "numpyro nuts"
#: HMCECS's subsample size and blocks (NumPyro's HMCECS example: 100 blocks).
SUBSAMPLE = 1000
NUM_BLOCKS = 100
#: The option whose rows are skipped where a stochastic-gradient sampler lacks it.
CONTROL_VARIATES = "control_variates"


@dataclass(frozen=True)
class Size:
    """One size of the benchmark.

    Attributes
    ----------
    rows, dims
        The cases: every n in ``rows`` with every d in ``dims``.
    chains, warmup, draws
        Every contender's run layout (draws per chain).
    reference_draws
        Importance-sampling draws of the reference (:mod:`.reference`).
    reference_chains, reference_warmup, reference_nuts_draws
        The long NUTS run that is the reference where importance sampling is not good enough.
    nuts_reference_max_n
        Above this n no NUTS reference is run (its cost grows with n): such a target is not
        scored.
    subsample
        HMCECS's subsample size (at most n / 2).
    timeout
        Each child's time limit in seconds.
    workers
        Children run at a time: 1 for figures to read; the tests' quick size runs 2 (its
        seconds are then not for reading).
    """

    name: str
    rows: tuple[int, ...]
    dims: tuple[int, ...]
    chains: int
    warmup: int
    draws: int
    reference_draws: int
    reference_chains: int
    reference_warmup: int
    reference_nuts_draws: int
    nuts_reference_max_n: int
    subsample: int
    timeout: float
    workers: int = 1


FULL = Size("full", rows=(10_000, 100_000, 1_000_000), dims=(10, 50), chains=4, warmup=500,
            draws=1000, reference_draws=8192, reference_chains=8, reference_warmup=1000,
            reference_nuts_draws=2000, nuts_reference_max_n=100_000, subsample=SUBSAMPLE,
            timeout=7200.0)
QUICK = Size("quick", rows=(2000,), dims=(2,), chains=2, warmup=100, draws=200,
             reference_draws=2048, reference_chains=4, reference_warmup=200,
             reference_nuts_draws=500, nuts_reference_max_n=100_000, subsample=200,
             timeout=300.0, workers=2)


@dataclass(frozen=True)
class Contender:
    """One row of every table: a label, the kind of run, and a library sampler's name and
    options (``None`` for NumPyro's)."""

    label: str
    kind: str
    sampler: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    #: The sampler's target is its own tempered law, not the posterior.
    tempered: bool = False


CONTENDERS: tuple[Contender, ...] = (
    Contender("nuts", "library", "nuts"),
    Contender("hmc", "library", "hmc"),
    Contender("sgld", "library", "sgld"),
    Contender("sgld, no control variates", "library", "sgld", ((CONTROL_VARIATES, False),)),
    Contender("sghmc", "library", "sghmc"),
    Contender("sghmc, no control variates", "library", "sghmc", ((CONTROL_VARIATES, False),)),
    Contender("mint", "library", "mint", tempered=True),
    Contender(BASELINE, "numpyro_nuts"),
    Contender("numpyro hmcecs", "numpyro_hmcecs"),
)


def missing_option(contender: Contender) -> str | None:
    """Why ``contender`` cannot run here (its sampler lacks one of its options), or ``None``."""
    if contender.sampler is None or not contender.options:
        return None
    fields = SAMPLERS.get(contender.sampler).options.model_fields
    absent = [key for key, _ in contender.options if key not in fields]
    if not absent:
        return None
    return (f"skipped: {contender.sampler} has no option {', '.join(absent)} in this version "
            "of the library")


def parse_list(text: str | None, default: tuple[int, ...], flag: str,
               smallest: int) -> tuple[int, ...]:
    """Comma-separated positive integers (``1e6`` and ``1_000_000`` accepted), or ``default``;
    a bad list is a one-line error naming ``flag``."""
    if text is None:
        return default
    values = []
    for part in (p.strip() for p in text.split(",")):
        try:
            value = float(part.replace("_", ""))
        except ValueError:
            raise UserInputError(f"{flag}: {part!r} is not a number") from None
        if value != int(value) or value < smallest:
            raise UserInputError(f"{flag}: {part!r} must be a whole number ≥ {smallest}")
        values.append(int(value))
    if not values:
        raise UserInputError(f"{flag}: give at least one value")
    return tuple(dict.fromkeys(values))


def chosen_size(quick: bool, rows: str | None, dims: str | None) -> Size:
    """The size to run: ``QUICK`` or ``FULL``, with ``--rows`` and ``--dims`` in force."""
    size = QUICK if quick else FULL
    return replace(size, rows=parse_list(rows, size.rows, "--rows", 100),
                   dims=parse_list(dims, size.dims, "--dims", 1))


class Labelled(Protocol):
    """A contender of any tall benchmark: what ``--only`` names."""

    @property
    def label(self) -> str: ...


C = TypeVar("C", bound=Labelled)


def chosen_among(only: str | None, contenders: Sequence[C]) -> list[C]:
    """Every one of ``contenders``, or those named (comma-separated labels) in ``only``; a label
    that holds a comma itself ("sgld, no control variates") is read whole."""
    if only is None:
        return list(contenders)
    labels = [c.label for c in contenders]
    wanted, unknown = named_labels(only, labels)
    if unknown or not wanted:
        raise UserInputError(f"--only: unknown contender {', '.join(unknown) or repr(only)} "
                             f"(choose from {', '.join(labels)})")
    return [c for c in contenders if c.label in wanted]


def named_labels(only: str, labels: Sequence[str]) -> tuple[list[str], list[str]]:
    """The labels ``only`` names and the names it gives that are none: split at commas, each
    run of parts read as the longest label it starts (so a label may hold commas)."""
    parts = [p.strip() for p in only.split(",")]
    wanted: list[str] = []
    unknown: list[str] = []
    i = 0
    while i < len(parts):
        longest = next((j for j in range(len(parts), i, -1)
                        if ", ".join(parts[i:j]) in labels), None)
        if longest is None:
            unknown += [parts[i]] if parts[i] else []
            i += 1
        else:
            wanted.append(", ".join(parts[i:longest]))
            i = longest
    return wanted, unknown


def chosen_contenders(only: str | None) -> list[Contender]:
    """Every contender, or those named (comma-separated labels) in ``only``."""
    return chosen_among(only, CONTENDERS)


def request(contender: Contender, size: Size, n: int, dim: int) -> dict[str, Any]:
    """The child's request for ``contender`` on the case (n, dim)."""
    out: dict[str, Any] = {
        "kind": contender.kind, "label": contender.label, "n": n, "dim": dim,
        "model_options": {"n": n, "dim": dim, **MODEL_OPTIONS}, "seed": SEED,
        "chains": size.chains, "warmup": size.warmup, "draws": size.draws}
    if contender.sampler is not None:
        out |= {"sampler": contender.sampler, "sampler_options": dict(contender.options)}
    if contender.kind == "numpyro_hmcecs":
        subsample = min(size.subsample, n // 2)
        out |= {"subsample": subsample, "num_blocks": min(NUM_BLOCKS, subsample)}
    return out
