"""Python's cyclic garbage collector during start-up: off while a program is traced and lowered
(:func:`tempering.numerics.gc_paused`), and for a CLI process's first seconds
(:func:`tempering.cli.main.collector_off_at_start`); each gives the collector back as it was."""

from __future__ import annotations

import gc
import time

import numpy as np

from tempering import get_model, get_sampler
from tempering.algorithms import programs
from tempering.cli.main import collector_off_at_start
from tempering.numerics import gc_paused


def test_gc_paused_restores_the_collector_and_nests() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves it as the outer set it
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()


def test_gc_paused_gives_the_collector_back_after_an_error() -> None:
    try:
        with gc_paused():
            raise ValueError("inside")
    except ValueError:
        pass
    assert gc.isenabled()


def test_the_program_is_lowered_with_the_collector_off(monkeypatch) -> None:
    seen: list[bool] = []
    lower = programs.Compiled._compile_program

    def spy(self, *args, **kwargs):
        original = self._program_jit

        class Watch:
            def lower(self, *a, **k):
                seen.append(gc.isenabled())
                return original.lower(*a, **k)

        self._program_jit = Watch()
        try:
            return lower(self, *args, **kwargs)
        finally:
            self._program_jit = original

    monkeypatch.setattr(programs.Compiled, "_compile_program", spy)
    prepare = programs.Compiled.prepare

    def collector_on(self, *args, **kwargs):  # run_chains pauses it too: turn it back on here,
        gc.enable()                           # so only the program's own pause can turn it off
        return prepare(self, *args, **kwargs)

    monkeypatch.setattr(programs.Compiled, "prepare", collector_on)
    model = get_model("mvn_mean", dim=2)
    algorithm = get_sampler("hmc", model, adapt_step_size=True)
    from tempering.run.driver import run_chains

    run_chains(model, algorithm, key=3, chains=1, draws=4, warmup=4, progress=False)
    assert seen == [False]
    assert gc.isenabled()


def test_the_cli_turns_the_collector_back_on() -> None:
    assert gc.isenabled()
    timer = collector_off_at_start(seconds=0.05)
    try:
        assert not gc.isenabled()
        assert timer.daemon  # never keeps a finished process alive
        deadline = time.monotonic() + 10.0
        while not gc.isenabled() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.isenabled()
        garbage = [np.zeros(1)]
        garbage.append(garbage)  # a cycle: collectable again
        del garbage
        assert gc.collect() >= 1
    finally:
        timer.cancel()
        gc.unfreeze()
        gc.enable()


def test_building_and_running_happen_with_the_collector_off(tmp_path, monkeypatch) -> None:
    """``get_model``, ``get_sampler`` and ``run_chains`` (start-up: imports, builds, pilots,
    tracing) run with the collector off and give it back."""
    source = tmp_path / "seen_model.py"
    source.write_text(
        "import gc\n"
        "from tempering import get_model\n"
        "SEEN = []\n"
        "def build(**options):\n"
        "    SEEN.append(gc.isenabled())\n"
        "    return get_model('mvn_mean', dim=2)\n")
    model = get_model(f"{source}:build")
    assert gc.isenabled()
    from tempering.algorithms import registry

    seen: list[bool] = []
    build_sampler = registry.build_sampler
    monkeypatch.setattr(registry, "build_sampler",
                        lambda *a, **k: seen.append(gc.isenabled()) or build_sampler(*a, **k))
    algorithm = get_sampler("rwm", model)
    from tempering.run import driver

    run_batches = driver._run_batches
    monkeypatch.setattr(driver, "_run_batches",
                        lambda *a, **k: seen.append(gc.isenabled()) or run_batches(*a, **k))
    driver.run_chains(model, algorithm, key=0, chains=1, draws=2, warmup=2, progress=False)
    import sys

    module = next(m for name, m in sys.modules.items() if name.endswith("seen_model"))
    assert module.SEEN == [False] and seen == [False, False]
    assert gc.isenabled()
