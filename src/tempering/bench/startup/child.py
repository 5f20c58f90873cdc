"""One row of ``tempering bench startup``, measured in a fresh interpreter: a user's first run on
a model, compiled from nothing.

The parent runs this file as a script (``python -P child.py REQUEST``), never as a module of the
package: importing ``tempering.bench`` would import every benchmark first and charge it to the
row. Its module-level imports are the standard library's only; ``REQUEST`` is the JSON of one row
(:mod:`.plan`). The parent switches the persistent compilation caches off in the environment
(``TEMPERING_COMPILE_CACHE=off``, ``JAX_ENABLE_COMPILATION_CACHE=false``); the row records what the
child found (``cache``: the settings and JAX's cache events, ``off`` when no program could come
from disk). It prints one line, :data:`ROW_PREFIX` + JSON, and exits 1 when the row failed (its
``error`` is the exception's one line).

Phases, wall seconds from the script's first line (``START``), disjoint, so that their sum is at
most ``total`` (``other`` is the rest):

- ``import``: ``import tempering`` (``import_tempering``, alone: the facade is lazy, and
  ``tempering_imports_jax`` says whether JAX came with it), then JAX, the listeners, and the first
  use of every public name the row calls (the sampler registry, the run spec; NumPyro or BlackJAX
  for the peers);
- ``build``: the model and the sampler (``get_model``, ``get_sampler``, inside ``run_spec`` as
  ``tempering sample`` does it), less the pilot; SMC: the model and its particles' setup;
- ``pilot``: the sampler's pilot run (its ``seconds`` from ``facts["pilot"]``; its
  ``compile_seconds`` are counted in ``compile``: PT's pilot compiles the run's programs);
- ``compile``: every compilation of the run after the build — the wall during which JAX traced,
  lowered or compiled anything (the union of its compilation spans): the driver's ahead-of-time
  warmup and chunk programs (``run_aot_compile`` in ``extra``; SMC: its one stage) and the small
  programs compiled as the run goes (initial states, slicing the records, NumPyro's jits);
- ``warmup``, ``sampling``: the run's, as it records them (the library's draws stream into the
  run file during ``sampling``; NumPyro's: its ``warmup`` and ``run`` calls, less compiling);
- ``writing``: the run file. The library: the rest of ``run_spec``'s wall — making and finishing
  the file (attributes, the last commit) and the driver's own Python; NumPyro:
  ``az.from_dict(...).to_netcdf`` (ArviZ's import included); SMC: ``np.savez`` of the particles
  and weights. (A program compiled inside the library's sampling timer counts in ``sampling``
  and in ``compile``, and is taken from ``writing``, which stays at least 0.)

Apart from the phases, over the whole process (the bench harness excluded): JAX's compilation
events, from :func:`jax.monitoring.register_event_time_span_listener` — the seconds of tracing
(``/jax/core/compile/jaxpr_trace_duration``; nested jits count again), lowering to MLIR
(``jaxpr_to_mlir_module_duration``) and XLA's compiling (``backend_compile_duration``; two programs
compiled on two threads count twice), ``compiling`` (the wall during which any of them ran: their
union), ``programs`` (backend compiles, op-by-op ones included) and the programs compiled most
often (``top_programs``: name, count, XLA seconds).

What is not the user's is the ``harness``, left out of the row with its compilations (``total``
is the child's wall less the harness): the library's row reading its run file back for the
seconds it recorded; the SMC row importing the benchmark's own modules
(:mod:`tempering.bench.multimodal.smc_run`, the targets) after ``build``, to run BlackJAX's SMC
exactly as ``bench multimodal`` does.
"""

from __future__ import annotations

import time

START = time.perf_counter()

import dataclasses  # noqa: E402 - the clock starts before anything else is imported
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

#: What starts the row's line on standard output.
ROW_PREFIX = "tempering-bench-startup-row: "
#: JAX's compilation events, by the phase of compiling they time.
EVENTS = {"/jax/core/compile/jaxpr_trace_duration": "trace",
          "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
          "/jax/core/compile/backend_compile_duration": "xla"}
CACHE_EVENTS = "/jax/compilation_cache/"
PHASES = ("import", "build", "pilot", "compile", "warmup", "sampling", "writing")


class Compilations:
    """Every compilation event of this process with its span (``time.time()``), and JAX's
    persistent-cache events; spans inside excluded windows (the harness) are not counted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # XLA compiles on worker threads too
        self.spans: list[tuple[str, float, float, str]] = []
        self.cache: Counter[str] = Counter()
        self.excluded: list[tuple[float, float]] = []

    def listen(self) -> None:
        import jax.monitoring

        jax.monitoring.register_event_time_span_listener(self._span)
        jax.monitoring.register_event_listener(self._event)

    def _span(self, event: str, start_time: float, end_time: float, **kwargs: str | int) -> None:
        if event in EVENTS:
            with self.lock:
                self.spans.append((EVENTS[event], start_time, end_time,
                                   str(kwargs.get("fun_name", "?"))))

    def _event(self, event: str, **kwargs: str | int) -> None:
        if event.startswith(CACHE_EVENTS):
            with self.lock:
                self.cache[event[len(CACHE_EVENTS):]] += 1

    def counted(self) -> list[tuple[str, float, float, str]]:
        return [s for s in self.spans
                if not any(lo <= s[1] < hi for lo, hi in self.excluded)]

    def totals(self) -> dict[str, Any]:
        """Seconds by kind, the wall they cover, programs compiled, the names compiled most
        often and the slowest programs (name, XLA seconds)."""
        spans = self.counted()
        seconds = {kind: sum(e - s for k, s, e, _ in spans if k == kind) for kind in
                   EVENTS.values()}
        names: Counter[str] = Counter(n for k, _, _, n in spans if k == "xla")
        xla: dict[str, float] = {}
        for k, s, e, n in spans:
            if k == "xla":
                xla[n] = xla.get(n, 0.0) + e - s
        return {**seconds, "compiling": self.covered(0.0, float("inf")),
                "programs": sum(names.values()),
                "top_programs": [[n, c, round(xla[n], 3)] for n, c in names.most_common(5)],
                "slowest_programs": [[n, round(t, 3)] for n, t in
                                     sorted(xla.items(), key=lambda item: -item[1])[:5]]}

    def covered(self, lo: float, hi: float) -> float:
        """Wall seconds of ``[lo, hi)`` (``time.time()``) during which anything compiled."""
        clipped = sorted((max(s, lo), min(e, hi)) for _, s, e, _ in self.counted()
                         if e > lo and s < hi)
        total, end = 0.0, lo
        for s, e in clipped:
            if e > end:
                total += e - max(s, end)
                end = e
        return total


class Laps:
    """Wall seconds by phase: each :meth:`lap` charges the time since the last one to a phase;
    :meth:`skip` charges it to the harness, left out of the row."""

    def __init__(self, compilations: Compilations) -> None:
        self.last, self.last_wall = START, time.time() - (time.perf_counter() - START)
        self.seconds: dict[str, float] = {}
        self.compilations = compilations

    def lap(self, phase: str) -> float:
        now, wall = time.perf_counter(), time.time()
        spent = now - self.last
        self.seconds[phase] = self.seconds.get(phase, 0.0) + spent
        self.last, self.last_wall = now, wall
        return spent

    def window(self) -> tuple[float, float]:
        """The ``time.time()`` span of the phase now running."""
        return self.last_wall, time.time()

    def skip(self) -> None:
        lo, _ = self.window()
        self.lap("harness")
        self.compilations.excluded.append((lo, self.last_wall))


def pilot_seconds(algorithm: Any) -> tuple[float, float]:
    """The pilot's run and compilation seconds (0 without a pilot): PT's compiles the run's own
    programs, so its compilation is counted as compilation."""
    pilot = dict(algorithm.facts.get("pilot") or {})
    return float(pilot.get("seconds", 0.0)), float(pilot.get("compile_seconds", 0.0))


def run_library(request: dict[str, Any], laps: Laps) -> dict[str, float]:
    """A registered sampler at the request's options, through ``run_spec`` into a run file."""
    from tempering import SAMPLERS, RunSpec, load_run, run_spec

    SAMPLERS.get(request["sampler"])  # the registry's first use
    laps.lap("import")
    built: dict[str, Any] = {}

    @dataclasses.dataclass(frozen=True)
    class TimedSpec(RunSpec):
        """A run spec whose build (model, sampler and pilot) is timed."""

        def build(self, every: int | None = None) -> Any:
            start, wall = time.perf_counter(), time.time()
            model, algorithm = super().build(every)
            pilot, pilot_compile = pilot_seconds(algorithm)
            built.update(seconds=time.perf_counter() - start, pilot=pilot,
                         pilot_compile=pilot_compile, window=(wall, time.time()))
            return model, algorithm

    spec = TimedSpec(request["model"], request["sampler"], request["model_options"],
                     request["sampler_options"], seed=request["seed"], chains=request["chains"],
                     draws=request["draws"], warmup=request["warmup"])
    with tempfile.TemporaryDirectory(prefix="tempering-bench-startup-") as folder:
        path = run_spec(spec, out=Path(folder) / "run.nc", checkpoint_every=None)
        window = laps.window()
        whole = laps.lap("run")
        attrs = load_run(path)["posterior"].attrs
        seconds = {name: float(attrs[f"wall_seconds_{name}"])
                   for name in ("compile", "warmup", "sampling")}
    laps.skip()  # reading the file back is not the user's
    compilations = laps.compilations
    compiling = compilations.covered(*window) - compilations.covered(*built["window"])
    rest = whole - built["seconds"] - seconds["warmup"] - seconds["sampling"]
    return {"build": built["seconds"] - built["pilot"] - built["pilot_compile"],
            "pilot": built["pilot"], "compile": min(compiling, rest) + built["pilot_compile"],
            "warmup": seconds["warmup"],
            "sampling": seconds["sampling"], "writing": rest - min(compiling, rest),
            "run_aot_compile": seconds["compile"]}


def run_numpyro(request: dict[str, Any], laps: Laps) -> dict[str, float]:
    """NumPyro's NUTS on the model's log density, 4 chains vectorised, jitted from cold."""
    import jax
    import numpy as np
    from numpyro.infer import MCMC, NUTS

    from tempering import get_model

    laps.lap("import")
    model = get_model(request["model"], **request["model_options"])
    chains, seed = request["chains"], request["seed"]
    init = jax.vmap(model.init_position)(jax.random.split(jax.random.key(seed), chains))
    mcmc = MCMC(NUTS(potential_fn=lambda theta: -model.log_density(theta)),
                num_warmup=request["warmup"], num_samples=request["draws"], num_chains=chains,
                chain_method="vectorized", progress_bar=False)
    laps.lap("build")
    compiling = 0.0
    for phase, call in (("warmup", lambda: mcmc.warmup(jax.random.PRNGKey(seed),
                                                        init_params=init)),
                        ("sampling", lambda: mcmc.run(jax.random.PRNGKey(seed + 1)))):
        call()
        jax.block_until_ready(mcmc.last_state)
        covered = laps.compilations.covered(*laps.window())
        laps.seconds[phase] = laps.lap(phase) - covered
        compiling += covered
    samples = np.asarray(mcmc.get_samples(group_by_chain=True))
    from tempering.lazy_arviz import arviz  # a user's ArviZ; the package's one import of it

    az = arviz()

    with tempfile.TemporaryDirectory(prefix="tempering-bench-startup-") as folder:
        az.from_dict(posterior={"theta": samples}).to_netcdf(str(Path(folder) / "run.nc"))
    laps.lap("writing")
    return {"compile": compiling}


def run_smc(request: dict[str, Any], laps: Laps) -> dict[str, float]:
    """BlackJAX's adaptive tempered SMC, as ``bench multimodal`` runs it, on the model."""
    import blackjax  # noqa: F401 - what a user of BlackJAX's SMC imports
    import numpy as np

    from tempering import get_model

    laps.lap("import")
    model = get_model(request["model"], **request["model_options"])
    laps.lap("build")
    from tempering.bench.multimodal.sizes import Size
    from tempering.bench.multimodal.smc_run import run_smc as smc
    from tempering.bench.multimodal.targets import build_targets

    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                              for k, v in request["size"].items()}
    size = Size(**fields)
    target = dataclasses.replace(build_targets(size)[request["target"]](), model=model)
    laps.skip()  # the benchmark's harness and the target's exact answers
    result = smc(target, size, request["seed"])
    window = laps.window()
    whole = laps.lap("run")
    with tempfile.TemporaryDirectory(prefix="tempering-bench-startup-") as folder:
        arrays = {"particles": result.draws[0]}
        if result.weights is not None:
            arrays["weights"] = result.weights
        np.savez(Path(folder) / "particles.npz", **arrays)
    laps.lap("writing")
    sampled = result.seconds["sampling"]
    compiling = min(laps.compilations.covered(*window), whole - sampled)
    return {"build": laps.seconds["build"] + whole - compiling - sampled, "compile": compiling,
            "sampling": sampled, "run_aot_compile": result.seconds["compile"]}


RUNNERS: dict[str, Callable[[dict[str, Any], Laps], dict[str, float]]] = {
    "library": run_library, "numpyro": run_numpyro, "smc": run_smc}


def cache_state(compilations: Compilations) -> dict[str, Any]:
    """The persistent caches' settings as this process found them, and JAX's cache events."""
    import jax

    enabled = bool(getattr(jax.config, "jax_enable_compilation_cache", True))
    folder = getattr(jax.config, "jax_compilation_cache_dir", None)
    events = dict(compilations.cache)
    return {"TEMPERING_COMPILE_CACHE": os.environ.get("TEMPERING_COMPILE_CACHE"),
            "jax_enable_compilation_cache": enabled, "jax_compilation_cache_dir": folder,
            "events": events,
            "off": (os.environ.get("TEMPERING_COMPILE_CACHE") == "off"
                    and not (enabled and folder) and not events.get("cache_hits"))}


def measure(request: dict[str, Any]) -> dict[str, Any]:
    """The row of ``request`` (module docstring)."""
    import tempering  # noqa: F401 - timed alone: the facade is lazy

    import_tempering = time.perf_counter() - START
    tempering_imports_jax = "jax" in sys.modules
    compilations = Compilations()
    compilations.listen()
    laps = Laps(compilations)
    runner = RUNNERS[request["kind"]]
    found = runner(request, laps)
    end = time.perf_counter()
    seconds = laps.seconds
    phases = {phase: max(0.0, float(found.get(phase, seconds.get(phase, 0.0))))
              for phase in PHASES}
    total = end - START - seconds.get("harness", 0.0)
    return {"phases": phases, "other": total - sum(phases.values()), "total": total,
            "harness": seconds.get("harness", 0.0), "import_tempering": import_tempering,
            "extra": {k: v for k, v in found.items() if k not in PHASES},
            "tempering_imports_jax": tempering_imports_jax, "jax": compilations.totals(),
            "cache": cache_state(compilations), "xla_flags": os.environ.get("XLA_FLAGS", "")}


def one_line(error: BaseException) -> str:
    """``Type: message``, the message's first line, at most 300 characters."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def main(argv: list[str]) -> int:
    """Measure the row of ``argv[1]`` and print it; 1 when it failed."""
    request = json.loads(argv[1])
    try:
        row = {"ok": True, **measure(request)}
    except Exception as error:  # noqa: BLE001 - a failed row is a result, not a crash
        row = {"ok": False, "error": one_line(error)}
    print(ROW_PREFIX + json.dumps(row), flush=True)
    return 0 if row["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
