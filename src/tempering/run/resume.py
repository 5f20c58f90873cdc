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
from tempering.run.driver import ChainMethod, new_ledger, start_attrs
from tempering.run.files import run_built
from tempering.run.output import attr_value
from tempering.run.progress import done_line
from tempering.run.runfile import grow, has_commit, is_finished
from tempering.run.spec import RunSpec


class _Continued:
    """A run file's recorded spec, its model and sampler rebuilt, and its last checkpoint."""

    def __init__(self, path: Path):
        self.path = path
        self.attrs = read_attrs(path)
        self.spec = RunSpec.from_attrs(self.attrs, source=f"{path}: checkpoint")
        self.model, self.algorithm = self.spec.build()
        self.ledger: Ledger | None = None
        # a Dask run whose client died before merging has no commit: its groups' files carry it
        if self.spec.chain_method != ChainMethod.DASK or has_commit(path):
            template = new_ledger(self.algorithm, self.model, key=self.spec.key,
                                  chains=self.spec.chains, init=self.spec.init)
            self.ledger = read_ledger(path, template.state, template.params)

    def run(self, spec: RunSpec, progress: bool, on_done: Callable[[str], Any] | None) -> Path:
        attrs = run_built(spec, self.model, self.algorithm, out=self.path, progress=progress,
                          checkpoint_every=self.attrs.get("checkpoint_every"),
                          resume=self.ledger, continued=True)
        if on_done is not None:
            on_done(done_line(attrs))
        return self.path


def resume_run(path: str | Path, progress: bool = False,
               on_done: Callable[[str], Any] | None = None) -> Path:
    """Continue the interrupted run in ``path`` from its last checkpoint, writing it in place. A
    Dask run whose client died goes on from its groups' files.

    Raises
    ------
    UserInputError
        No readable checkpoint (missing, truncated or damaged file, or one killed before its
        first checkpoint), one that does not match the sampler it names, or a run that has
        already finished (extend it instead).
    """
    path = Path(path)
    run = _Continued(path)
    if is_finished(path):
        raise UserInputError(f"{path}: the run has finished ({run.spec.draws} draws per chain); "
                             "use `tempering extend` for more")
    return run.run(run.spec, progress, on_done)


def extend_run(path: str | Path, draws: int, progress: bool = False,
               on_done: Callable[[str], Any] | None = None) -> Path:
    """Add ``draws`` draws per chain to the finished run in ``path``, writing it in place (the
    file is first copied into one with room for them)."""
    path = Path(path)
    if draws < 1:
        raise UserInputError(f"draws must be at least 1 (got {draws})")
    run = _Continued(path)
    if not is_finished(path):
        raise UserInputError(f"{path}: the run has not finished; use `tempering resume` first")
    longer = run.spec.replace(draws=run.spec.draws + draws)
    resolved = longer.resolved(run.model, run.algorithm).to_attrs()
    attrs = start_attrs(run.model, run.algorithm, resolved)
    grow(path, longer.draws, {k: attr_value(v) for k, v in attrs.items() if v is not None},
         resolved)
    return run.run(longer, progress, on_done)
