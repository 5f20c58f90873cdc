"""Data passes and seconds to 99% test accuracy: MINT against full-batch samplers (seed 003 §4.2).

On a two-class logistic regression of the paper's size it runs, from θ = 0, the samplers below.
The paper's MNIST 1-vs-7 set (13 000 training images) is not installable offline; its stand-in
is Fashion-MNIST's classes 1 (trouser) and 7 (sneaker), 12 000 + 2 000 images, when Debian's
``dataset-fashion-mnist`` is installed (``make data-fashion-mnist``); otherwise the bundled 800 +
200 real 1s and 7s, where a MINT step is only n/2m = 4 times cheaper than a full-batch one, so
the paper's ratio cannot appear. ``--n`` / ``--dim`` give a synthetic set instead.

- MINT with m = 100, α = 0.99 (reading b, RWM proposal: the paper's Fig. 2 setting),
- tempered MCMC: full-batch RWM on π_T at MINT's T (``mint`` with m = n, reading a: the estimate is
  exact and each step costs one data pass),
- MCMC: full-batch RWM on the posterior (T = 1),

each with its step size tuned beforehand to acceptance ≈ 0.3 by dual averaging on a pilot run
that is not counted (the paper tunes the same way; the measured chain restarts from θ = 0). Test
accuracy is that of the running mean of the draws (the paper's estimate for the BNN), checked
after every block of steps worth ≈ ¼ data pass (one step for the full-batch samplers). Data
passes are the samplers' own ``cost`` (full-data-equivalent evaluations); seconds are the blocks'
wall time after compilation, the accuracy checks left out.

Then the per-step overhead: a MINT step's time over the time of its bare batch evaluations (the
mean of m log-likelihood terms at a fixed batch), for readings a and b — the batch draw, the
proposal and the accept test are the overhead.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
import typer

from tempering import UserInputError
from tempering.algorithms import get_sampler
from tempering.models import get_model
from tempering.registry import RunnableSpec

TARGET_ACCURACY = 0.99
BATCH = 100


def problem(n: int | None, dim: int | None, seed: int):
    """Fashion-MNIST trouser vs sneaker if installed, else the bundled 1-vs-7 digits; or a
    synthetic set with ``n`` points of ``dim`` features."""
    if n is None and dim is None:
        try:
            return get_model("logistic", data="fashion_mnist", digits=[1, 7])
        except UserInputError:
            return get_model("logistic")
    for name, value in (("n", n), ("dim", dim)):
        if value is not None and value < 1:
            raise UserInputError(f"--{name} must be at least 1 (got {value})")
    return get_model("logistic", n=n or 1000, dim=dim or 20, data_seed=seed)


def samplers(model, batch: int) -> dict[str, tuple[str, dict]]:
    """Label ↦ (sampler, options) of the three contenders (RWM proposals tuned to 0.3)."""
    tune = {"adapt_step_size": True, "target_accept": 0.3, "step_size": 0.05}
    mint = get_sampler("mint", model, batch=batch, alpha=0.99, **tune)
    lam = mint.facts["lam"]
    return {"MINT": ("mint", {"batch": batch, "alpha": 0.99, **tune}),
            "tempered MCMC": ("mint", {"batch": model.n_data, "lam": lam, "reading": "a",
                                       **tune}),
            "MCMC": ("rwm", tune)}


def to_target(model, name: str, options: dict, seed: int, max_passes: float,
              block_passes: float = 0.25) -> dict[str, float]:
    """Passes and seconds until the running mean's test accuracy reaches the target."""
    algorithm = get_sampler(name, model, **options)
    start = jnp.zeros(model.dim)
    key = jax.random.key(seed)
    pilot = algorithm.init(key, start)
    _, params, _ = jax.jit(algorithm.warmup, static_argnums=3)(key, pilot, algorithm.params, 400)
    state = algorithm.init(key, start)
    _, info = algorithm.step(key, state, params)
    per_step = float(info.cost)
    steps = max(1, int(round(block_passes / per_step)))

    @jax.jit
    def block(key, state, total):
        def body(carry, step_key):
            state, total, cost = carry
            state, info = algorithm.step(step_key, state, params)
            return (state, total + algorithm.position(state), cost + info.cost), None

        (state, total, cost), _ = jax.lax.scan(body, (state, total, jnp.zeros(())),
                                               jax.random.split(key, steps))
        return state, total, cost

    jax.block_until_ready(block(key, state, start))  # compile
    total, passes, seconds, done, accuracy = start, 0.0, 0.0, 0, 0.5
    while passes < max_passes:
        began = time.perf_counter()
        state, total, cost = jax.block_until_ready(block(jax.random.fold_in(key, done), state,
                                                         total))
        seconds += time.perf_counter() - began
        passes += float(cost)
        done += steps
        mean = total / done
        accuracy = float(model.predictive_checks(mean[None])["test_accuracy"])
        if accuracy >= TARGET_ACCURACY:
            break
    return {"passes": passes, "seconds": seconds, "accuracy": accuracy,
            "reached": float(accuracy >= TARGET_ACCURACY),
            "step_size": float(np.mean(np.asarray(params["step_size"])))}


def overhead(model, batch: int, repeats: int, steps: int = 2000) -> dict[str, float]:
    """Median seconds per MINT step (readings a, b) over its batch evaluations' bare time.

    The bare evaluation gathers m rows picked with replacement (one ``randint``, the cheapest
    batch there is) and takes the mean of their terms at a perturbed θ (one normal vector per
    step, as a step draws its proposal).
    """
    key = jax.random.key(0)
    theta = jnp.zeros(model.dim)
    n = model.n_data

    @jax.jit
    def bare(key):
        def body(acc, k):
            k_batch, k_theta = jax.random.split(k)
            rows = jax.random.randint(k_batch, (batch,), 0, n)
            view = jax.tree.map(lambda a: a[rows], model.data)
            moved = theta + 1e-3 * jax.random.normal(k_theta, theta.shape)
            return acc + jnp.mean(model.log_lik_terms(moved, view)), None
        return jax.lax.scan(body, 0.0, jax.random.split(key, steps))[0]

    timed = {"bare": bare}
    for reading in ("a", "b"):
        algorithm = get_sampler("mint", model, batch=batch, reading=reading, step_size=0.01)

        def run(key, algorithm=algorithm):
            state = algorithm.init(key, theta)

            def body(state, k):
                return algorithm.step(k, state, algorithm.params)[0], None
            return jax.lax.scan(body, state, jax.random.split(key, steps))[0].position

        timed[reading] = jax.jit(run)
    medians = {}
    for label, fn in timed.items():
        jax.block_until_ready(fn(key))
        times = []
        for r in range(repeats):
            began = time.perf_counter()
            jax.block_until_ready(fn(jax.random.fold_in(key, r)))
            times.append((time.perf_counter() - began) / steps)
        medians[label] = float(np.median(times))
    return {"bare": medians["bare"], "a": medians["a"], "b": medians["b"],
            "overhead_a": medians["a"] / medians["bare"],
            "overhead_b": medians["b"] / (2 * medians["bare"])}


def run(n: int | None = None, dim: int | None = None, repeats: int = 10, seed: int = 0,
        max_passes: float = 300.0) -> dict[str, dict[str, float]]:
    """Print the table and the ratios; returns the measurements by label."""
    if repeats < 1:
        raise UserInputError(f"--repeats must be at least 1 (got {repeats})")
    model = problem(n, dim, seed)
    batch = min(BATCH, model.n_data // 2)
    results = {label: to_target(model, name, options, seed, max_passes)
               for label, (name, options) in samplers(model, batch).items()}
    typer.echo(f"logistic regression, n = {model.n_data}, D = {model.dim}, MINT batch m = "
               f"{batch}: data passes and seconds to {TARGET_ACCURACY:.0%} test accuracy "
               f"(running mean; {jax.default_backend()})")
    typer.echo(f"{'':16s} {'passes':>9s} {'seconds':>9s} {'accuracy':>9s} {'step':>8s}")
    for label, r in results.items():
        mark = "" if r["reached"] else "  (not reached)"
        typer.echo(f"{label:16s} {r['passes']:9.2f} {r['seconds']:9.3f} {r['accuracy']:9.3f} "
                   f"{r['step_size']:8.4f}{mark}")
    mint = results["MINT"]
    for label in ("tempered MCMC", "MCMC"):
        r = results[label]
        typer.echo(f"{label} / MINT: {r['passes'] / mint['passes']:.1f}x data passes, "
                   f"{r['seconds'] / max(mint['seconds'], 1e-9):.1f}x seconds"
                   + ("" if r["reached"] and mint["reached"] else " (a lower bound: see above)"))
    cost = overhead(model, batch, repeats)
    typer.echo(f"per-step time over bare batch evaluations: reading a {cost['overhead_a']:.2f}x "
               f"(1 evaluation, {1e6 * cost['a']:.1f} us/step), reading b "
               f"{cost['overhead_b']:.2f}x (2 evaluations, {1e6 * cost['b']:.1f} us/step); "
               f"bare {1e6 * cost['bare']:.1f} us")
    results["overhead"] = cost
    return results


SPEC = RunnableSpec("mint", "data passes and seconds to 99% test accuracy, MINT vs full-batch "
                    "MH, and MINT's per-step overhead (seed 003 §4.2)", run)
