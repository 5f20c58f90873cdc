"""Checkpoints: the state of a run, committed into its run file as the run goes, so a run can be
resumed after a crash (``tempering resume``) or extended when finished (``tempering extend``).

The draws themselves are appended to the run file's ``posterior`` and ``sample_stats`` as they are
made; a checkpoint adds, per chain (:mod:`tempering.run.runfile` says how it is committed):

- ``done`` — draws sampled so far, and ``warmed`` — whether warmup has finished (a chain that has
  not finished warmup starts again from its initial point: warmup is one compiled call);
- the algorithm state after the last finished draw and the adapted parameters, as the leaves of
  their pytrees. The structure is not stored: it is rebuilt from the sampler spec (the
  ``init``'s output shape), and every leaf's shape and dtype is checked against it on reading;
- the warmup cost, and the seconds spent so far (warmup, sampling, compilation, total).

Leaves are packed into one variable per dtype (``state__float64``, ``params__int32``, …; a state
has tens of leaves), their layout in the group's attributes beside the run's.

Because sampling draw ``u`` of a chain uses the key ``fold_in(sampling key, u)`` whatever the
chunking (:mod:`tempering.run.driver`), continuing from a checkpoint gives draws bitwise identical
to those of one uninterrupted run of the same total length on the same chain layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import numpy as np

from tempering.errors import UserInputError
from tempering.run.output import stale_writes
from tempering.run.runfile import RunFile, Slot, checkpoint_attrs, is_streamed, opened, read_slot


@dataclass
class Ledger:
    """Everything a run has produced so far, per chain (host arrays, leading axis = chain).

    Attributes
    ----------
    done, warmed
        Draws sampled so far per chain; whether each chain has finished warmup.
    state, params
        Pytrees of (chains, ...) arrays: each chain's state after its last draw (after warmup
        when ``done`` is 0) and its adapted parameters. Rows of chains not yet warmed are unused.
    record
        Raw per-draw records, name → (chains, draws, ...) arrays (``position`` unconstrained), of
        a run kept in memory (:class:`~tempering.run.sink.MemorySink`); empty for one that
        streams into its run file.
    warm_cost
        Warmup cost per chain.
    seconds
        Wall seconds so far: ``warmup``, ``sampling``, ``compile``.
    """

    done: np.ndarray
    warmed: np.ndarray
    state: Any
    params: Any
    record: dict[str, np.ndarray] = field(default_factory=dict)
    warm_cost: np.ndarray | None = None
    seconds: dict[str, float] = field(
        default_factory=lambda: {"warmup": 0.0, "sampling": 0.0, "compile": 0.0})

    @property
    def chains(self) -> int:
        return int(self.done.shape[0])

    def put(self, rows: Any, state: Any, params: Any) -> None:
        """Store ``state`` and ``params`` (device arrays of the chains in ``rows``)."""
        self.state = _set_rows(self.state, rows, state)
        self.params = _set_rows(self.params, rows, params)

    def put_records(self, rows: Any, start: int, record: dict[str, Any], draws: int) -> None:
        """Store draws ``start`` … of the chains in ``rows`` (records (rows, count, ...))."""
        for name, values in record.items():
            values = np.asarray(values)
            if name not in self.record:
                self.record[name] = np.zeros((self.chains, draws, *values.shape[2:]), values.dtype)
            self.record[name][rows, start:start + values.shape[1]] = values

    def padded(self, draws: int) -> None:
        """Grow the records to ``draws`` per chain (an extended run)."""
        for name, values in self.record.items():
            if values.shape[1] < draws:
                extra = np.zeros((values.shape[0], draws - values.shape[1], *values.shape[2:]),
                                 values.dtype)
                self.record[name] = np.concatenate([values, extra], axis=1)


def _set_rows(tree: Any, rows: Any, new: Any) -> Any:
    def put(old, value):
        old = np.array(old)
        old[rows] = np.asarray(value)
        return old
    return jax.tree.map(put, tree, new)


def empty_like(template: Any) -> Any:
    """Host zeros shaped like ``template`` (a pytree of arrays or ``ShapeDtypeStruct``).

    Algorithm states hold no typed PRNG key arrays (EE's rings store raw ``uint32`` key data): a
    typed key is refused here, so a checkpoint never has to guess a key's implementation.
    """
    def zeros(leaf):
        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            raise TypeError("an algorithm state holds a typed PRNG key: store its key data "
                            "(jax.random.key_data) so that it can be checkpointed")
        return np.zeros(leaf.shape, leaf.dtype)
    return jax.tree.map(zeros, template)


def to_device(tree: Any) -> Any:
    """Host leaves back to device arrays (a transfer: ``jnp.asarray`` would compile a small
    program per dtype)."""
    return jax.device_put(tree)


def take_rows(tree: Any, rows: Any) -> Any:
    """The rows ``rows`` (chains) of every leaf."""
    return jax.tree.map(lambda a: a[rows], tree)


def _numbered(tree: Any) -> list[tuple[str, np.ndarray]]:
    return [(str(i), np.asarray(leaf)) for i, leaf in enumerate(jax.tree.leaves(tree))]


def _pack(prefix: str, named: list[tuple[str, np.ndarray]]
          ) -> tuple[dict[str, np.ndarray], list[list[Any]]]:
    """Per-chain arrays (chain, ...) packed into one (chain, width) array per dtype, each array
    flattened after the chain axis and laid side by side. The layout lists [name, dtype,
    trailing shape, offset]."""
    columns: dict[str, list[np.ndarray]] = {}
    layout = []
    for name, value in named:
        value = np.asarray(value)
        dtype = value.dtype.str
        flat = value.reshape(value.shape[0], -1)
        offset = sum(c.shape[-1] for c in columns.get(dtype, []))
        columns.setdefault(dtype, []).append(flat)
        layout.append([name, dtype, list(value.shape[1:]), offset])
    packed = {f"{prefix}__{np.dtype(dtype).name}": np.concatenate(parts, axis=-1)
              for dtype, parts in columns.items()}
    return packed, layout


def _unpack(packed: dict[str, np.ndarray], prefix: str, layout: list[list[Any]]
            ) -> dict[str, np.ndarray]:
    out = {}
    for name, dtype, shape, offset in layout:
        values = packed[f"{prefix}__{np.dtype(dtype).name}"]
        size = int(np.prod(shape, dtype=np.int64))
        part = values[..., offset:offset + size]
        out[name] = part.reshape(values.shape[0], *shape).astype(np.dtype(dtype))
    return out


def packed_ledger(ledger: Ledger) -> tuple[dict[str, np.ndarray], dict[str, list[list[Any]]]]:
    """The ledger's state and parameters packed (name → (chain, width)), and their layouts
    (``state_layout``, ``params_layout``)."""
    packed: dict[str, np.ndarray] = {}
    layouts = {}
    for prefix, tree in (("state", ledger.state), ("params", ledger.params)):
        arrays, layouts[f"{prefix}_layout"] = _pack(prefix, _numbered(tree))
        packed |= arrays
    return packed, layouts


def commit(run_file: RunFile, ledger: Ledger) -> None:
    """Commit ``ledger`` (its per-chain state; its draws are in the file already)."""
    packed, _ = packed_ledger(ledger)
    assert ledger.warm_cost is not None
    run_file.commit(ledger.done, ledger.warmed, ledger.warm_cost, ledger.seconds, packed)


def _leaves_from(slot: Slot, prefix: str, layout: list[list[Any]], template: Any,
                 path: Path) -> Any:
    leaves, treedef = jax.tree.flatten(empty_like(template))
    stored = _unpack(slot.packed, prefix, layout)
    if len(stored) != len(leaves):
        raise UserInputError(f"{path}: checkpoint does not match the sampler ({len(stored)} "
                             f"{prefix} arrays, expected {len(leaves)})")
    out = []
    for i, want in enumerate(leaves):
        value = stored[str(i)]
        if value.shape != want.shape or value.dtype != want.dtype:
            raise UserInputError(f"{path}: checkpoint does not match the sampler ({prefix} {i} "
                                 f"is {value.dtype}{list(value.shape)}, expected "
                                 f"{want.dtype}{list(want.shape)})")
        out.append(value)
    return jax.tree.unflatten(treedef, out)


def _checked(path: str | Path) -> Path:
    """``path`` if it is a run file of this format; one clear line otherwise."""
    path = Path(path)
    if not path.is_file() and stale_writes(path):
        raise UserInputError(f"{path}: nothing to resume — the run stopped before its first "
                             "checkpoint was written; start it again with tempering sample")
    if not path.is_file():
        raise UserInputError(f"run file not found: {path}")
    if not is_streamed(path):
        raise UserInputError(f"{path}: no readable checkpoint (not a run file of this version "
                             "of tempering, or damaged)")
    return path


def read_attrs(path: str | Path) -> dict[str, Any]:
    """The run attributes a run file recorded for its checkpoints (what rebuilds its model and
    sampler)."""
    return {k: v for k, v in checkpoint_attrs(_checked(path)).items()
            if not k.endswith("_layout")}


def committed_slot(path: str | Path) -> Slot:
    """The last complete checkpoint of ``path``; one clear line when there is none."""
    path = _checked(path)
    try:
        with opened(path) as f:
            slot = read_slot(f)
    except (OSError, KeyError, ValueError) as err:
        reason = " ".join(str(err).split())[:160]
        raise UserInputError(f"{path}: no readable checkpoint ({reason})") from None
    if slot is None:
        raise UserInputError(f"{path}: nothing to resume — the run stopped before its first "
                             "checkpoint was written; start it again with tempering sample")
    return slot


def read_ledger(path: str | Path, state_template: Any, params_template: Any) -> Ledger:
    """The ledger of ``path``'s last complete checkpoint (no records: the draws stay in the
    file), leaves checked against the templates (pytrees of ``ShapeDtypeStruct`` over all
    chains)."""
    path = Path(path)
    slot = committed_slot(path)
    layouts = checkpoint_attrs(path)
    return Ledger(done=slot.done, warmed=slot.warmed,
                  state=_leaves_from(slot, "state", layouts["state_layout"], state_template,
                                     path),
                  params=_leaves_from(slot, "params", layouts["params_layout"],
                                      params_template, path),
                  warm_cost=slot.warm_cost, seconds=dict(slot.seconds))
