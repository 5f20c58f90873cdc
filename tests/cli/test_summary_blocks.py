"""The summary reads a run file's draws a block of components at a time (at most
``params.BLOCK_BYTES`` of draws in memory per block), so a run larger than memory still
summarises: the blocks cover the variable exactly, the summary is the same whatever the block
size, and a stuck chain is still found when every block holds one component."""

from __future__ import annotations

import numpy as np
import xarray as xr
from test_summary_warnings import hand_run

from tempering.run.loading import load_run
from tempering.summary import params
from tempering.summary.checks import stuck_warnings
from tempering.summary.params import component_blocks, scalar_series
from tempering.summary.summarize import summarize

CHAINS, DRAWS, DIM = 3, 40, 5
ROW = CHAINS * DRAWS * 8  # one component's draws, in bytes


def theta(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(CHAINS, DRAWS, DIM))


def test_blocks_cover_the_variable_within_the_byte_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(params, "BLOCK_BYTES", 2 * ROW)
    var = load_run(hand_run(tmp_path / "r.nc", theta())).posterior["theta"]
    blocks = list(component_blocks(var))
    assert [first for first, _ in blocks] == [0, 2, 4]
    assert max(block.nbytes for _, block in blocks) <= 2 * ROW
    np.testing.assert_array_equal(np.concatenate([b for _, b in blocks], axis=2), var.values)


def test_the_summary_does_not_depend_on_the_block_size(tmp_path, monkeypatch):
    path = hand_run(tmp_path / "r.nc", theta(1))
    whole = summarize(load_run(path))
    monkeypatch.setattr(params, "BLOCK_BYTES", 1)  # one component per block
    np.testing.assert_equal(summarize(load_run(path)), whole)


def test_components_of_a_matrix_variable_are_named_in_c_order(monkeypatch):
    monkeypatch.setattr(params, "BLOCK_BYTES", 1)
    values = np.arange(2 * 4 * 3 * 2, dtype=float).reshape(2, 4, 3, 2)
    posterior = xr.Dataset({"m": (("chain", "draw", "row", "col"), values),
                            "s": (("chain", "draw"), values[..., 0, 0])})
    series = dict(scalar_series(posterior))
    assert list(series) == ["m[0,0]", "m[0,1]", "m[1,0]", "m[1,1]", "m[2,0]", "m[2,1]", "s"]
    np.testing.assert_array_equal(series["m[2,1]"], values[:, :, 2, 1])
    np.testing.assert_array_equal(series["s"], values[:, :, 0, 0])


def test_a_stuck_chain_is_found_block_by_block(tmp_path, monkeypatch):
    monkeypatch.setattr(params, "BLOCK_BYTES", 1)
    draws = theta(2)
    draws[1] = draws[1, 0]  # chain 1 never moves, in every component
    draws[0, :, -1] = draws[0, 0, -1]  # chain 0 moves in every component but the last block's
    warnings = stuck_warnings(load_run(hand_run(tmp_path / "r.nc", draws)))
    assert len(warnings) == 1 and warnings[0].startswith("chain 1 of 3 never moved"), warnings
