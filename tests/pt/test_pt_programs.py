"""How many programs a default PT run compiles (issue 44): each phase's lowerings, by name
(``tests/programs.py``; every sampler's run is counted in ``tests/samplers/test_registry.py``).

The ``rungs=auto`` pilot runs the run's own program (:mod:`tempering.algorithms.pt.capacity`):
building the sampler compiles the pilot chains' start and PT's one program (warmup, which starts
the chains itself, and sampling: :class:`~tempering.algorithms.base.Scans`), for the run's
layout, and the chains' start (:func:`~tempering.starts.chain_keys`: the pilot's
chains are the run's); the run then compiles only the constrained draws at the end. Nothing
runs op by op: an eager ``jnp`` call in a builder or the driver compiles a program of its own,
and shows up here."""

from __future__ import annotations

import functools
import re
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from programs import lowered

from tempering.algorithms.base import RunLayout
from tempering.algorithms.programs import Compiled
from tempering.algorithms.pt.rounds import Rounds
from tempering.algorithms.pt.warmup import _Plan
from tempering.algorithms.registry import get_sampler
from tempering.models import get_model
from tempering.precision import scope
from tempering.run.driver import run_chains
from tempering.starts import chain_keys


@pytest.fixture(scope="module")
def model():
    return get_model("mvn_mean", n=20, dim=2, data_seed=3)


def test_the_pilot_compiles_the_run_and_the_run_compiles_nothing_more(model):
    layout = RunLayout(batch=2, warmup=40, draws=30, chunk=2)
    with lowered() as built:
        algorithm = get_sampler("pt", model, layout=layout)
    assert sorted(built) == ["_program", "start"], built
    assert algorithm.facts["pilot"]["shared_programs"]
    with lowered() as ran:
        run_chains(model, algorithm, key=0, draws=30, chains=2, warmup=40, progress=False)
    assert sorted(ran) == ["constrain"], ran


def test_a_run_of_another_warmup_and_draws_takes_the_pilots_program(model):
    """PT's warmup length is an argument of its program (``Scans.steps_traced``) and the run
    takes the pilot's chunk length, so a run of another warmup and length compiles nothing
    more; so does a user's first run from Python, whose sampler was built for the default
    layout (:class:`RunLayout`). The control: a run of another batch of chains compiles its
    own program."""
    algorithm = get_sampler("pt", model, layout=RunLayout(batch=2, warmup=40, draws=30, chunk=2))
    with lowered() as ran:
        run_chains(model, algorithm, key=0, draws=70, chains=2, warmup=50, progress=False)
    assert sorted(ran) == ["constrain"], ran
    with lowered() as built:
        algorithm = get_sampler("pt", model)
    with lowered() as ran:
        run_chains(model, algorithm, key=0, draws=40, chains=4, warmup=60, progress=False)
    assert "_program" in built and sorted(ran) == ["constrain"], (built, ran)
    with lowered() as ran:
        run_chains(model, algorithm, key=0, draws=40, chains=3, warmup=60, progress=False)
    assert sorted(ran) == ["_program", "constrain", "start"], ran


@pytest.mark.parametrize("num_steps", [3, 37, 160, 1000, 1501])
def test_a_traced_warmup_length_plans_as_the_static_one(num_steps):
    """PT's warmup plan (``warmup._Plan``) with its length traced (one program for every
    warmup) against the same plan with the length a constant, scan by scan: which scans tune,
    Stan's stage and the tuning phases' ends, and the number of rounds — the integers every
    warmup decision follows. (The draws of the two programs agree only up to rounding, which
    PT's chains amplify: XLA folds the constant length's arithmetic.)"""
    rounds = Rounds(max_rounds=10, inner_for=lambda *a: None)
    bound = SimpleNamespace(adapter=object())

    def at(t, n):
        plan = _Plan(n, rounds, bound)
        stage, ends = plan.tuning_at(t)
        return plan.tunes(t), *stage, ends, plan.count

    scans = jnp.arange(num_steps)
    traced = jax.jit(jax.vmap(at, in_axes=(0, None)))(scans, num_steps)
    static = jax.jit(jax.vmap(lambda t: at(t, num_steps)))(scans)
    for got, expected in zip(traced, static, strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
    model = get_model("gauss_mixture", dim=2, precision="float64")
    algorithm = get_sampler("pt", model, rungs=4)
    fixed = algorithm._replace(scans=algorithm.scans._replace(steps_traced=False))
    kwargs = dict(key=1, draws=4, chains=2, warmup=num_steps, progress=False)
    if num_steps <= 160:  # the rounds each program closed
        closed = [np.isnan(run_chains(model, a, **kwargs).params["rejection"])
                  for a in (algorithm, fixed)]
        np.testing.assert_array_equal(*closed)


def test_the_count_sees_a_program_run_op_by_op(model):
    """The control: one eager ``jnp`` call outside a compiled program is one more program."""
    with lowered() as names:
        jax.numpy.stack([jax.numpy.ones(2), jax.numpy.zeros(2)]).block_until_ready()
    assert names, "eager operations compile programs of their own"


@pytest.mark.parametrize("thin", [1, 2])
def test_the_one_program_samples_as_the_chunk_program(thin):
    """The one program (``Scans``) against the warmup and chunk programs of the same algorithm
    (``scans=None``), float64: the same draws and the same swap decisions, with thinning too;
    and a broken scan (its sampling steps on other keys than ``step``'s) is caught by the same
    check. The draws agree to rounding (relative 1e-12), not bit for bit: XLA compiles the
    two programs' RWM arithmetic differently in the last bits (with thinning they differed by
    4e-14 once a one-step inner move took its key unsplit, 2026-11-29), while the same keys
    make the same proposals and decisions — a scan on other keys differs wholesale."""
    model = get_model("gauss_mixture", dim=2, precision="float64")
    algorithm = get_sampler("pt", model, rungs=4, inner="rwm")
    kwargs = dict(key=2, draws=12, chains=2, warmup=24, thin=thin, progress=False)
    one = run_chains(model, algorithm, **kwargs)
    two = run_chains(model, algorithm._replace(scans=None), **kwargs)
    np.testing.assert_allclose(one.idata.posterior["theta"].values,
                               two.idata.posterior["theta"].values, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(one.idata.sample_stats["swap_accepted"].values,
                                  two.idata.sample_stats["swap_accepted"].values)
    scan = algorithm.scans.scan
    broken = algorithm._replace(scans=algorithm.scans._replace(
        scan=lambda k, t, s, p, c, w, n: scan(
            jax.lax.cond(w, lambda: k, lambda: jax.random.fold_in(k, 1)), t, s, p, c, w, n)))
    off = run_chains(model, broken, **kwargs)
    assert not np.allclose(off.idata.posterior["theta"].values,
                           two.idata.posterior["theta"].values, rtol=1e-12, atol=0)


@pytest.mark.parametrize(("name", "options", "warmup_key"),
                         [("st", {}, 30), ("pt", {"rungs": 4, "inner": "rwm"}, None)])
def test_warm_chains_sample_on_the_program_of_their_runs_warmup(model, name, options,
                                                                 warmup_key):
    """A resumed run's chains are warm, yet its one program is compiled for the run's warmup,
    as its first session's was (the same executable, not one compiled for no warmup): keyed by
    the warmup where its length is static (ST), by none where it is traced (PT)."""
    algorithm = get_sampler(name, model, **options)
    compiled = Compiled(algorithm, 1)
    with scope(model.precision):  # as the driver runs a built sampler's functions
        init_keys, warm_keys, sample_keys, positions = chain_keys(model, 0, 2)
        state = jax.eval_shape(compiled.init, init_keys, positions)
        params = jax.device_put(jax.tree.map(
            lambda p: np.broadcast_to(np.asarray(p), (2, *np.shape(p))), algorithm.params))
        compiled.prepare((init_keys, positions), warm_keys, sample_keys, state, params, 30, 5,
                         warmed=True)
    assert compiled.prepared(2, 30, 5, warmed=True)
    assert ("program", warmup_key, 5, 2) in compiled._executables, list(compiled._executables)


#: Copies of Threefry's rounds in default PT's program once XLA inlines its calls (each
#: ``jax.random`` split, fold or draw is one, ~0.15 s of XLA's compile on 2 cores): the driver's
#: ``fold_in`` by the scan's index, the scan's split into the rungs' and the swaps' keys, the
#: swapped pairs' uniforms, and HMC's one draw of its momentum and acceptance
#: (:func:`tempering.kernels.hmc.one_draw_step`; BlackJAX's kernel makes three: a split, the
#: momentum, the acceptance). There were ten before 2026-11-29 (commit 807d817).
THREEFRY_COPIES = 4


def _program_text(model, monkeypatch, **options) -> str:
    """The lowered text of the program a PT pilot compiles (``rungs=auto``'s shared program)."""
    import tempering.algorithms.programs as programs

    texts, real = [], programs.compile_lowered

    def capture(lowered, sampling=True):
        texts.append(lowered.as_text())
        return real(lowered, sampling)

    monkeypatch.setattr(programs, "compile_lowered", capture)
    get_sampler("pt", model, layout=RunLayout(batch=2, warmup=40, draws=30, chunk=2), **options)
    return texts[-1]


def _inlined_copies(text: str, name: str = "threefry2x32") -> int:
    """Copies of the functions named ``name…`` in a lowered program once its calls are inlined
    (as XLA inlines them): a function lowered once and called from two places is two copies."""
    bodies: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        opened = re.match(r"\s*func\.func (?:public |private )?@([\w.]+)\(", line)
        if opened:
            current = opened.group(1)
            bodies[current] = []
        elif current is not None:
            bodies[current] += re.findall(r"call @([\w.]+)\(", line)

    @functools.cache
    def copies(function: str) -> int:
        own = 1 if function.startswith(name) else 0
        return own + sum(copies(callee) for callee in bodies.get(function, ()))

    return copies("main")


def test_the_scan_draws_its_randomness_with_few_copies_of_threefry(monkeypatch):
    """Default PT's program holds :data:`THREEFRY_COPIES` copies of Threefry; the control, two
    inner steps a scan (a loop that splits a key per step), holds one more, so the count sees
    a split. Four parameters: HMC inside, one step a scan (two parameters would run RWM's
    three)."""
    model = get_model("mvn_mean", n=20, dim=4, data_seed=3)
    count = _inlined_copies(_program_text(model, monkeypatch))
    assert count <= THREEFRY_COPIES, count
    more = _inlined_copies(_program_text(model, monkeypatch, inner_steps=2))
    assert more > count, (more, count)
