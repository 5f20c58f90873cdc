"""Checkpoints: the whole state of a run, written into its run file, so a run can be resumed
after a crash (``tempering resume``) or extended when finished (``tempering extend``).

A checkpoint is the NetCDF group ``checkpoint`` of the run file (no pickle). It holds, per chain:

- ``done`` — draws sampled so far, and ``warmed`` — whether warmup has finished (a chain that has
  not finished warmup starts again from its initial point: warmup is one compiled call);
- the algorithm state after the last finished draw and the adapted parameters, as the leaves of
  their pytrees. The structure is not stored: it is rebuilt from the sampler spec (the
  ``init``'s output shape), and every leaf's shape and dtype is checked against it on reading;
- the raw records of the draws so far (unconstrained positions and the per-draw statistics),
  padded to the run's length;
- the warmup cost, and the seconds spent so far (warmup, sampling, compilation).

Leaves and records are packed into one variable per dtype (``state__float64``, ``record__int32``,
…; an HDF5 variable costs milliseconds to write, and a state has tens of leaves), their layout in
the group's attributes.

Because sampling draw ``u`` of a chain uses the key ``fold_in(sampling key, u)`` whatever the
chunking (:mod:`tempering.run.driver`), continuing from a checkpoint gives draws bitwise identical
to those of one uninterrupted run of the same total length on the same chain layout.

An unfinished run's file holds only this group and the run's attributes; a finished run's file
holds it beside ``posterior`` and ``sample_stats`` (so it can be extended). The file is always
replaced atomically (temporary file, then rename), so a crash while writing leaves the previous
checkpoint intact.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from tempering.errors import UserInputError
from tempering.run.output import CHECKPOINT_GROUP, stale_writes, write_atomically

GROUP = CHECKPOINT_GROUP


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
        Raw per-draw records, name → (chains, draws, ...) arrays (``position`` unconstrained).
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
    """Host leaves back to device arrays."""
    return jax.tree.map(jnp.asarray, tree)


def take_rows(tree: Any, rows: Any) -> Any:
    """The rows ``rows`` (chains) of every leaf."""
    return jax.tree.map(lambda a: a[rows], tree)


def _pack(prefix: str, named: list[tuple[str, np.ndarray]], lead: tuple[str, ...],
          ) -> tuple[dict[str, xr.DataArray], list[list[Any]]]:
    """Arrays sharing ``lead`` leading axes packed into one variable per dtype (an HDF5 variable
    costs milliseconds to write, and a state has tens of leaves): each array flattened after the
    leading axes and laid side by side. The layout lists [name, dtype, trailing shape, offset]."""
    columns: dict[str, list[np.ndarray]] = {}
    layout = []
    for name, value in named:
        value = np.asarray(value)
        dtype = value.dtype.str
        flat = value.reshape(*value.shape[:len(lead)], -1)
        offset = sum(c.shape[-1] for c in columns.get(dtype, []))
        columns.setdefault(dtype, []).append(flat)
        layout.append([name, dtype, list(value.shape[len(lead):]), offset])
    variables = {}
    for dtype, parts in columns.items():
        key = f"{prefix}__{np.dtype(dtype).name}"
        variables[key] = xr.DataArray(np.concatenate(parts, axis=-1),
                                      dims=[*lead, f"{key}_width"])
    return variables, layout


def _unpack(ds: xr.Dataset, prefix: str, layout: list[list[Any]], lead: int
            ) -> dict[str, np.ndarray]:
    out = {}
    for name, dtype, shape, offset in layout:
        packed = np.asarray(ds[f"{prefix}__{np.dtype(dtype).name}"].values)
        size = int(np.prod(shape, dtype=np.int64))
        part = packed[..., offset:offset + size]
        out[name] = part.reshape(*packed.shape[:lead], *shape).astype(np.dtype(dtype))
    return out


def ledger_dataset(ledger: Ledger, attrs: dict[str, Any]) -> xr.Dataset:
    """The ledger as the ``checkpoint`` group; ``attrs`` (JSON-ready run attributes) go along."""
    variables = {
        "done": xr.DataArray(ledger.done.astype(np.int64), dims=["chain"]),
        "warmed": xr.DataArray(ledger.warmed.astype(np.int8), dims=["chain"]),
        "warm_cost": xr.DataArray(np.asarray(ledger.warm_cost if ledger.warm_cost is not None
                                             else np.zeros(ledger.chains)), dims=["chain"]),
    }
    layouts = {}
    for prefix, named, lead in (
            ("state", _numbered(ledger.state), ("chain",)),
            ("params", _numbered(ledger.params), ("chain",)),
            ("record", sorted(ledger.record.items()), ("chain", "draw"))):
        packed, layouts[f"{prefix}_layout"] = _pack(prefix, named, lead)
        variables |= packed
    encoded = {k: json.dumps(v, default=lambda o: np.asarray(o).tolist())
               for k, v in {**attrs, **layouts}.items()}
    encoded["seconds"] = json.dumps(ledger.seconds)
    return xr.Dataset(variables, attrs=encoded)


def _numbered(tree: Any) -> list[tuple[str, np.ndarray]]:
    return [(str(i), np.asarray(leaf)) for i, leaf in enumerate(jax.tree.leaves(tree))]


def _leaves_from(ds: xr.Dataset, prefix: str, template: Any, path: Path) -> Any:
    leaves, treedef = jax.tree.flatten(empty_like(template))
    stored = _unpack(ds, prefix, _layout(ds, prefix), 1)
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


def _layout(ds: xr.Dataset, prefix: str) -> list[list[Any]]:
    return json.loads(ds.attrs.get(f"{prefix}_layout", "[]"))


def read_attrs(path: str | Path) -> dict[str, Any]:
    """The run attributes a checkpoint recorded (what rebuilds its model and sampler)."""
    ds = open_checkpoint(path)
    return {k: json.loads(v) for k, v in ds.attrs.items()
            if k != "seconds" and not k.endswith("_layout")}


def open_checkpoint(path: str | Path) -> xr.Dataset:
    """The ``checkpoint`` group of a run file, loaded; one clear error when it is missing or the
    file is damaged."""
    path = Path(path)
    if not path.is_file() and stale_writes(path):
        raise UserInputError(f"{path}: nothing to resume — the run stopped before its first "
                             "checkpoint was written; start it again with tempering sample")
    if not path.is_file():
        raise UserInputError(f"run file not found: {path}")
    try:
        with xr.open_dataset(path, group=GROUP, engine="h5netcdf") as ds:
            loaded = ds.load()
    except (OSError, ValueError, KeyError) as err:
        reason = " ".join(str(err).split())[:160]
        raise UserInputError(f"{path}: no readable checkpoint ({reason})") from None
    if "done" not in loaded or "warmed" not in loaded:
        raise UserInputError(f"{path}: no readable checkpoint (done/warmed missing)")
    return loaded


def read_ledger(path: str | Path, state_template: Any, params_template: Any) -> Ledger:
    """The ledger in ``path``'s checkpoint, leaves checked against the templates (pytrees of
    ``ShapeDtypeStruct`` over all chains)."""
    path = Path(path)
    ds = open_checkpoint(path)
    record = _unpack(ds, "record", _layout(ds, "record"), 2)
    return Ledger(done=np.asarray(ds["done"].values, np.int64),
                  warmed=np.asarray(ds["warmed"].values).astype(bool),
                  state=_leaves_from(ds, "state", state_template, path),
                  params=_leaves_from(ds, "params", params_template, path),
                  record=record, warm_cost=np.asarray(ds["warm_cost"].values),
                  seconds=json.loads(ds.attrs.get("seconds", "{}"))
                  or {"warmup": 0.0, "sampling": 0.0, "compile": 0.0})


def write_run_file(path: str | Path, ledger: Ledger, attrs: dict[str, Any],
                   idata: az.InferenceData | None = None) -> Path:
    """Write ``path`` atomically: the finished run ``idata`` (when given) and the checkpoint.

    The file is first written whole under a temporary name in the same directory and then renamed
    over ``path``, so the previous file (the last good checkpoint) is intact until the new one is
    complete.
    """
    def write(tmp: str) -> None:
        mode: Literal["w", "a"] = "w"
        if idata is not None:
            idata.to_netcdf(tmp, engine="h5netcdf")
            mode = "a"
        ledger_dataset(ledger, attrs).to_netcdf(tmp, mode=mode, group=GROUP, engine="h5netcdf")

    return write_atomically(path, write)
