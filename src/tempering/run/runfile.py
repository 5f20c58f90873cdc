"""The run file, written as the run goes: draws appended in place, checkpoints committed by one
small write (:class:`RunFile`).

A run file is NetCDF-4 (HDF5, through h5netcdf and h5py) with three groups:

- ``posterior`` and ``sample_stats``: the constrained draws and the declared per-draw statistics,
  (chain, draw, ...), as ArviZ reads them; the finished run's attributes on both;
- ``checkpoint``: what resumes the run (:mod:`tempering.run.checkpoint`), in two *slots* — each
  chain's draw count, warmup flag and cost, the algorithm state and adapted parameters (packed
  one variable per dtype), the seconds so far — and ``commit``, the slot that holds the last
  complete checkpoint (−1: none yet).

Why it is safe to kill at any instant. Every variable is created at its full size when the file
is made, with its space allocated then (HDF5's early allocation, no fill values written), under a
temporary name that is renamed into place only once complete. From then on a run writes raw bytes
at fixed places and never changes the file's HDF5 metadata — until the run ends and its
attributes are written. A checkpoint appends the draws since the last one, writes the new state
into the slot that ``commit`` does not name, flushes, and then writes ``commit`` (8 bytes, one
``pwrite``) and flushes again. So a process killed at any byte leaves ``commit`` naming a slot
whose state and draws are all on disk: the last complete checkpoint. A reader (``tempering
summary`` on a run still going) reads ``commit`` first and then only the draws it covers. The
writer takes no HDF5 file lock, so readers in other processes can open the file while it runs;
two writers of one file are not guarded against.

Resident memory is bounded by a chunk of draws, not the run: nothing is kept once written.
``grow`` makes a file with room for more draws (``tempering extend``) by copying it, chunk by
chunk, under a temporary name.

Written by hand (with h5netcdf and h5py underneath) because neither xarray nor ArviZ appends to a
NetCDF variable in place, and HDF5's own crash-consistent mode (SWMR) leaves a killed writer's
file unopenable until ``h5clear`` has run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import h5netcdf
import h5py
import numpy as np

from tempering.run.output import CHECKPOINT_GROUP, check_output_path, write_atomically

#: The format's version, an attribute of the file's root.
FORMAT = 2
#: Order of the ``seconds`` entries of a slot.
SECONDS = ("warmup", "sampling", "compile", "total")
#: The per-chain entries of a slot and their dtypes.
SLOT_SCALARS = {"done": np.int64, "warmed": np.int8, "warm_cost": np.float64}
#: Draws copied at a time by :func:`grow` and merged at a time from a Dask group's file.
COPY_BYTES = 32 * 1024**2


class Column(NamedTuple):
    """One per-draw variable: its group, its dims after (chain, draw), their sizes, its dtype
    and attributes."""

    group: str
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    dtype: str
    attrs: Mapping[str, Any]


class Layout(NamedTuple):
    """What a run file is made with: chains, draws, the per-draw ``columns`` by name, and the
    packed checkpoint variables ``packed`` (name → (dims after slot, shape, dtype))."""

    chains: int
    draws: int
    columns: Mapping[str, Column]
    packed: Mapping[str, tuple[tuple[str, ...], tuple[int, ...], str]]


def _early(dtype: np.dtype) -> Any:
    """A dataset-creation property list that allocates the space at creation and writes no fill
    values (a later write of draws is raw bytes at a fixed place, no metadata change)."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_NEVER)
    return dcpl


def _stored(dtype: str) -> tuple[np.dtype, dict[str, str]]:
    """How xarray stores a dtype in NetCDF-4: booleans as int8 with ``dtype: bool``."""
    if np.dtype(dtype) == np.bool_:
        return np.dtype(np.int8), {"dtype": "bool"}
    return np.dtype(dtype), {}


def create(path: Path, layout: Layout, attrs: Mapping[str, Any],
           checkpoint_attrs: Mapping[str, str]) -> Path:
    """Make the run file ``path`` for ``layout``: every variable at full size, ``commit`` −1;
    ``attrs`` (NetCDF-ready) on ``posterior`` and ``sample_stats``, ``checkpoint_attrs`` (JSON
    strings) on ``checkpoint``. Written under a temporary name and renamed into place."""
    def write(tmp: str) -> None:
        with h5netcdf.File(tmp, "w") as f:
            f.attrs["tempering_run_file"] = FORMAT
            for group in ("posterior", "sample_stats"):
                _make_draw_group(f, group, layout, attrs)
            _make_checkpoint_group(f, layout, checkpoint_attrs)
    return write_atomically(path, write)


def _make_draw_group(f: Any, name: str, layout: Layout, attrs: Mapping[str, Any]) -> None:
    group = f.create_group(name)
    dims = {"chain": layout.chains, "draw": layout.draws}
    for column in layout.columns.values():
        if column.group == name:
            dims |= dict(zip(column.dims, column.shape, strict=True))
    group.dimensions = dims
    group.create_variable("chain", ("chain",), data=np.arange(layout.chains, dtype=np.int64))
    group.create_variable("draw", ("draw",), data=np.arange(layout.draws, dtype=np.int64))
    for key, column in layout.columns.items():
        if column.group != name:
            continue
        dtype, extra = _stored(column.dtype)
        variable = group.create_variable(key, ("chain", "draw", *column.dims), dtype=dtype,
                                         dcpl=_early(dtype))
        variable.attrs.update({**column.attrs, **extra})
    group.attrs.update(attrs)


def _make_checkpoint_group(f: Any, layout: Layout, attrs: Mapping[str, str]) -> None:
    group = f.create_group(CHECKPOINT_GROUP)
    dims = {"slot": 2, "chain": layout.chains, "seconds_kind": len(SECONDS)}
    for dims_after, shape, _ in layout.packed.values():
        dims |= dict(zip(dims_after, shape, strict=True))
    group.dimensions = dims
    for name, kind in SLOT_SCALARS.items():
        group.create_variable(name, ("slot", "chain"), data=np.zeros((2, layout.chains), kind))
    group.create_variable("seconds", ("slot", "seconds_kind"),
                          data=np.zeros((2, len(SECONDS))))
    for name, (dims_after, _, dtype) in layout.packed.items():
        stored, _ = _stored(dtype)  # a state's boolean leaves are packed as int8
        group.create_variable(name, ("slot", *dims_after), dtype=stored, dcpl=_early(stored))
    group.create_variable("commit", (), data=np.int64(-1))
    group.attrs.update(attrs)


class Slot(NamedTuple):
    """One committed checkpoint as read back: per-chain counts, flags and costs, the seconds, and
    the packed variables (name → (chain, width) array)."""

    done: np.ndarray
    warmed: np.ndarray
    warm_cost: np.ndarray
    seconds: dict[str, float]
    packed: dict[str, np.ndarray]


def _open(path: Path, mode: str) -> h5py.File:
    """The file open for writing through h5py, without HDF5's file lock, so that readers in
    other processes may open a file being written (readers keep HDF5's default, so that they
    can share a process with ArviZ's open files). Tests replace this to log or cut the
    writes."""
    return h5py.File(path, mode, locking=False)


class RunFile:
    """A run file open for appending draws and committing checkpoints (one writer)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.file = _open(self.path, "r+")
        self.checkpoint = self.file[CHECKPOINT_GROUP]
        self.slot = int(self.checkpoint["commit"][()])

    def close(self) -> None:
        self.file.close()

    def write_draws(self, rows: np.ndarray, start: int,
                    groups: Mapping[str, Mapping[str, np.ndarray]]) -> None:
        """Draws ``start`` … of the chains ``rows``: group → name → (rows, count, ...)."""
        index = _rows(rows)
        for group, columns in groups.items():
            for name, values in columns.items():
                dataset = _variable(self.file[group], name)
                values = np.asarray(values)
                dataset[index, start:start + values.shape[1]] = values.astype(dataset.dtype)

    def commit(self, done: np.ndarray, warmed: np.ndarray, warm_cost: np.ndarray,
               seconds: Mapping[str, float], packed: Mapping[str, np.ndarray]) -> None:
        """Write a checkpoint into the free slot, then name it in ``commit``: the draws written
        before and this state are on disk before ``commit`` changes."""
        slot = 1 - self.slot if self.slot >= 0 else 0
        group = self.checkpoint
        group["done"][slot] = np.asarray(done, np.int64)
        group["warmed"][slot] = np.asarray(warmed, np.int8)
        group["warm_cost"][slot] = np.asarray(warm_cost, np.float64)
        group["seconds"][slot] = [float(seconds.get(k, 0.0)) for k in SECONDS]
        for name, values in packed.items():
            group[name][slot] = np.asarray(values).astype(group[name].dtype)
        self.file.flush()
        group["commit"][()] = slot
        self.file.flush()
        self.slot = slot

    def committed(self) -> Slot | None:
        """The last complete checkpoint, or ``None`` before the first."""
        return read_slot(self.file)


def _variable(group: h5py.Group, name: str) -> h5py.Dataset:
    """A NetCDF variable's dataset: one named like a dimension of its group but not that
    dimension's coordinate is stored as ``_nc4_non_coord_NAME`` (NetCDF-4's rule)."""
    dataset = group[name]
    return group[f"_nc4_non_coord_{name}"] if dataset.ndim < 2 else dataset


def _rows(rows: np.ndarray) -> Any:
    """A slice for contiguous chains (HDF5 writes a hyperslab), else the sorted indices."""
    rows = np.asarray(rows)
    if rows.size and np.array_equal(rows, np.arange(rows[0], rows[0] + rows.size)):
        return slice(int(rows[0]), int(rows[0]) + rows.size)
    return rows


def read_slot(f: h5py.File) -> Slot | None:
    """The committed slot of an open run file, or ``None`` when nothing is committed."""
    group = f[CHECKPOINT_GROUP]
    slot = int(group["commit"][()])
    if slot < 0:
        return None
    seconds = dict(zip(SECONDS, map(float, group["seconds"][slot]), strict=True))
    packed = {name: np.asarray(group[name][slot]) for name in group
              if "__" in name and group[name].ndim == 3}  # (slot, chain, width)
    return Slot(done=np.asarray(group["done"][slot], np.int64),
                warmed=np.asarray(group["warmed"][slot]).astype(bool),
                warm_cost=np.asarray(group["warm_cost"][slot], np.float64),
                seconds=seconds, packed=packed)


def has_commit(path: str | Path) -> bool:
    """Whether ``path`` is a run file of this format with a committed checkpoint."""
    if not is_streamed(path):
        return False
    with opened(path) as f:
        return int(f[CHECKPOINT_GROUP]["commit"][()]) >= 0


def is_streamed(path: str | Path) -> bool:
    """Whether ``path`` is a run file of this format (rather than one written whole)."""
    try:
        with h5py.File(path, "r") as f:
            return int(np.ravel(f.attrs.get("tempering_run_file", 0))[0]) >= FORMAT
    except OSError:
        return False


def checkpoint_attrs(path: str | Path) -> dict[str, Any]:
    """The ``checkpoint`` group's attributes, JSON-decoded."""
    with h5py.File(path, "r") as f:
        return {k: json.loads(_text(v)) for k, v in f[CHECKPOINT_GROUP].attrs.items()}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def finish(path: Path, attrs: Mapping[str, Any]) -> None:
    """Write the finished run's attributes on ``posterior`` and ``sample_stats`` (the only
    metadata a run changes after the file is made)."""
    with h5netcdf.File(path, "r+", locking=False) as f:
        for group in ("posterior", "sample_stats"):
            f[group].attrs.update(attrs)


def column_sum(path: Path, group: str, name: str) -> float:
    """The sum of a per-draw variable over every chain and draw, read a chunk at a time."""
    with opened(path) as f:
        dataset = f[group][name]
        per_draw = int(np.prod(dataset.shape[2:], dtype=np.int64)) * dataset.dtype.itemsize
        return float(sum(np.sum(dataset[:, part], dtype=np.float64)
                         for part in draw_chunks(dataset.shape[1], per_draw * dataset.shape[0])))


def draw_chunks(draws: int, per_draw_bytes: int) -> Iterator[slice]:
    """Slices of the draw axis of about :data:`COPY_BYTES` each."""
    step = max(1, COPY_BYTES // max(1, per_draw_bytes))
    for start in range(0, draws, step):
        yield slice(start, min(draws, start + step))


def copy_draws(source: h5py.File, target: h5py.File, rows: Any, start: int, stop: int) -> None:
    """Copy draws ``start`` … ``stop − 1`` of chains ``rows`` of every per-draw variable, a
    chunk of draws at a time."""
    index = _rows(np.asarray(rows)) if not isinstance(rows, slice) else rows
    for group in ("posterior", "sample_stats"):
        for name, dataset in source[group].items():
            if name in ("chain", "draw") or dataset.ndim < 2:
                continue
            per_draw = int(np.prod(dataset.shape[2:], dtype=np.int64)) * dataset.dtype.itemsize
            for part in draw_chunks(stop - start, per_draw * dataset.shape[0]):
                part = slice(start + part.start, start + part.stop)
                target[group][name][index, part] = dataset[index, part]


@contextmanager
def opened(path: str | Path) -> Iterator[h5py.File]:
    """``path`` open for reading."""
    with h5py.File(path, "r") as f:
        yield f


def layout_of(f: Any, draws: int) -> Layout:
    """The layout of an open run file (h5netcdf), with ``draws`` draws per chain."""
    columns = {}
    for group in ("posterior", "sample_stats"):
        for name, variable in f[group].variables.items():
            if name in ("chain", "draw"):
                continue
            columns[name] = Column(group, tuple(variable.dimensions[2:]),
                                   tuple(variable.shape[2:]), variable.dtype.str,
                                   dict(variable.attrs))
    checkpoint = f[CHECKPOINT_GROUP]
    packed = {name: (tuple(v.dimensions[1:]), tuple(v.shape[1:]), v.dtype.str)
              for name, v in checkpoint.variables.items() if "__" in name}
    return Layout(chains=int(f["posterior"].dimensions["chain"].size), draws=draws,
                  columns=columns, packed=packed)


def grow(path: Path, draws: int, attrs: Mapping[str, Any],
         checkpoint_updates: Mapping[str, Any]) -> None:
    """Give the run file ``path`` room for ``draws`` draws per chain (``tempering extend``): a
    new file with the same variables, the posterior attributes ``attrs`` and the checkpoint's
    updated by ``checkpoint_updates`` (JSON-encoded here), into which the draws and the
    committed checkpoint are copied a chunk at a time; it then replaces ``path``. The old file
    stays until the new one is complete."""
    tmp = path.parent / f".{path.name}.grow.nc"
    check_output_path(path)
    try:
        with h5netcdf.File(path, "r") as f:
            layout = layout_of(f, draws)
            old = {k: _text(v) for k, v in f[CHECKPOINT_GROUP].attrs.items()}
        updates = {k: json.dumps(v, default=lambda o: np.asarray(o).tolist())
                   for k, v in checkpoint_updates.items()}
        create(tmp, layout, attrs, {**old, **updates})
        with opened(path) as source, _open(tmp, "r+") as target:
            copy_draws(source, target, slice(0, layout.chains), 0,
                       int(source["posterior"]["draw"].shape[0]))
            committed = int(source[CHECKPOINT_GROUP]["commit"][()])
            if committed >= 0:
                group = target[CHECKPOINT_GROUP]
                for name in (*SLOT_SCALARS, "seconds", *layout.packed):
                    group[name][0] = source[CHECKPOINT_GROUP][name][committed]
                target.flush()
                group["commit"][()] = 0
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def is_finished(path: str | Path) -> bool:
    """Whether the run in ``path`` has finished: every chain's draws committed and the run's
    attributes written."""
    with opened(path) as f:
        slot = read_slot(f)
        draws = int(f["posterior"]["draw"].shape[0])
        return (slot is not None and bool((slot.done >= draws).all())
                and "wall_seconds_total" in f["posterior"].attrs)

