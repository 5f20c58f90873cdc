"""Run output: ArviZ ``InferenceData`` built from xarray Datasets, written atomically to NetCDF.

``InferenceData`` is assembled from plain ``xarray.Dataset`` groups (``posterior``,
``sample_stats``) rather than ``arviz.from_dict``, whose signature changes in ArviZ 1.x; reading
and writing go through :func:`save_run` and :func:`~tempering.run.loading.load_run` only, so
the move to ArviZ 1.x (``xarray.DataTree``) touches these files alone (with
:mod:`tempering.run.runfile`, into which a run of ``tempering sample`` streams). Run attributes
live on the ``posterior`` group (NetCDF attributes are strings and numbers; nested values are
stored as JSON strings; ``None`` is not stored). Each ``sample_stats`` variable carries the
one-line ``meaning`` its sampler declares.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tempering.algorithms.base import Stat
from tempering.errors import UserInputError
from tempering.lazy_arviz import arviz
from tempering.models.base import Model

if TYPE_CHECKING:
    import arviz as az
    import xarray as xr


def attr_value(value: Any) -> Any:
    if isinstance(value, str | int | float | bool | np.integer | np.floating):
        return value.item() if isinstance(value, np.generic) else value
    return json.dumps(value, default=lambda v: np.asarray(v).tolist())


def param_dims(spec: Any) -> list[str]:
    """The dims of a model variable's own axes: ``x_dim`` for a vector, ``x_dim_0``, … else."""
    return [f"{spec.name}_dim" if len(spec.shape) == 1 else f"{spec.name}_dim_{i}"
            for i in range(len(spec.shape))]


def posterior_dataset(model: Model, draws: dict[str, np.ndarray],
                      position_dims: tuple[str, ...] = ()) -> xr.Dataset:
    """Constrained draws {name: (chain, draw, *position_dims, *shape)} as a Dataset with named
    dims: ``chain``, ``draw``, the algorithm's declared ``position_dims`` (e.g. ``ladder`` for every
    rung's draw of PT with ``keep_all_rungs``, position 0 the target) and each variable's own."""
    import xarray as xr  # not at the top: a run written to a file needs no xarray

    variables = {}
    for spec in model.params:
        values = np.asarray(draws[spec.name])
        dims = ["chain", "draw", *position_dims, *param_dims(spec)]
        variables[spec.name] = (dims, values)
    first = np.asarray(draws[model.params[0].name])
    coords = {"chain": np.arange(first.shape[0]), "draw": np.arange(first.shape[1])}
    return xr.Dataset(variables, coords=coords)


def stats_dataset(stats: dict[str, np.ndarray], declared: tuple[Stat, ...],
                  coords: dict[str, np.ndarray]) -> xr.Dataset:
    """Per-draw statistics (chain, draw, *dims) with the dims and meaning each :class:`Stat`
    declares.

    Raises
    ------
    RuntimeError
        A statistic written without a declaration, a declared one missing, or one whose array
        does not have its declared number of dims (an algorithm breaking its own contract).
    """
    import xarray as xr

    by_name = {stat.name: stat for stat in declared}
    if set(stats) != set(by_name):
        raise RuntimeError(f"statistics written {sorted(stats)} differ from those declared "
                           f"{sorted(by_name)}")
    variables = {}
    for name, values in stats.items():
        values, stat = np.asarray(values), by_name[name]
        if values.ndim != 2 + len(stat.dims):
            raise RuntimeError(f"statistic {name} has shape {values.shape}, declared (chain, "
                               f"draw{''.join(', ' + d for d in stat.dims)})")
        variables[name] = xr.Variable(("chain", "draw", *stat.dims), values,
                                      attrs={"meaning": stat.meaning})
    return xr.Dataset(variables, coords=coords)


def build_inference_data(posterior: xr.Dataset, stats: dict[str, np.ndarray],
                         declared: tuple[Stat, ...], attrs: dict[str, Any]) -> az.InferenceData:
    """Assemble ``posterior`` + ``sample_stats`` (declared per-draw statistics) and run attrs."""
    az = arviz()
    coords = {"chain": posterior["chain"].values, "draw": posterior["draw"].values}
    sample_stats = stats_dataset(stats, declared, coords)
    posterior = posterior.assign_attrs({k: attr_value(v) for k, v in attrs.items()
                                        if v is not None})
    sample_stats = sample_stats.assign_attrs(posterior.attrs)
    return az.InferenceData(posterior=posterior, sample_stats=sample_stats)


#: The run-file group that holds a run's checkpoint (:mod:`tempering.run.checkpoint`).
CHECKPOINT_GROUP = "checkpoint"


def check_output_path(path: str | Path) -> Path:
    """Fail with one line, before any work is done, if ``path`` cannot be written."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UserInputError(f"output directory does not exist: {parent}")
    if path.is_dir():
        raise UserInputError(f"output path is a directory: {path}")
    if not os.access(parent, os.W_OK):
        raise UserInputError(f"output directory is not writable: {parent}")
    return path


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def stale_writes(path: str | Path) -> list[Path]:
    """The temporary files an interrupted :func:`write_atomically` of ``path`` left behind."""
    path = Path(path)
    return sorted(path.parent.glob(f".{path.name}.*.tmp"))


def write_atomically(path: str | Path, write: Callable[[str], Any]) -> Path:
    """Call ``write(tmp)`` on a temporary file in ``path``'s directory, then rename it over
    ``path``: a reader (or a crash) never sees a half-written file, and the previous file stays
    intact until the new one is complete. Temporary files of an earlier write that was killed
    are removed first (a run file has one writer at a time)."""
    path = check_output_path(path)
    for stale in stale_writes(path):
        stale.unlink(missing_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600; a run file is an ordinary file
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def save_run(idata: az.InferenceData, path: str | Path) -> Path:
    """Write ``idata`` to NetCDF atomically: a temporary file in the same directory, then rename."""
    return write_atomically(path, lambda tmp: idata.to_netcdf(tmp, engine="h5netcdf"))


def run_attr(idata: az.InferenceData, name: str, default: Any = None) -> Any:
    """A run attribute, decoding JSON-encoded values."""
    value = idata["posterior"].attrs.get(name, default)
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value
