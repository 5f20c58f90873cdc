"""What ``bench startup`` runs: its sizes, its groups of rows, and each row's request to its child
process (:mod:`.child`).

Two kinds of group, each with NumPyro's NUTS and BlackJAX's SMC beside the library's rows on the
same model:

- ``samplers``: every registered sampler at its defaults on ``gauss_mixture`` in ``dim``
  dimensions (the ``bench multimodal`` target: 4 modes, unequal weights and widths), except those
  that need what the mixture lacks (:func:`sampler_model`): data to subsample (``mvn_mean`` of the
  same dimension, 256 points), the changepoint model, a fast/slow split (``gp_neal2010``);
- one per ``bench multimodal`` target: ``pt`` at its defaults, with the longer run of PT's
  benchmark.

A request is a plain dict (it travels as JSON): ``kind`` (``library``, ``numpyro``, ``smc``),
``label``, the model's name and options, the sampler's, the run's layout (``chains``, ``warmup``,
``draws``, ``seed``) and, for SMC, the target's key and the multimodal benchmark's size (its
particles and steps).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, NamedTuple

from tempering import SAMPLERS, UserInputError
from tempering.bench.multimodal.sizes import FULL as MULTIMODAL_FULL
from tempering.bench.multimodal.sizes import QUICK as MULTIMODAL_QUICK
from tempering.bench.multimodal.sizes import Size as MultimodalSize
from tempering.bench.multimodal.targets import Target, build_targets, gauss_mixture

SEED = 0
#: Samplers whose defaults need what the Gaussian mixture lacks: data to subsample (it has one
#: pseudo datum) — they run on ``mvn_mean`` of the same dimension.
NEED_DATA = ("spt", "stt", "tt_approx", "discretizing_chain", "mint", "cmint", "sgld", "sghmc",
             "mintee")
#: Samplers made for one kind of model, and that model (its defaults).
OWN_MODEL: dict[str, tuple[str, dict[str, Any]]] = {
    "rj_changepoint": ("changepoint", {}), "ensemble": ("gp_neal2010", {})}


@dataclass(frozen=True)
class Size:
    """One size of the benchmark: the runs' layout, the samplers' mixture, which rows run by
    default, and each child's time limit in seconds."""

    name: str
    chains: int
    warmup: int
    draws: int
    pt_warmup: int
    pt_draws: int
    dim: int
    multimodal: MultimodalSize
    samplers: tuple[str, ...] | None  # None: every registered sampler
    targets: int | None  # how many of the multimodal targets by default; None: all
    timeout: float

    def scaled(self, factor: float) -> Size:
        """Every run's length times ``factor`` (at least 1 each; SMC's particles too)."""
        def times(n: int) -> int:
            return max(1, round(n * factor))

        return replace(self, warmup=times(self.warmup), draws=times(self.draws),
                       pt_warmup=times(self.pt_warmup), pt_draws=times(self.pt_draws),
                       multimodal=self.multimodal.scaled(factor))


FULL = Size("full", chains=4, warmup=1000, draws=1000, pt_warmup=1000, pt_draws=4000, dim=10,
            multimodal=MULTIMODAL_FULL, samplers=None, targets=None, timeout=1800.0)
#: PT's quick group runs what the samplers' group does: its PT and NumPyro rows are the same
#: requests, run once.
QUICK = Size("quick", chains=2, warmup=50, draws=50, pt_warmup=50, pt_draws=50, dim=2,
             multimodal=MULTIMODAL_QUICK, samplers=("rwm", "pt"), targets=1, timeout=300.0)


class Group(NamedTuple):
    """A table: its key, its title, and its rows' requests (the library's first, then NumPyro's
    NUTS and BlackJAX's SMC)."""

    key: str
    title: str
    requests: list[dict[str, Any]]


def chosen_size(quick: bool, dim: int | None, repeats: int | None) -> Size:
    size = QUICK if quick else FULL
    if dim is not None:
        if dim < 2:
            raise UserInputError(f"bench startup: --dim must be at least 2 (got {dim})")
        size = replace(size, dim=int(dim))
    if repeats is not None:
        if repeats < 1:
            raise UserInputError(f"bench startup: --repeats must be positive (got {repeats})")
        size = size.scaled(repeats)
    return size


def sampler_model(sampler: str, dim: int, mixture: Target) -> tuple[str, dict[str, Any]]:
    """The model a sampler's row runs on (module docstring)."""
    if sampler in OWN_MODEL:
        return OWN_MODEL[sampler]
    if sampler in NEED_DATA:
        return "mvn_mean", {"dim": dim}
    return mixture.model.name, dict(mixture.model.options)


def peers(target: Target, size: Size, warmup: int, draws: int) -> list[dict[str, Any]]:
    """NumPyro's NUTS and BlackJAX's SMC on ``target``'s model."""
    model = {"model": target.model.name, "model_options": dict(target.model.options),
             "seed": SEED}
    multimodal = size.multimodal
    if target.key.startswith("gauss-mixture-"):  # one dimension: the same request in any group
        multimodal = replace(multimodal, gauss_dims=(target.model.dim,))
    return [{"kind": "numpyro", "label": "numpyro nuts", **model, "chains": size.chains,
             "warmup": warmup, "draws": draws},
            {"kind": "smc", "label": "blackjax smc", **model, "target": target.key,
             "size": asdict(multimodal)}]


def library(label: str, sampler: str, model: tuple[str, dict[str, Any]], size: Size,
            warmup: int, draws: int) -> dict[str, Any]:
    """A registered sampler at its defaults on ``model``."""
    return {"kind": "library", "label": label, "model": model[0], "model_options": model[1],
            "sampler": sampler, "sampler_options": {}, "seed": SEED, "chains": size.chains,
            "warmup": warmup, "draws": draws}


def groups(size: Size, only: str | None) -> list[Group]:
    """The groups to run: every sampler and every target (``size`` chooses fewer by default;
    ``only``, comma-separated sampler names and target keys, chooses exactly)."""
    targets = build_targets(size.multimodal)
    samplers = list(SAMPLERS.names())
    if only is None:
        chosen = set(size.samplers or samplers) | set(list(targets)[:size.targets])
    else:
        chosen = {p.strip() for p in only.split(",") if p.strip()}
        unknown = sorted(chosen - set(samplers) - set(targets))
        if unknown or not chosen:
            named = ", ".join(unknown) or repr(only)
            raise UserInputError(f"--only: unknown sampler or target {named} (choose from "
                                 f"{', '.join(samplers + list(targets))})")
    out = []
    if chosen & set(samplers):
        mixture = gauss_mixture(size.dim)
        rows = [library(name, name, sampler_model(name, size.dim, mixture), size, size.warmup,
                        size.draws) for name in samplers if name in chosen]
        out.append(Group("samplers", f"every sampler at its defaults: {mixture.title} (unless the "
                         f"model column says otherwise); {size.chains} chains, {size.warmup} "
                         f"warmup, {size.draws} draws",
                         rows + peers(mixture, size, size.warmup, size.draws)))
    for key in (k for k in targets if k in chosen):
        target = targets[key]()
        model = (target.model.name, dict(target.model.options))
        out.append(Group(key, f"pt at its defaults: {target.title}; {size.chains} chains, "
                         f"{size.pt_warmup} warmup, {size.pt_draws} draws",
                         [library("pt", "pt", model, size, size.pt_warmup, size.pt_draws),
                          *peers(target, size, size.pt_warmup, size.pt_draws)]))
    return out
