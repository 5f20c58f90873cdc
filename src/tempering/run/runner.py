"""Running batches of chains into a run's ledger and sink (:class:`Runner`), and when to
checkpoint (:class:`Checkpointing`); the driver (:mod:`tempering.run.driver`) makes one per run.

Each chunk's records go to the sink (:mod:`tempering.run.sink`: memory or the run file) and are
dropped; the progress bar's statistics are running tallies (:class:`HeadlineTally`), so a run
that writes a file holds one chunk of draws at a time."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import numpy as np

from tempering.algorithms.programs import Compiled
from tempering.run.checkpoint import Ledger, take_rows, to_device
from tempering.run.progress import HeadlineTally, RunProgress
from tempering.run.sink import Sink


class Checkpointing(NamedTuple):
    """When the runner commits its ledger to the sink: after warmup, then whenever ``every``
    more draws are done or ``seconds`` have passed since the last commit (at the end of a chunk;
    ``every`` also caps the chunk length)."""

    every: int | None = None
    seconds: float | None = None


class Keys(NamedTuple):
    """Per-chain keys of the initial point, warmup and sampling, and the initial positions."""

    init: jax.Array
    warm: jax.Array
    sample: jax.Array
    positions: jax.Array


def _of(values: jax.Array, rows: np.ndarray) -> jax.Array:
    """``values[rows]``, without a gather (a small compiled program) when ``rows`` are all of
    them in order, as for chains run as one batch."""
    if len(rows) == values.shape[0] and np.array_equal(rows, np.arange(len(rows))):
        return values
    return values[rows]


@dataclass
class Runner:
    """Runs batches of chains into the ledger and the sink: init and warmup where a chain has
    not been warmed, then sampling from each chain's draw count on, committing a checkpoint when
    one is due; the bar moves on as each phase starts and ends."""

    compiled: Compiled
    keys: Keys
    ledger: Ledger
    shown: RunProgress
    checkpointing: Checkpointing | None
    sink: Sink
    warmup: int
    draws: int
    chunk: int
    on_progress: Callable[[str, int], Any] | None = None
    tally: HeadlineTally = None  # type: ignore[assignment]  # made in __post_init__
    last_write: float = 0.0
    started: float = 0.0
    total_before: float = 0.0

    def __post_init__(self) -> None:
        self.last_write = self.started = time.perf_counter()
        self.total_before = self.ledger.seconds.get("total", 0.0)
        self.tally = HeadlineTally(self.shown.headlines, self.ledger.chains)

    def clock(self) -> None:
        """Bring the ledger's total wall seconds (all sessions of the run) up to now."""
        self.ledger.seconds["total"] = self.total_before + time.perf_counter() - self.started

    def run(self, rows: np.ndarray) -> None:
        ledger = self.ledger
        if (ledger.done[rows] >= self.draws).all():
            return
        warmed = bool(ledger.warmed[rows].all())
        params = to_device(take_rows(ledger.params, rows))
        start = (_of(self.keys.init, rows), _of(self.keys.positions, rows))
        if warmed:
            state = to_device(take_rows(ledger.state, rows))
        elif self.warmup > 0:  # the warmup's program starts the chains: shapes are enough
            state = jax.eval_shape(self.compiled.init, *start)
        else:
            state = jax.block_until_ready(self.compiled.init(*start))
        self._prepare(rows, start, state, params, warmed)
        self.sink.open(ledger, self.compiled.record_shapes(len(rows), self.chunk))
        if not warmed:
            state, params = self._warm(rows, start, state, params)
        self._sample(rows, state, params)

    def _prepare(self, rows: np.ndarray, start: tuple, state: Any, params: Any,
                 warmed: bool) -> None:
        if self.compiled.prepared(len(rows), self.warmup, self.chunk, warmed):
            return
        self.shown.compiling()
        before = self.compiled.compile_seconds
        self.compiled.prepare(start, _of(self.keys.warm, rows), _of(self.keys.sample, rows),
                              state, params, self.warmup, self.chunk, warmed)
        spent = self.compiled.compile_seconds - before
        self.ledger.seconds["compile"] = self.ledger.seconds.get("compile", 0.0) + spent
        self.shown.compiled(spent)

    def _warm(self, rows: np.ndarray, start: tuple, state: Any, params: Any
              ) -> tuple[Any, Any]:
        """Warm the chains up from ``start`` (``state`` is the started chains when there is no
        warmup) and record them in the ledger."""
        t0 = time.perf_counter()
        cost = np.zeros(len(rows))
        if self.warmup > 0:
            self.shown.warming()
            state, params, cost = self.compiled.warmup(start, _of(self.keys.warm, rows), params,
                                                       self.warmup)
        jax.block_until_ready(state)
        seconds = time.perf_counter() - t0
        ledger = self.ledger
        ledger.seconds["warmup"] = ledger.seconds.get("warmup", 0.0) + seconds
        ledger.put(rows, state, params)
        ledger.warmed[rows] = True
        assert ledger.warm_cost is not None
        ledger.warm_cost[rows] = np.asarray(cost)
        if self.warmup > 0:
            self.shown.warmed(self.warmup * len(rows), seconds)
            self._tell("warmup", self.warmup * len(rows))
            if self._due(0, 0):
                self._write()
        return state, params

    def _sample(self, rows: np.ndarray, state: Any, params: Any) -> None:
        ledger, n = self.ledger, len(rows)
        self.shown.sampling()
        t0 = time.perf_counter()
        first = int(ledger.done[rows].min())
        keys = _of(self.keys.sample, rows)
        for start in range(first, self.draws, self.chunk):
            length = min(self.chunk, self.draws - start)
            state, record = self.compiled.chunk(keys, state, params, start, length, self.chunk)
            record = jax.tree.map(np.asarray, record)
            self.sink.put(ledger, rows, start, record)
            self.tally.add(record, rows)
            del record
            ledger.done[rows] = start + length
            self.shown.sampled(length * n, (start + length - first) * n,
                               time.perf_counter() - t0, self.tally.text())
            self._tell("sampling", length * n)
            if start + length < self.draws and self._due(start, start + length):
                ledger.put(rows, state, params)
                self._write()
        seconds = time.perf_counter() - t0
        ledger.seconds["sampling"] = ledger.seconds.get("sampling", 0.0) + seconds
        ledger.put(rows, state, params)
        self.shown.batch_sampled(seconds)

    def _tell(self, phase: str, count: int) -> None:
        if self.on_progress is not None:
            self.on_progress(phase, count)

    def _due(self, before: int, after: int) -> bool:
        policy = self.checkpointing
        if policy is None:
            return False
        if policy.every and (after == before or after // policy.every > before // policy.every):
            return True  # (after == before: warmup has ended)
        return bool(policy.seconds and time.perf_counter() - self.last_write >= policy.seconds)

    def _write(self) -> None:
        if self.checkpointing is not None:
            self.clock()
            self.sink.commit(self.ledger)
            self.last_write = time.perf_counter()
