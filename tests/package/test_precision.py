"""Precision per model (issue 45, part 1; :mod:`tempering.precision`): importing and using the
package changes no global JAX setting; a float32 model's run and a float64 model's run in one
process each compute in their own precision, and the run file says which; a user chooses another
with the model option ``precision``; and the rule's premise — float32 is accurate enough for the
models it is the default of — holds on each of them.

The first checks run in fresh interpreters: this one enables float64 globally (tests/conftest.py),
as a user may."""

from __future__ import annotations

import json
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering.errors import UserInputError
from tempering.models import MODELS, get_model
from tempering.precision import scope


def fresh(script: str) -> dict:
    """Run ``script`` in a fresh interpreter; it prints one JSON line last."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


TWO_RUNS = """
import json, jax, jax.numpy as jnp
import tempering
from tempering.run.output import run_attr
before = jax.config.read("jax_enable_x64")
out = {}
for name, options in (("mvn_mean", {}), ("gp_const", {"n": 20})):
    model = tempering.get_model(name, **options)
    algorithm = tempering.get_sampler("rwm", model)
    idata = tempering.sample(model, algorithm, key=0, chains=2, draws=20, warmup=10,
                             progress=False)
    draws = idata.posterior[list(idata.posterior.data_vars)[0]]
    out[name] = [str(draws.dtype), run_attr(idata, "precision"),
                 str(jnp.ones(2).dtype)]
out["x64_before"] = before
out["x64_after"] = jax.config.read("jax_enable_x64")
print(json.dumps(out))
"""


def test_runs_keep_their_precision_and_the_process_keeps_its_own():
    out = fresh(TWO_RUNS)
    assert out["x64_before"] is False and out["x64_after"] is False
    assert out["mvn_mean"] == ["float32", "float32", "float32"]
    assert out["gp_const"] == ["float64", "float64", "float32"]


def test_a_user_chooses_the_precision_and_a_rerun_keeps_it(tmp_path):
    script = f"""
import json, tempering
from tempering.run.output import run_attr
model = tempering.get_model("mvn_mean", precision="float64")
idata = tempering.sample(model, tempering.get_sampler("rwm", model), key=0, chains=1, draws=5,
                         warmup=0, progress=False)
tempering.save_run(idata, {str(tmp_path / "a.nc")!r})
tempering.rerun({str(tmp_path / "a.nc")!r}, {str(tmp_path / "b.nc")!r})
again = tempering.load_run({str(tmp_path / "b.nc")!r})
print(json.dumps([str(idata.posterior["theta"].dtype), run_attr(idata, "precision"),
                  run_attr(again, "precision"), str(again.posterior["theta"].dtype)]))
"""
    assert fresh(script) == ["float64", "float64", "float64", "float64"]


def test_an_unknown_precision_is_one_line():
    with pytest.raises(UserInputError, match="model.precision: 'float16' is not one of"):
        get_model("mvn_mean", precision="float16")


def test_a_users_model_takes_the_precision_in_force_or_its_own():
    from tempering.models import from_logdensity

    def log_prior(theta):
        return -0.5 * jnp.sum(theta**2)

    def log_lik(theta, data):
        return -0.5 * jnp.sum((data[:, None] - theta) ** 2)

    data = np.arange(3.0)
    assert from_logdensity(log_prior, log_lik, data, dim=2).precision == "float64"  # x64 on here
    with scope("float32"):
        model = from_logdensity(log_prior, log_lik, data, dim=2)
    assert model.precision == "float32" and model.data.dtype == jnp.float32
    model = from_logdensity(log_prior, log_lik, data, dim=2, precision="float32")
    assert model.precision == "float32" and model.data.dtype == jnp.float32


FLOAT32_MODELS = sorted(s.name for s in MODELS if s.precision == "float32")


@pytest.mark.parametrize("name", FLOAT32_MODELS)
def test_float32_is_accurate_enough_where_it_is_the_default(name):
    """The rule's premise, at each float32 model's default options: at the model's own starting
    points the float32 log density is within 0.05 nats of the float64 one (a Metropolis–Hastings
    ratio off by at most 5%) and its gradient within 1e-3 of the float64 gradient's norm."""
    wide, narrow = get_model(name, precision="float64"), get_model(name)
    with scope("float64"):
        thetas = jax.vmap(wide.init_position)(jax.random.split(jax.random.key(0), 4))
        exact = jax.vmap(jax.value_and_grad(wide.log_density))(thetas)
    with scope("float32"):
        approx = jax.vmap(jax.value_and_grad(narrow.log_density))(
            jnp.asarray(np.asarray(thetas), jnp.float32))
    value, grad = (np.asarray(a, np.float64) for a in exact)
    value32, grad32 = (np.asarray(a, np.float64) for a in approx)
    assert approx[0].dtype == jnp.float32
    assert np.all(np.abs(value32 - value) < 0.05), (value32 - value)
    scale = np.linalg.norm(grad, axis=-1)
    assert np.all(np.linalg.norm(grad32 - grad, axis=-1) <= 1e-3 * scale + 1e-3)
