"""The reproductions' Markdown tables: numbers to meaningful digits (``fmt_number``,
``write_table``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tempering.experiments.report import fmt_number, write_table


@pytest.mark.parametrize(("value", "text"), [
    (1514.94687, "1515"),  # four digits before the point: an integer, not 1514.9469
    (2535.0, "2535"),  # a whole number as an integer
    (123456.7, "123457"),
    (0.5475701574264202, "0.5476"),
    (-3.14159, "-3.142"),
    (12.5, "12.5"),
    (0.001234567, "0.001235"),
    (1.2345e-05, "1.234e-05"),
    (3e20, "3e+20"),
    (-0.0, "0"),
    (math.nan, "—"),
    (math.inf, "—"),
    (None, "—"),
])
def test_fmt_number(value, text):
    assert fmt_number(value) == text


def test_fmt_number_digits():
    assert fmt_number(0.5475701574264202, 3) == "0.548"
    assert fmt_number(22913.4, 5) == "22913"


def test_write_table_rounds_floats(tmp_path):
    rows = [{"method": "st", "ess": 1514.94687, "paper": 2535.0, "n": 3,
             "ks": np.float32(0.0836123), "p": 1.2345e-5, "z": math.nan}]
    md, csv_path = write_table(rows, ("method", "ess", "paper", "n", "ks", "p", "z"),
                               tmp_path / "t", "Table")
    lines = md.read_text().splitlines()
    assert lines[-1] == "| st | 1515 | 2535 | 3 | 0.08361 | 1.234e-05 | — |"
    assert "1514.94687" in csv_path.read_text()  # the CSV keeps every digit
