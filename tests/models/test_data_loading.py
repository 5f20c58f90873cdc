"""Unit tests of CSV loading: ``read_numeric_csv``, ``resolve_data_path`` and GP ``load_xy``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tempering.data import BUNDLED, read_numeric_csv, resolve_data_path
from tempering.errors import UserInputError
from tempering.models.gp_regression import load_xy


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- resolve_data_path


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_resolve_bundled_names(name):
    path = resolve_data_path(name)
    assert path.is_file()
    assert path.name == BUNDLED[name]


def test_resolve_existing_file_path(tmp_path):
    path = write(tmp_path, "x.csv", "1,2\n")
    assert resolve_data_path(str(path)) == path


@pytest.mark.parametrize("spec", ["no_such_file.csv", "mcycle.csv", "MCYCLE"])
def test_resolve_missing_file(tmp_path, spec):
    with pytest.raises(UserInputError, match="data file not found") as err:
        resolve_data_path(str(tmp_path / spec))
    assert spec in str(err.value)


def test_resolve_directory_is_not_a_data_file(tmp_path):
    with pytest.raises(UserInputError, match="data file not found"):
        resolve_data_path(str(tmp_path))


# --------------------------------------------------------------------------- read_numeric_csv


def test_bundled_mcycle():
    table = read_numeric_csv("mcycle")
    assert table.columns == ["times", "accel"]
    assert table.values.shape == (133, 2)
    assert table.values.dtype == np.float64
    np.testing.assert_array_equal(table.values[0], [2.4, 0.0])
    np.testing.assert_array_equal(table.values[2], [3.2, -2.7])
    assert np.all(np.diff(table.values[:, 0]) >= 0)  # times are sorted
    assert np.all(np.isfinite(table.values))


def test_header_detected_from_text_cells(tmp_path):
    path = write(tmp_path, "h.csv", "a, b\n1,2\n3,4.5\n")
    table = read_numeric_csv(path)
    assert table.columns == ["a", "b"]
    np.testing.assert_array_equal(table.values, [[1, 2], [3, 4.5]])


def test_no_header_when_first_row_is_numeric(tmp_path):
    path = write(tmp_path, "n.csv", "1,2\n3,4\n-5e-1, 6 \n")
    table = read_numeric_csv(path)
    assert table.columns is None
    np.testing.assert_array_equal(table.values, [[1, 2], [3, 4], [-0.5, 6]])


def test_header_true_forces_first_row_as_names(tmp_path):
    path = write(tmp_path, "n.csv", "1,2\n3,4\n")
    table = read_numeric_csv(path, header=True)
    assert table.columns == ["1", "2"]
    np.testing.assert_array_equal(table.values, [[3, 4]])


def test_header_false_makes_text_first_row_an_error(tmp_path):
    path = write(tmp_path, "h.csv", "a,b\n1,2\n")
    with pytest.raises(UserInputError) as err:
        read_numeric_csv(path, header=False)
    message = str(err.value)
    assert "h.csv" in message and "row 1, column 1" in message and "'a'" in message


def test_blank_lines_are_skipped_but_counted_in_row_numbers(tmp_path):
    path = write(tmp_path, "blank.csv", "a,b\n\n1,2\n   \n3,4\n\n")
    np.testing.assert_array_equal(read_numeric_csv(path).values, [[1, 2], [3, 4]])
    bad = write(tmp_path, "blank_bad.csv", "a,b\n\n1,2\n\n3,x\n")
    with pytest.raises(UserInputError, match=r"row 5, column b: 'x' is not a number"):
        read_numeric_csv(bad)


def test_utf8_byte_order_mark_is_ignored(tmp_path):
    path = write(tmp_path, "bom.csv", b"\xef\xbb\xbf1,2\n3,4\n")
    table = read_numeric_csv(path)
    assert table.columns is None
    np.testing.assert_array_equal(table.values, [[1, 2], [3, 4]])
    named = write(tmp_path, "bom_named.csv", b"\xef\xbb\xbfx,y\n1,2\n")
    assert read_numeric_csv(named).columns == ["x", "y"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param("1,2\n3\n", ["row 2 has 1 fields, expected 2"], id="ragged-short"),
        pytest.param("a,b\n1,2\n3,4,5\n", ["row 3 has 3 fields, expected 2"], id="ragged-long"),
        pytest.param("a,b\n1,x\n", ["row 2, column b", "'x' is not a number"], id="text"),
        pytest.param("1,2\n3,\n", ["row 2, column 2", "'' is not a number"], id="empty-cell"),
        pytest.param("a,b\n1,2\nnan,3\n", ["row 3, column a", "not finite"], id="nan"),
        pytest.param("1,2\n3,inf\n", ["row 2, column 2", "not finite"], id="inf"),
        pytest.param("a,b\n-Infinity,1\n", ["row 2, column a", "not finite"], id="neg-inf"),
        pytest.param("", ["the file is empty"], id="empty"),
        pytest.param("\n \n\n", ["the file is empty"], id="blank-only"),
        pytest.param("a,b\n", ["no data rows"], id="header-only"),
    ],
)
def test_malformed_csv(tmp_path, content, expected):
    path = write(tmp_path, "bad.csv", content)
    with pytest.raises(UserInputError) as err:
        read_numeric_csv(path)
    message = str(err.value)
    assert str(path) in message
    for fragment in expected:
        assert fragment in message
    assert "\n" not in message


def test_not_utf8_text(tmp_path):
    path = write(tmp_path, "binary.csv", b"\xff\xfe\x00\x81,\x90\n")
    with pytest.raises(UserInputError, match="cannot be read as CSV text") as err:
        read_numeric_csv(path)
    assert "binary.csv" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(UserInputError, match="data file not found") as err:
        read_numeric_csv(tmp_path / "absent.csv")
    assert "absent.csv" in str(err.value)


def test_user_input_error_is_a_value_error():
    assert issubclass(UserInputError, ValueError)


# --------------------------------------------------------------------------- gp load_xy


def test_load_xy_mcycle_uses_accel_as_y():
    x, y, covariates = load_xy("mcycle")
    table = read_numeric_csv("mcycle")
    assert covariates == ["times"]
    assert x.shape == (133, 1) and y.shape == (133,)
    np.testing.assert_array_equal(x[:, 0], table.values[:, 0])
    np.testing.assert_array_equal(y, table.values[:, 1])


def test_load_xy_y_column_anywhere(tmp_path):
    path = write(tmp_path, "xy.csv", "a,y,b\n1,10,100\n2,20,200\n3,30,300\n")
    x, y, covariates = load_xy(str(path))
    assert covariates == ["a", "b"]
    np.testing.assert_array_equal(y, [10, 20, 30])
    np.testing.assert_array_equal(x, [[1, 100], [2, 200], [3, 300]])


def test_load_xy_without_y_column(tmp_path):
    path = write(tmp_path, "noy.csv", "a,b\n1,2\n3,4\n")
    with pytest.raises(UserInputError, match="no column named y") as err:
        load_xy(str(path))
    assert "noy.csv" in str(err.value) and "a, b" in str(err.value)


def test_load_xy_headerless_file_has_no_y(tmp_path):
    path = write(tmp_path, "numbers.csv", "1,2\n3,4\n")
    with pytest.raises(UserInputError, match="no column named y"):
        load_xy(str(path))


def test_load_xy_needs_a_covariate(tmp_path):
    path = write(tmp_path, "only_y.csv", "y\n1\n2\n")
    with pytest.raises(UserInputError, match="at least one covariate") as err:
        load_xy(str(path))
    assert "only_y.csv" in str(err.value)


def test_load_xy_propagates_csv_errors(tmp_path):
    path = write(tmp_path, "bad_xy.csv", "x,y\n1,2\n3,oops\n")
    with pytest.raises(UserInputError, match=r"row 3, column y: 'oops' is not a number"):
        load_xy(str(path))
