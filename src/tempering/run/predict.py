"""Predictions for new covariates from a GP run file (seed 002 Eqs. 25–28 over the run's draws).

The model is rebuilt from the run's recorded name and options (``model``, ``model_options``); its
recorded attributes (standardisation constants, generating θ, ...) must match the rebuilt model's,
so a data file that changed since the run is caught rather than silently used
(:func:`model_from_run`, for any model; the run summary's predictive checks use it too). The draws
are the run's constrained posterior values mapped back to θ (GP models log-transform every
parameter, :func:`posterior_theta`; models whose ``constrain`` only reshapes θ,
:func:`posterior_theta_identity`; the round trip through ``model.constrain`` is checked), thinned
evenly to at most ``max_draws``.

If the model standardised its data, new covariates are scaled with the recorded ``x_mean`` and
``x_sd``, and predictions mapped back: mean ↦ y_mean + y_sd · mean, sd ↦ y_sd · sd.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.base import RUNG
from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.gp.predict import posterior_predictive
from tempering.models.base import Model
from tempering.run.loading import load_run
from tempering.run.output import check_output_path, run_attr

if TYPE_CHECKING:
    import arviz as az


class Predictions(NamedTuple):
    """Covariates as given (with their column names) and the predictive mean and sd of y*."""

    columns: list[str]
    x: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    n_draws: int


def _same(recorded, rebuilt) -> bool:
    """Recorded and rebuilt attribute values agree (numbers to 1e-12 relative)."""
    try:
        return bool(np.allclose(np.asarray(recorded, float), np.asarray(rebuilt, float),
                                rtol=1e-12, atol=0.0))
    except (TypeError, ValueError):
        return recorded == rebuilt


def model_from_run(idata: az.InferenceData, source: str | Path) -> Model:
    """Rebuild a run's model from its recorded name and options; check its recorded attrs."""
    from tempering.models import get_model

    name = run_attr(idata, "model")
    options = run_attr(idata, "model_options", {})
    if not isinstance(name, str) or not isinstance(options, dict):
        raise UserInputError(f"{source}: not a tempering run file (no model name or options)")
    try:
        model = get_model(name, **options)
    except UserInputError as err:
        raise UserInputError(f"{source}: cannot rebuild model {name}: {err}") from None
    recorded = run_attr(idata, "model_attrs", {})
    for key, value in (recorded if isinstance(recorded, dict) else {}).items():
        if key in model.attrs and not _same(value, model.attrs[key]):
            raise UserInputError(f"{source}: the data of model {name} changed since the run "
                                 f"({key} differs); cannot predict")
    return model


def gp_model_from_run(idata: az.InferenceData, source: str | Path) -> Model:
    """:func:`model_from_run` for a GP model (what ``predict`` needs); others are an error."""
    model = model_from_run(idata, source)
    if model.gp is None:
        raise UserInputError(f"{source}: model {model.name} is not a GP model; predict needs "
                             "gp_regression or gp_const")
    return model


def _target_mask(idata: az.InferenceData) -> np.ndarray | None:
    """For a run that kept every rung's draws: where the draw is of the target (rung 0)."""
    stats = idata["sample_stats"]
    return np.asarray(stats[RUNG].values) == 0 if RUNG in stats else None


def posterior_draws(model: Model, idata: az.InferenceData, max_draws: int,
                    target_only: bool = False) -> np.ndarray:
    """The run's constrained draws (S, model.dim): each of ``model.params`` flattened and
    concatenated in ``params`` order, thinned evenly to at most ``max_draws``.

    ``target_only``: of a run that kept every rung's draws (a ``rung`` statistic), only the
    target's; of a run whose positions have a ladder axis but no ``rung`` statistic, rung 0.
    """
    posterior = idata["posterior"]
    keep = _target_mask(idata) if target_only else None
    pieces = []
    for spec in model.params:
        if spec.name not in posterior:
            raise UserInputError(f"run has no posterior variable {spec.name!r} of {model.name}")
        values = np.asarray(posterior[spec.name].values, float)
        lead = values.ndim - len(spec.shape)
        values = values.reshape(*values.shape[:lead], spec.size)
        if keep is not None:
            values = values[keep]
        elif target_only and lead > 2:
            values = values[:, :, 0]
        pieces.append(values.reshape(-1, spec.size))
    constrained = np.concatenate(pieces, axis=1)
    if constrained.shape[0] > max_draws:
        keep_rows = np.round(np.linspace(0, constrained.shape[0] - 1, max_draws)).astype(int)
        constrained = constrained[keep_rows]
    return constrained


def theta_from_constrained(model: Model, constrained: np.ndarray,
                           unconstrain: Callable[[np.ndarray], np.ndarray], message: str,
                           check_rows: int | None = None) -> np.ndarray:
    """θ = ``unconstrain(constrained)``, checked: finite, and ``model.constrain`` maps it back to
    the draws (on the first ``check_rows`` rows; all by default); else ``message`` as the error."""
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = unconstrain(constrained)
    rows = theta if check_rows is None else theta[:check_rows]
    back = jax.vmap(model.constrain)(jnp.asarray(rows))
    again = np.concatenate([np.asarray(back[s.name]).reshape(len(rows), s.size)
                            for s in model.params], axis=1)
    if not np.all(np.isfinite(theta)) or not np.allclose(again, constrained[:len(rows)],
                                                         rtol=1e-10):
        raise UserInputError(message)
    return theta


def posterior_theta(model: Model, idata: az.InferenceData, max_draws: int) -> np.ndarray:
    """A GP run's draws as unconstrained θ (S, dim) (every parameter log-transformed), thinned
    evenly to at most ``max_draws``."""
    return theta_from_constrained(
        model, posterior_draws(model, idata, max_draws), np.log,
        f"model {model.name}: the run's draws are not positive log-transformed parameters; "
        "cannot map them back to θ")


def posterior_theta_identity(model: Model, idata: az.InferenceData, max_draws: int,
                             target_only: bool = True) -> np.ndarray:
    """The draws as θ (S, dim) for a model whose ``constrain`` only reshapes θ (logistic, bnn,
    tied_means): the flattened arrays concatenated in ``params`` order (checked on a few rows)."""
    return theta_from_constrained(
        model, posterior_draws(model, idata, max_draws, target_only), lambda c: c,
        f"model {model.name}: constrain is not the identity on the run's draws; cannot map "
        "them back to θ", check_rows=8)


def read_new_x(path: str | Path, model: Model) -> tuple[list[str], np.ndarray]:
    """New covariates from a CSV, columns ordered as in training; returns (names, values)."""
    dim = int(model.data["x"].shape[1])
    table = read_numeric_csv(str(path), header=None)
    names = model.attrs.get("covariates")
    columns, values = table.columns, table.values
    if columns is not None and names:
        if sorted(columns) != sorted(names) or len(set(columns)) != len(columns):
            raise UserInputError(f"{path}: columns {', '.join(columns)} do not match the "
                                 f"model's covariates {', '.join(names)}")
        values = values[:, [columns.index(c) for c in names]]
        columns = list(names)
    if values.shape[1] != dim:
        raise UserInputError(f"{path}: {values.shape[1]} covariate column(s), the model has {dim}")
    return columns or list(names or []) or [f"x{j + 1}" for j in range(dim)], values


def predict_run(run: str | Path, x_path: str | Path, max_draws: int = 500) -> Predictions:
    """Posterior predictive mean and sd of y* at the rows of ``x_path`` (Eqs. 25–28)."""
    if max_draws < 1:
        raise UserInputError(f"--max-draws must be at least 1 (got {max_draws})")
    idata = load_run(run)
    model = gp_model_from_run(idata, run)
    columns, x_new = read_new_x(x_path, model)
    theta = posterior_theta(model, idata, max_draws)
    attrs = model.attrs
    scaled = x_new
    if attrs.get("standardized") and "x_mean" in attrs:
        scaled = (x_new - np.asarray(attrs["x_mean"])) / np.asarray(attrs["x_sd"])
    moments = posterior_predictive(model.gp, jnp.asarray(theta), model.data["x"], model.data["y"],
                                   jnp.asarray(scaled))
    mean, var = np.asarray(moments.mean), np.asarray(moments.var)
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(var)) and np.all(var > 0)):
        raise UserInputError(f"{run}: predictions are not finite (a draw's covariance could not "
                             "be factorised)")
    sd = np.sqrt(var)
    if attrs.get("standardized") and "y_mean" in attrs:
        mean, sd = attrs["y_mean"] + attrs["y_sd"] * mean, attrs["y_sd"] * sd
    return Predictions(columns, x_new, mean, sd, len(theta))


def write_predictions(predictions: Predictions, path: str | Path) -> Path:
    """Write covariates, ``mean`` and ``sd`` as CSV, atomically (temporary file, then rename)."""
    path = check_output_path(path)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as stream:
            writer = csv.writer(stream)
            writer.writerow([*predictions.columns, "mean", "sd"])
            for row, mean, sd in zip(predictions.x, predictions.mean, predictions.sd, strict=True):
                writer.writerow([repr(float(v)) for v in (*row, mean, sd)])
        mask = os.umask(0o022)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
