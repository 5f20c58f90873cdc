"""How many programs a default PT run compiles (issue 44): each phase's lowerings, by name
(``tests/programs.py``; every sampler's run is counted in ``tests/samplers/test_registry.py``).

Today: the pilot is one program (its chain's start and its warmup; its placement is NumPy);
the run is its chains' start (keys and positions), the warmup (which starts the chains itself),
the sampling chunk, and the constrained draws at the end. Nothing runs op by op: an eager
``jnp`` call in a builder or the driver compiles a program of its own, and shows up here."""

from __future__ import annotations

import jax
import pytest
from programs import lowered

from tempering.algorithms.registry import get_sampler
from tempering.models import get_model
from tempering.run.driver import run_chains


@pytest.fixture(scope="module")
def model():
    return get_model("mvn_mean", n=20, dim=2, data_seed=3)


def test_a_default_pt_run_compiles_one_program_per_phase(model):
    with lowered() as built:
        algorithm = get_sampler("pt", model)
    assert built == ["pilot"], built
    with lowered() as ran:
        run_chains(model, algorithm, key=0, draws=30, chains=2, warmup=40, progress=False)
    assert sorted(ran) == ["_chunk", "_start_and_warm", "constrain", "start"], ran


def test_the_count_sees_a_program_run_op_by_op(model):
    """The control: one eager ``jnp`` call outside a compiled program is one more program."""
    with lowered() as names:
        jax.numpy.stack([jax.numpy.ones(2), jax.numpy.zeros(2)]).block_until_ready()
    assert names, "eager operations compile programs of their own"
