"""The contenders' runs, each called by :mod:`.child` in its own fresh process (which loads this
file by path, so that nothing of ``tempering.bench`` is imported there).

Every runner takes the request (:mod:`.plan`) and the child's clock, makes the data with the
library's ``logistic`` model (the same seconds and memory for every contender: the rows differ by
what runs on the data), runs, and returns the draws (chains, draws, d) in the dtype the contender
gave them, the phases in seconds (:mod:`.child`, which adds ``other``: the rest of its clock),
the data passes (gradient evaluations × the points each touched / n, warmup and sampling, every
chain) and what the run chose (``info``).

- :func:`run_library`: a registered sampler through :func:`tempering.run_chains` (chains
  batched), the model in its own precision; passes are the run's cost.
- :func:`run_numpyro_nuts`: NumPyro's NUTS on the model written in NumPyro (a ``plate`` of
  Bernoulli logits), ``chain_method="vectorized"``, NumPyro's default float32; passes are its
  leapfrog steps.
- :func:`run_numpyro_hmcecs`: NumPyro's HMCECS around NUTS, the same model with a subsampled
  plate, its Taylor proxy at the MAP; the MAP by BFGS (:func:`jax.scipy.optimize.minimize`, which
  ``numpyro.optim.Minimize`` wraps) on the full data's potential per data point, from θ = 0 (on
  the raw sum, gradients of order n, BFGS's line search gave up half-way at n = 10⁶: 190
  posterior sds from the MAP; per point it converges in about a dozen evaluations; NumPyro's
  HMCECS example's 5000 Adam steps at 10⁻³ stopped short of the MAP at n = 10⁴). Its chains run
  one after another: HMCECS cannot vectorise them (its Gibbs step takes one key).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def model_and_data(request: dict[str, Any]) -> Any:
    """The library's ``logistic`` model of the request (its synthetic data made here)."""
    from tempering import get_model

    return get_model("logistic", **request["model_options"])


def run_library(request: dict[str, Any], clock: Any) -> dict[str, Any]:
    """A registered sampler at the request's options, 4 chains batched, draws kept in memory."""
    from tempering import get_sampler, run_chains

    model = model_and_data(request)
    algorithm = get_sampler(request["sampler"], model, **request["sampler_options"])
    startup = clock.now()
    result, wall, compiling = clock.timed(lambda: run_chains(
        model, algorithm, key=request["seed"], draws=request["draws"],
        chains=request["chains"], warmup=request["warmup"], progress=False))
    attrs = result.idata["posterior"].attrs
    draws = np.asarray(result.ledger.record["position"])
    warmup, sampling = float(attrs["wall_seconds_warmup"]), float(attrs["wall_seconds_sampling"])
    compile_ = min(compiling, wall - warmup - sampling)
    passes = (float(attrs["cost_total"]) + float(attrs["cost_warmup"])
              + float(attrs.get("cost_pilot", 0.0)))
    facts = {k: v for k, v in algorithm.facts.items() if isinstance(v, int | float | str)}
    options = algorithm.options.model_dump(mode="json") if algorithm.options else {}
    return {"draws": draws, "phases": {
        "startup": startup, "compile": compile_, "optimise": 0.0, "warmup": warmup,
        "sampling": sampling},
        "passes": passes, "info": {"options": options, "facts": facts,
                                   "precision": str(getattr(model, "precision", ""))}}


def numpyro_model(prior_sd: float) -> Callable[..., None]:
    """Logistic regression in NumPyro: θ ~ N(0, prior_sd² I), labels ~ Bernoulli(σ(xθ)), the
    data in a plate that HMCECS may subsample."""
    import numpyro
    import numpyro.distributions as dist

    def logistic(x, labels, subsample_size=None):
        theta = numpyro.sample("theta", dist.Normal(0.0, prior_sd).expand([x.shape[1]])
                               .to_event(1))
        with numpyro.plate("data", x.shape[0], subsample_size=subsample_size):
            batch = numpyro.subsample(x, event_dim=1)
            observed = numpyro.subsample(labels, event_dim=0)
            numpyro.sample("y", dist.Bernoulli(logits=batch @ theta), obs=observed)

    return logistic


def numpyro_data(request: dict[str, Any]) -> tuple[Any, Any]:
    """The model's features and 0/1 labels as float32 JAX arrays (NumPyro's default precision,
    whatever the library's import did)."""
    import jax.numpy as jnp
    import numpyro

    numpyro.enable_x64(False)
    data = model_and_data(request).data
    return (jnp.asarray(np.asarray(data["x"]), jnp.float32),
            jnp.asarray(np.asarray(data["y"]) > 0, jnp.float32))


def sample(mcmc: Any, clock: Any, key: Any, args: tuple, steps_field: str) -> dict[str, Any]:
    """NumPyro's warmup then its sampling, each timed apart with its compiling; the draws and
    the leapfrog steps of both."""
    import jax

    def warm() -> None:
        mcmc.warmup(key, *args, extra_fields=(steps_field,), collect_warmup=True)
        jax.block_until_ready(mcmc.post_warmup_state)

    _, warm_wall, warm_compiling = clock.timed(warm)
    warm_steps = np.asarray(mcmc.get_extra_fields(group_by_chain=True)[steps_field])

    def run() -> np.ndarray:
        mcmc.run(mcmc.post_warmup_state.rng_key, *args, extra_fields=(steps_field,))
        return np.asarray(mcmc.get_samples(group_by_chain=True)["theta"])

    draws, run_wall, run_compiling = clock.timed(run)
    steps = np.asarray(mcmc.get_extra_fields(group_by_chain=True)[steps_field])
    return {"draws": draws, "compile": warm_compiling + run_compiling,
            "warmup": warm_wall - warm_compiling, "sampling": run_wall - run_compiling,
            "steps": float(warm_steps.sum() + steps.sum()), "iterations": int(
                warm_steps.size + steps.size), "steps_per_iteration": float(steps.mean())}


def run_numpyro_nuts(request: dict[str, Any], clock: Any) -> dict[str, Any]:
    """NumPyro's NUTS at its defaults, chains vectorised."""
    import jax
    from numpyro.infer import MCMC, NUTS

    x, labels = numpyro_data(request)
    model = numpyro_model(request["model_options"]["prior_sd"])
    mcmc = MCMC(NUTS(model), num_warmup=request["warmup"], num_samples=request["draws"],
                num_chains=request["chains"], chain_method="vectorized", progress_bar=False)
    startup = clock.now()
    done = sample(mcmc, clock, jax.random.PRNGKey(request["seed"]), (x, labels), "num_steps")
    return {"draws": done["draws"], "phases": {
        "startup": startup, "compile": done["compile"], "optimise": 0.0,
        "warmup": done["warmup"], "sampling": done["sampling"]},
        "passes": done["steps"], "info": {"steps_per_iteration": done["steps_per_iteration"],
                                          "chain_method": "vectorized"}}


def run_numpyro_hmcecs(request: dict[str, Any], clock: Any) -> dict[str, Any]:
    """NumPyro's HMCECS (NUTS inside), its Taylor proxy at the BFGS MAP (module docstring).

    Passes: BFGS's gradient evaluations; per chain, the proxy's full-data value, gradient and
    Hessian at the MAP (2 + d passes: the Hessian is d forward-mode gradients); per iteration,
    the leapfrog steps and the subsample's likelihood on m of n points, and the new block's
    Taylor terms (value, gradient, Hessian: 2 + d gradients on m / blocks points)."""
    import jax
    import jax.numpy as jnp
    from jax.flatten_util import ravel_pytree
    from jax.scipy.optimize import minimize
    from numpyro.infer import HMCECS, MCMC, NUTS
    from numpyro.infer.util import initialize_model

    x, labels = numpyro_data(request)
    model = numpyro_model(request["model_options"]["prior_sd"])
    n, dim, m, blocks = request["n"], request["dim"], request["subsample"], request["num_blocks"]
    key_map, key_run = jax.random.split(jax.random.PRNGKey(request["seed"]))
    startup = clock.now()

    def optimise() -> tuple[Any, Any]:
        found = initialize_model(key_map, model, model_args=(x, labels, None))
        flat, unravel = ravel_pytree(found.param_info.z)
        result = minimize(lambda f: found.potential_fn(unravel(f)) / n, jnp.zeros_like(flat),
                          method="BFGS")
        jax.block_until_ready(result.x)
        return result, unravel(result.x)

    (result, reference), opt_wall, opt_compiling = clock.timed(optimise)
    kernel = HMCECS(NUTS(model), num_blocks=blocks, proxy=HMCECS.taylor_proxy(reference))
    mcmc = MCMC(kernel, num_warmup=request["warmup"], num_samples=request["draws"],
                num_chains=request["chains"], chain_method="sequential", progress_bar=False)
    done = sample(mcmc, clock, key_run, (x, labels, m), "hmc_state.num_steps")
    evaluations = max(int(result.nfev), int(result.njev))
    proxy = request["chains"] * (2 + dim)
    iterations = done["iterations"]
    passes = (evaluations + proxy + (done["steps"] + iterations) * m / n
              + iterations * (2 + dim) * (m / blocks) / n)
    return {"draws": done["draws"], "phases": {
        "startup": startup, "compile": opt_compiling + done["compile"],
        "optimise": opt_wall - opt_compiling, "warmup": done["warmup"],
        "sampling": done["sampling"]},
        "passes": passes, "info": {
            "map": np.asarray(result.x, float).tolist(), "bfgs_status": int(result.status),
            "bfgs_evaluations": evaluations, "steps_per_iteration": done["steps_per_iteration"],
            "subsample": m, "num_blocks": blocks, "chain_method": "sequential"}}


RUNNERS: dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]] = {
    "library": run_library, "numpyro_nuts": run_numpyro_nuts,
    "numpyro_hmcecs": run_numpyro_hmcecs}
