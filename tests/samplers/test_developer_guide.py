"""The developer guide's skeleton sampler (docs/developer-guide.md), run as the guide prints it:
the block is written to a module, its ``SPEC`` registered, its draws checked against the analytic
posterior of ``mvn_mean``, and the sampler run through ``sample``, ``summary`` and ``rerun``. A
guide whose code no longer works fails here."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli
from support import Z_BOUND, z_mean

from tempering import SAMPLERS, get_model, load_run
from tempering.models.mvn_mean import analytic_posterior

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "developer-guide.md"
MARKER = "<!-- skeleton: tests/samplers/test_developer_guide.py runs this block -->"


def skeleton_source() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    after = text[text.index(MARKER) + len(MARKER):]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    path = tmp_path_factory.mktemp("guide") / "toy_rwm.py"
    path.write_text(skeleton_source(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_rwm", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["toy_rwm"] = module
    spec.loader.exec_module(module)
    SAMPLERS.register(module.SPEC)
    yield module.SPEC
    SAMPLERS.unregister(module.SPEC.name)
    del sys.modules["toy_rwm"]


def test_the_skeleton_runs_through_the_cli_and_recovers_the_posterior(toy, tmp_path, capsys):
    out = tmp_path / "toy.nc"
    code, _, err = run_cli(["sample", "--model", "mvn_mean", "--set", "model.n=20",
                            "--set", "model.dim=2", "--set", "model.data_seed=3",
                            "--sampler", toy.name, "--set", "sampler.step_size=0.3",
                            "--chains", "2", "--draws", "1500", "--warmup", "200", "--seed", "5",
                            "--no-progress", "--out", out], capsys)
    assert code == 0, err
    idata = load_run(out)
    assert idata.sample_stats["jump"].dims == ("chain", "draw")
    theta = idata.posterior["theta"].values
    mean, _ = analytic_posterior(get_model("mvn_mean", n=20, dim=2, data_seed=3))
    scores = [z_mean(theta[..., j], float(mean[j])) for j in range(2)]
    assert max(abs(z) for z in scores) < Z_BOUND, scores
    code, stdout, err = run_cli(["summary", out], capsys)
    assert code == 0 and "theta" in stdout, err
    code, _, err = run_cli(["rerun", out, "--out", tmp_path / "again.nc", "--no-progress"],
                           capsys)
    assert code == 0, err
    np.testing.assert_array_equal(load_run(out).posterior["theta"].values,
                                  load_run(tmp_path / "again.nc").posterior["theta"].values)
