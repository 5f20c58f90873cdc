"""Run output: ArviZ ``InferenceData`` built from xarray Datasets, written atomically to NetCDF.

``InferenceData`` is assembled from plain ``xarray.Dataset`` groups (``posterior``,
``sample_stats``) rather than ``arviz.from_dict``, whose signature changes in ArviZ 1.x; reading
and writing go through :func:`save_run` and :func:`load_run` only, so the move to ArviZ 1.x
(``xarray.DataTree``) touches this file alone. Run attributes live on the ``posterior`` group
(NetCDF attributes are strings and numbers; nested values are stored as JSON strings).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from tempering.errors import UserInputError
from tempering.models.base import Model


def _attr_value(value: Any) -> Any:
    if isinstance(value, str | int | float | bool | np.integer | np.floating):
        return value.item() if isinstance(value, np.generic) else value
    return json.dumps(value, default=lambda v: np.asarray(v).tolist())


RUNG_STATS = ("rung", "log_tempered", "log_weight")


def posterior_dataset(model: Model, draws: dict[str, np.ndarray],
                      rung_axis: bool = False) -> xr.Dataset:
    """Constrained draws {name: (chain, draw, *shape)} as a Dataset with named dims.

    With ``rung_axis`` the draws are (chain, draw, ladder, *shape): every rung's draw of a
    tempering run (PT with ``keep_all_rungs``), ladder position 0 the target; ``sample_stats`` then
    holds ``rung`` (the rung index of each ladder position), ``log_tempered`` and ``log_weight``
    with the same (chain, draw, ladder) dims. (The dimension is not called ``rung``: a variable
    may not share its name with a dimension.)
    """
    variables = {}
    for spec in model.params:
        values = np.asarray(draws[spec.name])
        dims = ["chain", "draw"] + (["ladder"] if rung_axis else []) + [
            f"{spec.name}_dim" if len(spec.shape) == 1 else f"{spec.name}_dim_{i}"
            for i in range(len(spec.shape))]
        variables[spec.name] = (dims, values)
    first = np.asarray(draws[model.params[0].name])
    coords = {"chain": np.arange(first.shape[0]), "draw": np.arange(first.shape[1])}
    return xr.Dataset(variables, coords=coords)


def build_inference_data(posterior: xr.Dataset, stats: dict[str, np.ndarray],
                         attrs: dict[str, Any]) -> az.InferenceData:
    """Assemble ``posterior`` + ``sample_stats`` (per-draw arrays (chain, draw, ...)) and attrs."""
    coords = {"chain": posterior["chain"].values, "draw": posterior["draw"].values}
    stat_vars = {}
    for name, values in stats.items():
        values = np.asarray(values)
        dims = ["chain", "draw"] + [f"{name}_dim_{i}" for i in range(values.ndim - 2)]
        if name in RUNG_STATS and "ladder" in posterior.dims and values.ndim == 3:
            dims[2] = "ladder"
        stat_vars[name] = (dims, values)
    sample_stats = xr.Dataset(stat_vars, coords=coords)
    posterior = posterior.assign_attrs({k: _attr_value(v) for k, v in attrs.items()})
    sample_stats = sample_stats.assign_attrs(posterior.attrs)
    return az.InferenceData(posterior=posterior, sample_stats=sample_stats)


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


def save_run(idata: az.InferenceData, path: str | Path) -> Path:
    """Write ``idata`` to NetCDF atomically: a temporary file in the same directory, then rename."""
    path = check_output_path(path)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600; a run file is an ordinary file
        idata.to_netcdf(tmp, engine="h5netcdf")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_run(path: str | Path) -> az.InferenceData:
    """Read a run file written by :func:`save_run` (NetCDF only; never pickle)."""
    path = Path(path)
    if not path.is_file():
        raise UserInputError(f"run file not found: {path}")
    try:
        idata = az.from_netcdf(path, engine="h5netcdf")
    except (OSError, ValueError) as err:
        raise UserInputError(f"{path}: not a tempering run file ({err})") from None
    missing = [group for group in ("posterior", "sample_stats") if group not in idata.groups()]
    if missing:
        raise UserInputError(f"{path}: not a tempering run file (no {' or '.join(missing)} group)")
    return idata


def run_attr(idata: az.InferenceData, name: str, default: Any = None) -> Any:
    """A run attribute, decoding JSON-encoded values."""
    value = idata.posterior.attrs.get(name, default)
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value
