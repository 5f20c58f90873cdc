"""The contenders' runs, each called by ``bench tall``'s child
(:mod:`tempering.bench.tall.child`) in its own fresh process, which loads this file by path
(``request["runs"]``), so that nothing of ``tempering.bench`` is imported there uninvited.

Every runner takes the request (:mod:`.plan`) and the child's clock, makes the data with the
library's ``mixture`` model (the same for every contender), runs, and returns the draws of μ
(chains, draws, 3) in the dtype the contender gave them, the phases in seconds (the child adds
``other``: the rest of its clock), the data passes (full-data-equivalent evaluations, warmup,
pilot and sampling, every chain) and what the run chose (``info``).

- :func:`run_library`: a registered sampler at its defaults through :func:`tempering.run_chains`
  (chains batched); its pilot run (PT's rung placement, inside ``get_sampler``) is a phase of
  its own and its compiling is in ``compile``; passes are the run's recorded cost.
- :func:`run_numpyro_nuts`: NumPyro's NUTS on the mixture written in NumPyro (a ``plate`` of
  ``MixtureSameFamily`` observations), ``chain_method="vectorized"``, float32; passes are its
  leapfrog steps (``bench tall``'s :func:`~tempering.bench.tall.runs.sample`).
- :func:`run_smc`: BlackJAX's adaptive tempered SMC, ``bench multimodal``'s runner
  (:func:`tempering.bench.multimodal.smc_run.run_smc`); the draws are its final particles (one
  population) and ``weights`` their normalised weights; passes are its density evaluations.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

#: ``src/tempering/bench``: the folder of every benchmark.
BENCH = Path(__file__).resolve().parent.parent


def mixture(request: dict[str, Any]) -> Any:
    """The library's ``mixture`` model of the request (its synthetic data made here)."""
    from tempering import get_model

    return get_model("mixture", **request["model_options"])


def tall_runs() -> ModuleType:
    """``bench tall``'s runners, loaded from their file as its child loads them."""
    spec = importlib.util.spec_from_file_location("tempering_bench_runs_tall",
                                                  BENCH / "tall" / "runs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_library(request: dict[str, Any], clock: Any) -> dict[str, Any]:
    """A registered sampler at its defaults, chains batched, draws kept in memory."""
    from tempering import get_sampler, run_chains

    model = mixture(request)
    before = clock.now()
    algorithm, build, build_compiling = clock.timed(
        lambda: get_sampler(request["sampler"], model, **request["sampler_options"]))
    pilot_facts = dict(algorithm.facts.get("pilot") or {})
    pilot = min(float(pilot_facts.get("seconds", 0.0)), build - build_compiling)
    result, wall, compiling = clock.timed(lambda: run_chains(
        model, algorithm, key=request["seed"], draws=request["draws"],
        chains=request["chains"], warmup=request["warmup"], progress=False))
    attrs = result.idata["posterior"].attrs
    warmup, sampling = float(attrs["wall_seconds_warmup"]), float(attrs["wall_seconds_sampling"])
    passes = (float(attrs["cost_total"]) + float(attrs["cost_warmup"])
              + float(attrs.get("cost_pilot", 0.0)))
    facts = {k: v for k, v in algorithm.facts.items() if isinstance(v, int | float | str)}
    facts |= {f"pilot_{k}": v for k, v in pilot_facts.items() if isinstance(v, int | float | str)}
    options = algorithm.options.model_dump(mode="json") if algorithm.options else {}
    return {"draws": np.asarray(result.ledger.record["position"]), "phases": {
        "startup": before + build - build_compiling - pilot,
        "compile": build_compiling + min(compiling, wall - warmup - sampling), "pilot": pilot,
        "warmup": warmup, "sampling": sampling},
        "passes": passes, "info": {"options": options, "facts": facts,
                                   "precision": str(getattr(model, "precision", ""))}}


def numpyro_mixture(k: int, sigma: float, prior_sd: float) -> Callable[..., None]:
    """The mixture in NumPyro: θ ~ N(0, prior_sd² I_k), x_i ~ Σ_j (1/k) N(θ_j, σ²)."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    def model(x):
        theta = numpyro.sample("theta", dist.Normal(0.0, prior_sd).expand([k]).to_event(1))
        mixing = dist.Categorical(probs=jnp.full(k, 1.0 / k))
        with numpyro.plate("data", x.shape[0]):
            numpyro.sample("x", dist.MixtureSameFamily(mixing, dist.Normal(theta, sigma)),
                           obs=x)

    return model


def run_numpyro_nuts(request: dict[str, Any], clock: Any) -> dict[str, Any]:
    """NumPyro's NUTS at its defaults, chains vectorised, float32."""
    import jax
    import jax.numpy as jnp
    import numpyro
    from numpyro.infer import MCMC, NUTS

    numpyro.enable_x64(False)
    options = request["model_options"]
    x = jnp.asarray(np.asarray(mixture(request).data["x"]), jnp.float32)
    model = numpyro_mixture(len(options["means"]), options["sigma"], options["prior_sd"])
    mcmc = MCMC(NUTS(model), num_warmup=request["warmup"], num_samples=request["draws"],
                num_chains=request["chains"], chain_method="vectorized", progress_bar=False)
    startup = clock.now()
    done = tall_runs().sample(mcmc, clock, jax.random.PRNGKey(request["seed"]), (x,),
                              "num_steps")
    return {"draws": done["draws"], "phases": {
        "startup": startup, "compile": done["compile"], "pilot": 0.0, "warmup": done["warmup"],
        "sampling": done["sampling"]},
        "passes": done["steps"], "info": {"steps_per_iteration": done["steps_per_iteration"],
                                          "chain_method": "vectorized"}}


def run_smc(request: dict[str, Any], clock: Any) -> dict[str, Any]:
    """BlackJAX's adaptive tempered SMC, ``bench multimodal``'s runner, on the mixture (its
    prior transform N(0, prior_sd²) per mean; its exact log Z is not needed here)."""
    from dataclasses import replace

    from tempering.models import ordering_index, ordering_masses

    model = mixture(request)
    smc = importlib.import_module("tempering.bench.multimodal.smc_run")
    targets = importlib.import_module("tempering.bench.multimodal.targets")
    sizes = importlib.import_module("tempering.bench.multimodal.sizes")
    prior_sd = float(request["model_options"]["prior_sd"])
    target = targets.Target("tall-mixture", f"mixture, n = {request['n']}", model,
                            targets.gaussian_transform(prior_sd), float("nan"),
                            ordering_masses(model.dim), ordering_index)
    size = replace(sizes.FULL, particles=request["particles"], smc_steps=request["moves"])
    startup = clock.now()
    run, wall, compiling = clock.timed(lambda: smc.run_smc(target, size, request["seed"]))
    return {"draws": run.draws.astype(run.info["dtype"]), "weights": run.weights,
            "phases": {"startup": startup, "compile": compiling, "pilot": 0.0, "warmup": 0.0,
                       "sampling": wall - compiling},
            "passes": float(run.evals), "info": {
                key: run.info[key] for key in ("stages", "particles", "steps", "dtype")}}


RUNNERS: dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]] = {
    "library": run_library, "numpyro_nuts": run_numpyro_nuts, "smc": run_smc}
