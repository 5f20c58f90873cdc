"""Continue a run from its file: ``tempering resume`` (an interrupted run, from its last
checkpoint) and ``tempering extend`` (more draws for a finished run).

Both rebuild the model and the sampler from the attributes the checkpoint recorded (names and
resolved options, through the registries), read the ledger — every leaf checked against the
state the sampler's ``init`` makes — and hand it to the driver, which goes on from each chain's
draw count with the same key stream. The draws are bitwise identical to one uninterrupted run of
the same total length on the same chain layout, with the same package versions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tempering.algorithms import get_sampler
from tempering.errors import UserInputError
from tempering.models import get_model
from tempering.run.checkpoint import Ledger, read_attrs, read_ledger
from tempering.run.driver import key_from_record, new_ledger
from tempering.run.files import REBUILD_ATTRS, run_and_save


def _continued(path: Path) -> tuple[dict[str, Any], Ledger]:
    """The recorded attributes of ``path`` and its ledger, checked against the rebuilt sampler."""
    attrs = read_attrs(path)
    missing = [name for name in REBUILD_ATTRS if name not in attrs]
    if missing:
        raise UserInputError(f"{path}: checkpoint lacks {', '.join(missing)}")
    model = get_model(attrs["model"], **dict(attrs["model_options"]))
    algorithm = get_sampler(attrs["sampler"], model, **dict(attrs["sampler_options"]))
    template = new_ledger(algorithm, model, key=key_from_record(attrs["seed"]),
                          chains=int(attrs["chains"]), init=attrs.get("init"))
    return attrs, read_ledger(path, template.state, template.params)


def _run(path: Path, attrs: dict[str, Any], ledger: Ledger, draws: int, progress: bool,
         on_done: Callable[[str], Any] | None) -> Path:
    return run_and_save(
        attrs["model"], attrs["sampler"],
        {"model": dict(attrs["model_options"]), "sampler": dict(attrs["sampler_options"])},
        chains=int(attrs["chains"]), draws=draws, warmup=int(attrs["warmup"]),
        seed=key_from_record(attrs["seed"]), chain_method=str(attrs["chain_method"]),
        thin=int(attrs["thin"]), init=attrs.get("init"), out=path, progress=progress,
        on_done=on_done, checkpoint_every=attrs.get("checkpoint_every"), resume=ledger)


def resume_run(path: str | Path, progress: bool = False,
               on_done: Callable[[str], Any] | None = None) -> Path:
    """Continue the interrupted run in ``path`` from its last checkpoint, writing it in place.

    Raises
    ------
    UserInputError
        No readable checkpoint (missing, truncated or damaged file), one that does not match the
        sampler it names, or a run that has already finished (extend it instead).
    """
    path = Path(path)
    attrs, ledger = _continued(path)
    draws = int(attrs["draws"])
    if bool((ledger.done >= draws).all()):
        raise UserInputError(f"{path}: the run has finished ({draws} draws per chain); "
                             "use `tempering extend` for more")
    return _run(path, attrs, ledger, draws, progress, on_done)


def extend_run(path: str | Path, draws: int, progress: bool = False,
               on_done: Callable[[str], Any] | None = None) -> Path:
    """Add ``draws`` draws per chain to the finished run in ``path``, writing it in place."""
    path = Path(path)
    if draws < 1:
        raise UserInputError(f"draws must be at least 1 (got {draws})")
    attrs, ledger = _continued(path)
    total = int(attrs["draws"])
    if not bool((ledger.done >= total).all()):
        raise UserInputError(f"{path}: the run has not finished; use `tempering resume` first")
    return _run(path, attrs, ledger, total + draws, progress, on_done)

