"""Validated CSV loading. Data files are read as text only (never pickle).

Hand-written rather than ``numpy.loadtxt``/pandas because every failure must become one line that
names the file, the row and the column (:class:`~tempering.errors.UserInputError`), and a header is
detected rather than required.
"""

from __future__ import annotations

import csv
import math
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tempering.errors import UserInputError

#: Bundled data sets by name: ``--set model.data=mcycle`` reads the packaged CSV.
BUNDLED: dict[str, str] = {"mcycle": "mcycle.csv", "coal": "coal.csv"}


class NumericTable(NamedTuple):
    """A CSV file's numeric contents: column names (``None`` when it had no header) and values."""

    columns: list[str] | None
    values: np.ndarray  # (rows, cols), float64


def resolve_data_path(spec: str) -> Path:
    """Return the path for a bundled data set name or a file path; fail with one line if missing."""
    if spec in BUNDLED:
        return Path(str(resources.files("tempering.data").joinpath(BUNDLED[spec])))
    path = Path(spec)
    if not path.is_file():
        raise UserInputError(f"data file not found: {spec}")
    return path


def _parse(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def read_numeric_csv(spec: str | Path, *, header: bool | None = None) -> NumericTable:
    """Read a rectangular CSV of finite numbers.

    Parameters
    ----------
    spec
        A path, or the name of a bundled data set (``"mcycle"``).
    header
        ``True``: the first row names the columns. ``False``: no header. ``None``: a header is
        assumed when the first row has any cell that is not a number.

    Raises
    ------
    UserInputError
        Missing or empty file, ragged rows, a cell that is not a number, NaN or infinity.
    """
    path = resolve_data_path(str(spec))
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle)
            # (line number in the file, cells): blank lines are skipped but still counted
            numbered = [(reader.line_num, row) for row in reader
                        if any(cell.strip() for cell in row)]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise UserInputError(f"{spec}: cannot be read as CSV text ({err})") from None
    if not numbered:
        raise UserInputError(f"{spec}: the file is empty")
    line_numbers, rows = zip(*numbered, strict=True)
    first = [cell.strip() for cell in rows[0]]
    has_header = header if header is not None else any(_parse(c) is None for c in first)
    columns = first if has_header else None
    body = rows[1:] if has_header else rows
    if not body:
        raise UserInputError(f"{spec}: no data rows")
    width = len(first)
    values = np.empty((len(body), width))
    body_lines = line_numbers[1:] if has_header else line_numbers
    for i, row in enumerate(body):
        line = body_lines[i]
        if len(row) != width:
            raise UserInputError(f"{spec}: row {line} has {len(row)} fields, expected {width}")
        for j, cell in enumerate(row):
            value = _parse(cell.strip())
            name = columns[j] if columns else str(j + 1)
            if value is None:
                raise UserInputError(
                    f"{spec}: row {line}, column {name}: {cell.strip()!r} is not a number"
                )
            if not math.isfinite(value):
                raise UserInputError(
                    f"{spec}: row {line}, column {name}: {cell.strip()} is not finite")
            values[i, j] = value
    return NumericTable(columns, values)
