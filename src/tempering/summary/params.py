"""Per-parameter rows of a run summary: mean, sd, ArviZ's bulk/tail ESS, rank R-hat and MCSE, and
the seed papers' Gelman–Rubin R-hat and between-chain ESS."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from tempering.estimators import ess_between_chain, gelman_rubin
from tempering.lazy_arviz import arviz

#: At most this many bytes of draws are read from a run file at once: a vector variable's
#: components come a block at a time, so a run larger than memory still summarises.
BLOCK_BYTES = 8 * 2**20


def component_blocks(var: Any) -> Iterator[tuple[int, np.ndarray]]:
    """A (chain, draw, ...) variable — lazily loaded from its run file — as blocks of its
    flattened components: ``(first, values)`` with ``values`` (chain, draw, k), components
    ``first`` … ``first + k − 1`` in C order, each block at most :data:`BLOCK_BYTES` (one
    slice of the first component dimension at least)."""
    if var.ndim == 2:
        yield 0, np.asarray(var.values)[:, :, None]
        return
    head, rest = var.dims[2], var.shape[3:]
    row_bytes = var.shape[0] * var.shape[1] * int(np.prod(rest)) * var.dtype.itemsize
    step = max(1, BLOCK_BYTES // max(row_bytes, 1))
    for start in range(0, var.shape[2], step):
        block = np.asarray(var.isel({head: slice(start, start + step)}).values)
        yield start * int(np.prod(rest)), block.reshape(block.shape[0], block.shape[1], -1)


def components(name: str, var: Any) -> Iterator[tuple[str, np.ndarray]]:
    """One (chain, draw, ...) variable's scalar components as ``(label, (chain, draw) array)``:
    ``name`` for a scalar, ``name[i]`` (``name[i,j]`` …) in C order otherwise, read a block at a
    time (:func:`component_blocks`; a caller that stops early reads no further)."""
    for first, block in component_blocks(var):
        if var.ndim == 2:
            yield name, block[:, :, 0]
            continue
        for k in range(block.shape[2]):
            index = np.unravel_index(first + k, var.shape[2:])
            yield f"{name}[{','.join(str(j) for j in index)}]", block[:, :, k]


def scalar_series(posterior: Any) -> Iterator[tuple[str, np.ndarray]]:
    """Every scalar component of every variable of ``posterior`` (:func:`components`)."""
    for name, var in posterior.data_vars.items():
        yield from components(str(name), var)


def _diagnostic(fn, values: np.ndarray, **kwargs) -> float:
    """An ArviZ diagnostic of a (chain, draw) array; NaN where it is undefined (under 4 draws).

    With one chain, ArviZ warns that it cannot validate the shape; the value is still defined
    (split-chain R-hat and ESS), so the warning is silenced rather than shown to the user. So is
    NumPy's division warning for chains that never moved (an infinite or NaN R-hat): the summary
    reports the value and warns about it in its own words (:mod:`tempering.summary.checks`).
    """
    if values.shape[1] < 4:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(fn(values, **kwargs))


def param_row(values: np.ndarray) -> dict[str, float]:
    """Mean, sd and diagnostics of one (chain, draw) series, and the share of draws defining it.

    A component that is NaN in some draws — an unused slot of a variable-dimension model, such as
    a change point beyond k (:mod:`tempering.models.changepoint`) — gets its mean and sd over the
    draws where it is defined (``defined`` < 1) and no ESS, R-hat or MCSE: those need a series
    with every draw.
    """
    az = arviz()
    defined = ~np.isnan(values)
    share = float(np.mean(defined))
    if share < 1.0:
        picked = values[defined]
        nan = float("nan")
        return {"mean": float(np.mean(picked)) if picked.size else nan,
                "sd": float(np.std(picked, ddof=1)) if picked.size > 1 else nan,
                "ess_bulk": nan, "ess_tail": nan, "rhat": nan, "mcse_mean": nan,
                "rhat_gr": nan, "ess_gr": nan, "defined": share}
    multi_chain = values.shape[0] >= 2
    gr = gelman_rubin(values) if multi_chain else None
    return {
        "mean": float(np.mean(values)),
        "sd": float(np.std(values, ddof=1)),
        "ess_bulk": _diagnostic(az.ess, values, method="bulk"),
        "ess_tail": _diagnostic(az.ess, values, method="tail"),
        "rhat": _diagnostic(az.rhat, values, method="rank"),
        "mcse_mean": _diagnostic(az.mcse, values, method="mean"),
        "rhat_gr": float(gr.rhat) if gr else float("nan"),
        "ess_gr": float(ess_between_chain(values)) if multi_chain else float("nan"),
        "defined": share,
    }
