"""Typer commands: sample, summary, report, predict, models, samplers, demo, reproduce,
bench."""

from __future__ import annotations

import json
import math
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="MCMC for expensive or multimodal posteriors: tempering on JAX.")


class ChainMethod(StrEnum):
    """``--chain-method``: the values of :class:`tempering.run.driver.ChainMethod`, kept here so
    that ``--help`` imports no JAX (``tests/package/test_startup.py`` checks that they agree)."""

    VMAP = "vmap"
    SEQUENTIAL = "sequential"
    DASK = "dask"


def compiling() -> None:
    """Switch JAX's persistent compilation cache on (:func:`tempering.compile_cache.enable`,
    unless ``TEMPERING_COMPILE_CACHE=off``) in every command that compiles, before it does (not
    in ``main``: ``--help`` imports no JAX; the catalogs compile nothing)."""
    from tempering import compile_cache

    compile_cache.enable()


def json_ready(value):
    """``value`` with every non-finite float written as the string ``"nan"``, ``"inf"`` or
    ``"-inf"`` (JSON has no NaN or infinity; ``float()`` reads these back), never ``null``: an
    infinite R-hat stays visibly infinite."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


@app.command()
def sample(
    out: Annotated[Path, typer.Option("--out", help="Run file to write (NetCDF).")],
    model: Annotated[str | None, typer.Option(
        help="Model name (see `tempering models`), or your own: path/to/file.py:NAME (a Model, "
             "or a function of the model options returning one).")] = None,
    sampler: Annotated[str | None, typer.Option(help="Sampler (see `tempering samplers`).")] = None,
    # help texts are rich markup: a bare [model] is a tag and vanishes, \\[ keeps the bracket
    config: Annotated[Path | None, typer.Option(
        help="TOML file with \\[model] and \\[sampler] tables.")] = None,
    set_: Annotated[list[str] | None, typer.Option(
        "--set", help="Override an option: model.KEY=VALUE or sampler.KEY=VALUE.")] = None,
    chains: Annotated[int, typer.Option(help="Number of chains.")] = 4,
    draws: Annotated[int, typer.Option(help="Draws kept per chain.")] = 1000,
    warmup: Annotated[int, typer.Option(help="Warmup steps per chain (discarded).")] = 500,
    seed: Annotated[int, typer.Option(help="PRNG seed.")] = 0,
    thin: Annotated[int, typer.Option(help="Steps per kept draw.")] = 1,
    chain_method: Annotated[ChainMethod, typer.Option(
        help="Run chains batched, in turn, or as tasks on Dask.")] =
    ChainMethod.VMAP,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    workers: Annotated[int | None, typer.Option(
        help="With --chain-method dask: worker processes of the local cluster (default: the "
             "number of cores).")] = None,
    scheduler: Annotated[str | None, typer.Option(
        help="With --chain-method dask: the address of an existing Dask scheduler.")] = None,
    checkpoint_every: Annotated[int | None, typer.Option(
        help="Write a checkpoint into --out every N draws (default: once a minute; 0: never). "
             "`tempering resume` continues from it.")] = None,
) -> None:
    """Sample a model's posterior and write the run to a NetCDF file."""
    from tempering.config import apply_sets, load_config
    from tempering.errors import UserInputError
    from tempering.run.files import run_spec
    from tempering.run.spec import RunSpec

    settings = apply_sets(load_config(config), set_ or [])
    model_name = model or settings["model"].get("name")
    sampler_name = sampler or settings["sampler"].get("name")
    if not model_name:
        raise UserInputError("no model given: use --model NAME or name = ... in [model]")
    if not sampler_name:
        raise UserInputError("no sampler given: use --sampler NAME or name = ... in [sampler]")
    spec = RunSpec(model_name, sampler_name, settings["model"], settings["sampler"], seed=seed,
                   chains=chains, draws=draws, warmup=warmup, thin=thin,
                   chain_method=chain_method.value)
    compiling()
    path = run_spec(spec, out=out, progress=progress,  # the bar prints the "done in" line itself
                    on_done=None if progress else typer.echo,
                    checkpoint_every=checkpoint_every, workers=workers, scheduler=scheduler)
    typer.echo(f"wrote {path}")


@app.command()
def resume(
    run: Annotated[Path, typer.Argument(help="The run file of an interrupted run.")],
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Continue an interrupted run from its last checkpoint (in place): the draws equal those of
    one uninterrupted run."""
    from tempering.run.resume import resume_run

    compiling()
    path = resume_run(run, progress, on_done=None if progress else typer.echo)
    typer.echo(f"wrote {path}")


@app.command()
def extend(
    run: Annotated[Path, typer.Argument(help="The run file of a finished run.")],
    draws: Annotated[int, typer.Option(help="Draws to add per chain.")],
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Add draws to a finished run (in place): the same draws as one longer run."""
    from tempering.run.resume import extend_run

    compiling()
    path = extend_run(run, draws, progress, on_done=None if progress else typer.echo)
    typer.echo(f"wrote {path}")


@app.command()
def rerun(
    run: Annotated[Path, typer.Argument(help="A run file written by `tempering sample`.")],
    out: Annotated[Path, typer.Option("--out", help="Run file to write (NetCDF).")],
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Rebuild a run from its file (same model, sampler, options, seed, chains, draws, layout)
    and write it again: the posterior is identical with the same package versions."""
    from tempering.run.files import rerun as rerun_file

    compiling()
    typer.echo(f"wrote {rerun_file(run, out, progress)}")


class ITWeights(StrEnum):
    optimal = "optimal"
    naive = "naive"
    st = "st"


@app.command()
def summary(
    run: Annotated[Path, typer.Argument(help="A run file written by `tempering sample`.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    weights: Annotated[ITWeights | None, typer.Option(
        help="Importance-tempering combination of the rungs (st, or pt with keep_all_rungs); "
             "default optimal.")] = None,
) -> None:
    """Per-parameter mean, sd, ESS, R-hat and MCSE, the run's totals, and warnings (R-hat, ESS,
    stuck chains, divergences, low headline acceptance)."""
    from tempering.cli.render import print_summary
    from tempering.run.loading import load_run
    from tempering.summary import summarize

    compiling()
    result = summarize(load_run(run, partial=True),
                       weights=None if weights is None else weights.value)
    if as_json:
        typer.echo(json.dumps(json_ready(result), indent=2, allow_nan=False))
    else:
        print_summary(result)


@app.command()
def models() -> None:
    """The built-in models, with their options and defaults."""
    from tempering.cli.catalog import print_catalog

    print_catalog("models")


@app.command()
def samplers() -> None:
    """The samplers, with their options and defaults."""
    from tempering.cli.catalog import print_catalog

    print_catalog("samplers")


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Directory for the run files.")] = Path("demo-run"),
    draws: Annotated[int, typer.Option(help="Draws per chain.")] = 1000,
    seed: Annotated[int, typer.Option(help="PRNG seed.")] = 0,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """NUTS against STT on the mcycle GP (unimodal: NUTS wins), and NUTS against PT on a
    two-mode mixture (NUTS stuck, PT right): summaries and two comparison tables."""
    from tempering.cli.demo import run_demo
    from tempering.run.output import check_output_path

    if not out.is_dir():
        check_output_path(out)  # its parent must exist; the directory itself is created
    compiling()
    run_demo(out, draws, seed, progress)


@app.command()
def reproduce(
    experiment: Annotated[str, typer.Argument(
        help="Which paper: gsk2010, li-wong, vdm2014, vdm2014-runtime, wang-neal2013.")],
    quick: Annotated[bool, typer.Option(help="Smaller settings that finish in minutes.")] = False,
    out: Annotated[Path, typer.Option(help="Directory for tables, CSV and plots.")] =
    Path("reproductions"),
    only: Annotated[str | None, typer.Option(
        help="Comma-separated parts to run (li-wong: tied, logistic, bnn, ee).")] = None,
    workers: Annotated[int | None, typer.Option(
        help="vdm2014: make the runs as tasks on a local Dask cluster of N processes.")] = None,
    scheduler: Annotated[str | None, typer.Option(
        help="vdm2014: make the runs as tasks on the Dask cluster at this address.")] = None,
) -> None:
    """Reproduce a seed paper's tables and figures beside the published numbers."""
    from tempering.errors import UserInputError
    from tempering.experiments import EXPERIMENTS, prepare_out

    spec = EXPERIMENTS.get(experiment)
    compiling()
    spread = {}
    if workers is not None or scheduler is not None:
        if not spec.fans_out:
            raise UserInputError(f"--workers/--scheduler: {experiment} does not spread its runs "
                                 "over a cluster (vdm2014 does)")
        spread = {"workers": workers, "scheduler": scheduler}
    if only is None:
        spec.run(quick=quick, out=prepare_out(out), **spread)
        return
    named = [p.strip() for p in only.split(",") if p.strip()]
    unknown = [p for p in named if p not in spec.parts]
    if not spec.parts:
        raise UserInputError(f"--only: {experiment} has no parts to choose from")
    if unknown or not named:
        raise UserInputError(f"--only: unknown part {', '.join(unknown) or repr(only)} "
                             f"(choose from {', '.join(spec.parts)})")
    spec.run(quick=quick, out=prepare_out(out), only=only)


@app.command()
def predict(
    run: Annotated[Path, typer.Argument(help="A GP run file written by `tempering sample`.")],
    x: Annotated[Path, typer.Option("--x", help="CSV of new covariates (training columns).")],
    out: Annotated[Path | None, typer.Option(help="CSV to write (default: X with .pred.csv).")]
    = None,
    max_draws: Annotated[int, typer.Option(help="Use at most this many draws, evenly thinned.")]
    = 500,
) -> None:
    """Posterior predictive mean and sd of new responses (noise included), averaged over draws."""
    from tempering.errors import UserInputError
    from tempering.run.output import check_output_path
    from tempering.run.predict import predict_run, write_predictions

    if not x.is_file():
        raise UserInputError(f"covariate file not found: {x}")
    out = check_output_path(out if out is not None else x.with_name(f"{x.stem}.pred.csv"))
    compiling()
    predictions = predict_run(run, x, max_draws)
    path = write_predictions(predictions, out)
    typer.echo(f"wrote {path} ({len(predictions.mean)} points, {predictions.n_draws} draws)")


@app.command()
def bench(
    name: Annotated[str, typer.Argument(
        help="Which benchmark: gp-grad, mint, ee, ensemble, pt, pt-scale, multimodal, io, "
             "startup, tall, tall-mixture.")],
    n: Annotated[int | None, typer.Option(
        help="Data points (gp-grad: an n × n covariance, default 1024; mint: a synthetic "
             "stand-in instead of the bundled digits; ee: the mixture's, default 2000; "
             "ensemble: one size for the slow-evaluation timings instead of 100 and 500).")]
    = None,
    dim: Annotated[int | None, typer.Option(
        help="Covariates D (gp-grad: default 18; mint: synthetic features; pt-scale: the "
             "mixture's dimension, default 10; multimodal: the Gaussian mixture's, instead "
             "of 10 and 30; startup: the samplers' mixture, default 10).")] = None,
    repeats: Annotated[int | None, typer.Option(
        help="Timed rounds; medians are reported (default 10; ensemble: 3; ee: the budget, "
             "× 2000 data passes, default 75; pt: thousands of draws per chain, default 4; "
             "pt-scale: hundreds of draws per chain, default 2; multimodal, startup: a factor "
             "on every run's length, default 1).")
    ] = None,
    quick: Annotated[bool, typer.Option(
        help="multimodal, io, startup, tall, tall-mixture: tiny targets and runs (seconds "
             "each; what the tests run).")]
    = False,
    out: Annotated[Path | None, typer.Option(
        help="multimodal: directory for the plots and multimodal.json (default "
             "multimodal-bench); startup: a JSON file of every row; tall: directory for the "
             "plots and the cached references (default tall-bench); tall-mixture: directory "
             "for the plots (default tall-mixture-bench).")] = None,
    only: Annotated[str | None, typer.Option(
        help="multimodal: comma-separated targets (gauss-mixture-10d, gauss-mixture-30d, "
             "mixture, spike-slab, eggbox, scaled-normal); startup: sampler names and those "
             "targets; tall: contender labels (nuts, hmc, sgld, mint, 'numpyro nuts', …); "
             "tall-mixture: contender labels (pt, spt, stt, mintee, 'numpyro nuts', smc).")]
    = None,
    rows: Annotated[str | None, typer.Option(
        help="tall: comma-separated data sizes n (default 10000,100000,1000000); "
             "tall-mixture: the mixture's data points n (default 10000,100000).")] = None,
    dims: Annotated[str | None, typer.Option(
        help="tall: comma-separated coefficient counts d (default 10,50).")] = None,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="tall: a JSON file of every row, curve and reference; tall-mixture: "
                       "a JSON file of every row and curve.")] = None,
) -> None:
    """Time a computation after compilation (gp-grad: GP value+gradient in Cholesky units;
    mint: data passes to 99% test accuracy, MINT vs full-batch MH; ee: data passes to visit all
    50 modes and to a mode-mass error of 0.005, MINTEE vs EE vs PT; ensemble: seconds per slow
    evaluation, Metropolis vs the ensembles, and min-ESS/s vs NUTS and NumPyro on GP-ARD; pt:
    round trips and mode-indicator ESS/s, adaptive DEO PT vs geometric sweep PT; pt-scale:
    compile seconds and scans/s of PT against rungs and chains, RWM and HMC; multimodal: PT at
    its defaults vs NUTS, BlackJAX SMC, dynesty and ptemcee on targets with exact mode masses
    and log Z — errors, seconds and error against time, one table and one PNG per target; io:
    peak memory against run length and seconds per checkpoint against draws written; startup:
    a first run's seconds by phase — import, build, pilot, tracing, lowering, compiling, warmup,
    sampling, writing — for every sampler and for PT on the multimodal targets, each in a fresh
    process with no compilation cache, beside NumPyro's NUTS and BlackJAX's SMC; tall: logistic
    regression on 10⁴–10⁶ rows, the library's NUTS, HMC, SGLD, SGHMC and MINT beside NumPyro's
    NUTS and HMCECS, each a cold process — seconds to 0.1 posterior sd, final error, compile
    apart, data passes, peak memory, one table and one PNG per size; tall-mixture: label
    switching on a 3-component mixture with 10⁴ and 10⁵ points, the library's PT, SPT, STT and
    MINTEE beside BlackJAX's SMC and NumPyro's NUTS, each a cold process — seconds to an
    ordering error of 0.05 with every ordering in every chain, final error, orderings per chain,
    compile apart, data evaluations, peak memory, one table and one PNG per n)."""
    import inspect

    from tempering import compile_cache
    from tempering.bench import BENCHMARKS
    from tempering.errors import UserInputError

    spec = BENCHMARKS.get(name)
    extra: dict = {} if repeats is None else {"repeats": repeats}
    extra |= {key: value for key, value in (("quick", quick or None), ("out", out),
                                            ("only", only), ("rows", rows), ("dims", dims),
                                            ("json_out", json_out)) if value is not None}
    takes = inspect.signature(spec.run).parameters
    flags = {"json_out": "--json"}
    refused = [flags.get(key, f"--{key}") for key in extra if key not in takes]
    if refused:
        raise UserInputError(f"bench {name}: {', '.join(refused)} does not apply")
    with compile_cache.fresh():  # compilation is measured: no program comes from earlier runs
        spec.run(n=n, dim=dim, **extra)


@app.command()
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run files written by `tempering sample`.")],
    out: Annotated[Path, typer.Option("--out", help="HTML file to write.")],
) -> None:
    """One self-contained HTML page: each run's settings, summary table, trace and rank plots
    and its sampler's statistics; several runs are also compared (ESS/s, ESS per cost)."""
    from tempering.report import write_report

    compiling()
    typer.echo(f"wrote {write_report(runs, out)}")
