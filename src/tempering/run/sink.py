"""Where a run's draws go as they are made: kept in memory (:class:`MemorySink`, what
:func:`tempering.sample` returns) or appended to the run file with checkpoints committed into it
(:class:`FileSink`, ``tempering sample --out``). The runner (:mod:`tempering.run.runner`) makes
the same four calls on either: ``open`` once the record's shapes are known, ``put`` after each
chunk, ``commit`` when a checkpoint is due, ``close``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import jax
import numpy as np

from tempering.algorithms.base import Algorithm, declared_stats
from tempering.models.base import Model
from tempering.numerics import jit_once
from tempering.run import runfile
from tempering.run.checkpoint import Ledger, commit, packed_ledger
from tempering.run.output import attr_value, build_inference_data, param_dims, posterior_dataset

if TYPE_CHECKING:
    import arviz as az


class Sink(Protocol):
    """What the runner hands a run's draws and checkpoints to."""

    def open(self, ledger: Ledger, record: Mapping[str, jax.ShapeDtypeStruct]) -> None:
        """Before the first ``put`` or ``commit``: ``record`` is one draw's record per name."""

    def put(self, ledger: Ledger, rows: np.ndarray, start: int,
            record: Mapping[str, np.ndarray]) -> None:
        """Draws ``start`` … of the chains ``rows`` (records (rows, count, ...))."""

    def commit(self, ledger: Ledger) -> None:
        """A checkpoint is due: make the ledger's state durable."""

    def close(self) -> None:
        """The run has stopped (finished or not)."""

    def cost_total(self, ledger: Ledger) -> float:
        """The summed ``cost`` of every draw (after ``close``)."""

    def finish(self, ledger: Ledger, attrs: dict[str, Any]) -> az.InferenceData | None:
        """The run has finished with ``attrs``: the InferenceData (or ``None`` when it is in a
        file)."""


class MemorySink:
    """Draws kept in the ledger's records, (chains, draws, ...) per name; checkpoints are not
    kept anywhere."""

    def __init__(self, model: Model, algorithm: Algorithm, draws: int):
        self.model, self.algorithm, self.draws = model, algorithm, draws

    def open(self, ledger: Ledger, record: Mapping[str, jax.ShapeDtypeStruct]) -> None:
        ledger.padded(self.draws)  # a run extended in memory

    def put(self, ledger: Ledger, rows: np.ndarray, start: int,
            record: Mapping[str, np.ndarray]) -> None:
        ledger.put_records(rows, start, dict(record), self.draws)

    def commit(self, ledger: Ledger) -> None:
        pass

    def close(self) -> None:
        pass

    def cost_total(self, ledger: Ledger) -> float:
        return float(np.sum(ledger.record["cost"]))

    def finish(self, ledger: Ledger, attrs: dict[str, Any]) -> az.InferenceData | None:
        record = dict(ledger.record)
        theta = record.pop("position")
        posterior = posterior_dataset(self.model, constrainer(self.model, self.algorithm)(theta),
                                      self.algorithm.position_dims)
        return build_inference_data(posterior, record, declared_stats(self.algorithm.stats),
                                    attrs)


def constrainer(model: Model, algorithm: Algorithm) -> Callable[[Any], dict[str, np.ndarray]]:
    """Positions (chain, draw, *position_dims, dim) → the model's constrained variables, host
    arrays by name (one jitted function; it compiles once per chunk shape)."""
    constrain = model.constrain
    for _ in range(2 + len(algorithm.position_dims)):
        constrain = jax.vmap(constrain)
    jitted = jit_once(constrain)
    return lambda theta: {k: np.asarray(v) for k, v in jitted(theta).items()}  # host θ: no copy


class FileSink:
    """Draws appended to the run file ``path`` and checkpoints committed into it
    (:mod:`tempering.run.runfile`). With ``fresh`` the file is made on ``open`` (replacing
    any file of that name); otherwise the run goes on in the file that is there."""

    def __init__(self, path: str | Path, model: Model, algorithm: Algorithm, *, chains: int,
                 draws: int, attrs: Mapping[str, Any], checkpoint_attrs: Mapping[str, Any],
                 fresh: bool):
        self.path = Path(path)
        self.model, self.algorithm = model, algorithm
        self.chains, self.draws = chains, draws
        self.attrs = {k: attr_value(v) for k, v in attrs.items() if v is not None}
        self.checkpoint_attrs = dict(checkpoint_attrs)
        self.fresh = fresh
        self.constrain = constrainer(model, algorithm)
        self.run_file: runfile.RunFile | None = None

    def open(self, ledger: Ledger, record: Mapping[str, jax.ShapeDtypeStruct]) -> None:
        if self.run_file is not None:
            return
        if self.fresh:
            self.make(self.path, self.draws, ledger, record)
        self.run_file = runfile.RunFile(self.path)

    def make(self, path: Path, draws: int, ledger: Ledger,
             record: Mapping[str, jax.ShapeDtypeStruct]) -> None:
        """Make an empty run file at ``path`` for ``draws`` draws per chain."""
        packed, layouts = packed_ledger(ledger)
        layout = runfile.Layout(
            chains=self.chains, draws=draws, columns=self._columns(record),
            packed={name: (("chain", f"{name}_width"), value.shape, value.dtype.str)
                    for name, value in packed.items()})
        encoded = {k: json.dumps(v, default=lambda o: np.asarray(o).tolist())
                   for k, v in {**self.checkpoint_attrs, **layouts}.items()}
        runfile.create(path, layout, self.attrs, encoded)

    def _columns(self, record: Mapping[str, jax.ShapeDtypeStruct]) -> dict[str, runfile.Column]:
        position = record["position"]
        constrained = jax.eval_shape(self.model.constrain,
                                     jax.ShapeDtypeStruct(position.shape[-1:], position.dtype))
        lead = tuple(position.shape[:-1])
        columns = {}
        for spec in self.model.params:
            value = constrained[spec.name]
            columns[spec.name] = runfile.Column(
                "posterior", (*self.algorithm.position_dims, *param_dims(spec)),
                (*lead, *value.shape), value.dtype.str, {})
        for stat in declared_stats(self.algorithm.stats):
            shape = record[stat.name]
            columns[stat.name] = runfile.Column("sample_stats", stat.dims, tuple(shape.shape),
                                                np.dtype(shape.dtype).str,
                                                {"meaning": stat.meaning})
        return columns

    def put(self, ledger: Ledger, rows: np.ndarray, start: int,
            record: Mapping[str, np.ndarray]) -> None:
        assert self.run_file is not None
        stats = dict(record)
        posterior = self.constrain(stats.pop("position"))
        self.run_file.write_draws(rows, start, {"posterior": posterior, "sample_stats": stats})

    def commit(self, ledger: Ledger) -> None:
        if self.run_file is None and not self.fresh:  # a resumed run with nothing left to draw
            self.run_file = runfile.RunFile(self.path)
        assert self.run_file is not None, "FileSink.commit before open"
        commit(self.run_file, ledger)

    def close(self) -> None:
        if self.run_file is not None:
            self.run_file.close()
            self.run_file = None

    def cost_total(self, ledger: Ledger) -> float:
        return runfile.column_sum(self.path, "sample_stats", "cost")

    def finish(self, ledger: Ledger, attrs: dict[str, Any]) -> az.InferenceData | None:
        runfile.finish(self.path, {k: attr_value(v) for k, v in attrs.items() if v is not None})
        return None
