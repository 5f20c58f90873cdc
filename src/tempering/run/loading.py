"""Reading a run file back as ArviZ ``InferenceData`` (:func:`load_run`): a finished run, or the
committed part of one still being written (``tempering summary`` and ``tempering report`` on a
day-long run while it runs). The draws stay on disk until used (ArviZ's lazy loading).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tempering.errors import UserInputError
from tempering.lazy_arviz import arviz
from tempering.run.output import CHECKPOINT_GROUP
from tempering.run.runfile import is_finished, is_streamed, opened, read_slot

if TYPE_CHECKING:
    import arviz as az


def load_run(path: str | Path, partial: bool = False) -> az.InferenceData:
    """Read a run file (NetCDF only; never pickle), its draws loaded lazily.

    A run that has not finished (still being written, or stopped) is refused in one line
    unless ``partial``: then its committed draws are read — the chains that have any, each up
    to the fewest any of them has — and the posterior's attributes gain ``committed_draws`` and
    ``planned_draws``.
    """
    az = arviz()
    path = Path(path)
    if not path.is_file():
        raise UserInputError(f"run file not found: {path}")
    try:
        idata = az.from_netcdf(path, engine="h5netcdf")
    except (OSError, ValueError) as err:
        raise UserInputError(f"{path}: not a tempering run file ({err})") from None
    missing = [group for group in ("posterior", "sample_stats") if group not in idata.groups()]
    if missing and CHECKPOINT_GROUP in idata.groups():  # a file of the whole-file format
        done = int(idata[CHECKPOINT_GROUP]["done"].values.min())
        raise UserInputError(f"{path}: an unfinished run (checkpoint at {done} draws per chain); "
                             f"continue it with `tempering resume {path}`")
    if missing:
        raise UserInputError(f"{path}: not a tempering run file (no {' or '.join(missing)} group)")
    if not is_streamed(path) or is_finished(path):
        return idata
    return _committed_part(path, idata, partial)


def _committed_part(path: Path, idata: az.InferenceData, partial: bool) -> az.InferenceData:
    az = arviz()
    with opened(path) as f:
        slot = read_slot(f)
    planned = int(idata["posterior"].sizes["draw"])
    done = np.zeros(1, np.int64) if slot is None else slot.done
    chains = np.flatnonzero(done > 0)
    committed = int(done[chains].min()) if chains.size else 0
    if not partial:
        raise UserInputError(f"{path}: an unfinished run ({committed} of {planned} draws per "
                             f"chain committed); continue it with `tempering resume {path}`")
    if committed == 0:
        raise UserInputError(f"{path}: an unfinished run with no draws committed yet")
    part = {group: idata[group].isel(chain=chains, draw=slice(0, committed))
            for group in ("posterior", "sample_stats")}
    part["posterior"] = part["posterior"].assign_attrs(committed_draws=committed,
                                                       planned_draws=planned)
    return az.InferenceData(posterior=part["posterior"], sample_stats=part["sample_stats"])
