"""Bundled small data sets (see SOURCES.md) and validated CSV loading."""

from tempering.data.loaders import BUNDLED, NumericTable, read_numeric_csv, resolve_data_path

__all__ = ["BUNDLED", "NumericTable", "read_numeric_csv", "resolve_data_path"]
