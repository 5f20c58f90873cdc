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

from tempering.errors import UserInputError
from tempering.run.checkpoint import Ledger, read_attrs, read_ledger
from tempering.run.driver import new_ledger
from tempering.run.files import run_spec
from tempering.run.spec import RunSpec


def _continued(path: Path) -> tuple[dict[str, Any], RunSpec, Ledger]:
    """The recorded attributes of ``path``, its spec and its ledger, checked against the rebuilt
    sampler."""
    attrs = read_attrs(path)
    spec = RunSpec.from_attrs(attrs, source=f"{path}: checkpoint")
    model, algorithm = spec.build()
    template = new_ledger(algorithm, model, key=spec.key, chains=spec.chains, init=spec.init)
    return attrs, spec, read_ledger(path, template.state, template.params)


def _run(path: Path, attrs: dict[str, Any], spec: RunSpec, ledger: Ledger, progress: bool,
         on_done: Callable[[str], Any] | None) -> Path:
    return run_spec(spec, out=path, progress=progress, on_done=on_done,
               checkpoint_every=attrs.get("checkpoint_every"), resume=ledger)


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
    attrs, spec, ledger = _continued(path)
    if bool((ledger.done >= spec.draws).all()):
        raise UserInputError(f"{path}: the run has finished ({spec.draws} draws per chain); "
                             "use `tempering extend` for more")
    return _run(path, attrs, spec, ledger, progress, on_done)


def extend_run(path: str | Path, draws: int, progress: bool = False,
               on_done: Callable[[str], Any] | None = None) -> Path:
    """Add ``draws`` draws per chain to the finished run in ``path``, writing it in place."""
    path = Path(path)
    if draws < 1:
        raise UserInputError(f"draws must be at least 1 (got {draws})")
    attrs, spec, ledger = _continued(path)
    if not bool((ledger.done >= spec.draws).all()):
        raise UserInputError(f"{path}: the run has not finished; use `tempering resume` first")
    return _run(path, attrs, spec.replace(draws=spec.draws + draws), ledger, progress, on_done)

