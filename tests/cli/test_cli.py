"""The command line, run in-process: one-line input errors with exit code 2, and the happy paths."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import arviz as az
import numpy as np
import pytest
import xarray as xr
from cli_helpers import run_cli

from tempering.cli.main import main
from tempering.run.output import run_attr

TINY = ["--chains", "2", "--draws", "20", "--warmup", "10", "--seed", "1", "--no-progress"]
SMALL_MVN = ["--set", "model.n=10", "--set", "model.dim=2"]


def sample_args(out: Path, *extra, model: str = "mvn_mean", sampler: str = "rwm") -> list:
    return ["sample", "--model", model, "--sampler", sampler, *TINY, *extra, "--out", out]


def csv_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- bad inputs
#
# Each case builds its inputs in tmp_path and returns (argv, fragments the one error line must
# contain). Every sample case writes (or would write) tmp_path / "run.nc".

Case = Callable[[Path], tuple[list, list[str]]]


def _mvn(*extra) -> Case:
    return lambda tmp: (sample_args(tmp / "run.nc", *SMALL_MVN, *extra), [])


def _with(case: Case, *fragments: str) -> Case:
    def build(tmp: Path):
        args, _ = case(tmp)
        return args, list(fragments)

    return build


def _mvn_data(name: str, text: str, *fragments: str, extra: tuple = ()) -> Case:
    def build(tmp: Path):
        path = csv_file(tmp, name, text)
        args = sample_args(tmp / "run.nc", "--set", f"model.data={path}", *extra)
        return args, [name, *fragments]

    return build


def _cov(name: str, text: str, *fragments: str) -> Case:
    def build(tmp: Path):
        data = csv_file(tmp, "data.csv", "1,2\n3,4\n5,6\n")
        cov = csv_file(tmp, name, text)
        args = sample_args(tmp / "run.nc", "--set", f"model.data={data}",
                           "--set", f"model.cov={cov}")
        return args, [name, *fragments]

    return build


def _config(name: str, text: str | None, *fragments: str) -> Case:
    def build(tmp: Path):
        path = tmp / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        return sample_args(tmp / "run.nc", *SMALL_MVN, "--config", path), [name, *fragments]

    return build


def _config_only(name: str, text: str, *fragments: str) -> Case:
    """``sample --config FILE`` with no --model or --sampler flag (the file names them)."""
    def build(tmp: Path):
        path = csv_file(tmp, name, text)
        return ["sample", "--config", path, *TINY, "--out", tmp / "run.nc"], list(fragments)

    return build


def _gp_no_y(tmp: Path):
    path = csv_file(tmp, "noy.csv", "a,b\n1,2\n3,4\n5,7\n")
    args = sample_args(tmp / "run.nc", "--set", f"model.data={path}", model="gp_regression")
    return args, ["noy.csv", "no column named y"]


def _missing_out_dir(tmp: Path):
    return sample_args(tmp / "missing_dir" / "run.nc", *SMALL_MVN), ["missing_dir",
                                                                      "does not exist"]


def _summary_missing(tmp: Path):
    return ["summary", tmp / "absent.nc"], ["absent.nc", "not found"]


def _summary_text(tmp: Path):
    path = csv_file(tmp, "notes.nc", "this is not NetCDF\n")
    return ["summary", path], ["notes.nc", "not a tempering run file"]


def _summary_plain_netcdf(tmp: Path):
    path = tmp / "plain.nc"
    xr.Dataset({"a": ("x", np.arange(3.0))}).to_netcdf(path, engine="h5netcdf")
    return ["summary", "--json", path], ["plain.nc", "not a tempering run file", "posterior"]


BAD_INPUTS: dict[str, Case] = {
    "unknown-model": lambda tmp: (sample_args(tmp / "run.nc", model="bogus_model"),
                                  ["unknown model", "bogus_model"]),
    "unknown-sampler": lambda tmp: (sample_args(tmp / "run.nc", *SMALL_MVN,
                                                sampler="bogus_sampler"),
                                    ["unknown sampler", "bogus_sampler"]),
    "unknown-model-option": _with(_mvn("--set", "model.bogus=1"), "model.bogus: unknown option"),
    "unknown-sampler-option": _with(_mvn("--set", "sampler.bogus=1"),
                                    "sampler.bogus: unknown option"),
    "model-n-not-int": _with(_mvn("--set", "model.n=abc"), "model.n: ", "'abc'"),
    "step-size-not-number": _with(_mvn("--set", "sampler.step_size=fast"),
                                  "sampler.step_size: ", "'fast'"),
    "step-size-list-element": _with(_mvn("--set", "sampler.step_size=[0.1, -1]"),
                                    "sampler.step_size.1: ", "greater than 0", "-1"),
    "step-size-wrong-length": _with(_mvn("--set", "sampler.step_size=[0.1, 0.2, 0.3]"),
                                    "sampler.step_size: ", "got 3"),
    "numeric-data-name-is-a-file-name": lambda tmp: (
        sample_args(tmp / "run.nc", "--set", "model.data=123"), ["data file not found: 123"]),
    "kernel-not-allowed": lambda tmp: (
        sample_args(tmp / "run.nc", "--set", "model.kernel=cubic", model="gp_regression"),
        ["model.kernel: ", "'cubic'"]),
    "dim-negative": _with(_mvn("--set", "model.dim=-3"), "model.dim: ", "greater than 0", "-3"),
    "n-zero": _with(_mvn("--set", "model.n=0"), "model.n: ", "greater than 0"),
    "chains-zero": _with(_mvn("--chains", "0"), "chains must be at least 1", "got 0"),
    "draws-zero": _with(_mvn("--draws", "0"), "draws must be at least 1", "got 0"),
    "chains-not-int": _with(_mvn("--chains", "many"), "--chains"),
    "set-without-dot": _with(_mvn("--set", "modeln=3"), "--set modeln=3", "model.KEY=VALUE"),
    "set-without-equals": _with(_mvn("--set", "model.n"), "--set model.n:", "model.KEY=VALUE"),
    "set-unknown-section": _with(_mvn("--set", "foo.x=1"), "unknown section 'foo'"),
    "missing-data-file": lambda tmp: (
        sample_args(tmp / "run.nc", "--set", f"model.data={tmp / 'nowhere.csv'}"),
        ["data file not found", "nowhere.csv"]),
    "csv-ragged": _mvn_data("ragged.csv", "1,2\n3,4\n5\n", "row 3 has 1 fields, expected 2"),
    "csv-text": _mvn_data("text.csv", "a,b\n1,2\n3,x\n", "row 3, column b", "'x'"),
    "csv-nan": _mvn_data("nan.csv", "1,2\nnan,3\n", "row 2, column 1", "not finite"),
    "csv-inf": _mvn_data("inf.csv", "1,2\n3,inf\n", "row 2, column 2", "not finite"),
    "csv-empty": _mvn_data("empty.csv", "", "empty"),
    "csv-blank-lines-row-number": _mvn_data("gaps.csv", "a,b\n\n1,2\n\n3,y\n", "row 5, column b"),
    "gp-csv-without-y": _gp_no_y,
    "cov-not-symmetric": _cov("asym.csv", "1,0.5\n0.2,1\n", "not symmetric"),
    "cov-not-positive-definite": _cov("notpd.csv", "1,2\n2,1\n", "not positive definite"),
    "cov-wrong-shape": _cov("shape.csv", "1,0,0\n0,1,0\n0,0,1\n", "2x2", "(3, 3)"),
    "n-with-data": _with(_mvn_data("data.csv", "1,2\n3,4\n", extra=("--set", "model.n=5")),
                         "model: n and dim", "combined with data"),
    "out-dir-missing": _missing_out_dir,
    "unknown-flag": _with(_mvn("--bogus"), "--bogus"),
    "bad-chain-method": _with(_mvn("--chain-method", "parallel"), "--chain-method",
                              "parallel"),
    "config-missing": _config("nope.toml", None, "config file not found"),
    "config-malformed": _config("bad.toml", "[model\nname = 1\n", "not a valid TOML file"),
    "config-unknown-table": _config("unk.toml", "[model]\ndim = 2\n[foo]\nx = 1\n",
                                    "unknown table [foo]"),
    "config-option-typo": _with(_config("typo.toml", '[sampler]\nstepsize = 0.1\n'),
                                "sampler.stepsize: unknown option (did you mean step_size?); "
                                "valid: step_size, adapt_step_size, target_accept"),
    "config-name-not-a-string": _config_only(
        "name.toml", '[model]\nname = [1]\n[sampler]\nname = "rwm"\n',
        "model name must be a string, got [1]"),
    "sampler-option-typo": _with(_mvn("--set", "sampler.stepsize=0.1"),
                                 "sampler.stepsize: unknown option (did you mean step_size?); "
                                 "valid: step_size, adapt_step_size, target_accept"),
    "inner-sampler-option-typo": lambda tmp: (
        sample_args(tmp / "run.nc", *SMALL_MVN, "--set", "sampler.rung=3", sampler="pt"),
        ["sampler.rung: unknown option (did you mean rungs?); valid: inner, rungs, beta_min",
         # the sampler's own options and its inner kernel's
         "step_size, num_steps, adapt_step_size"]),
    "unknown-option-nothing-close": _with(_mvn("--set", "model.zzzz=1"),
                                          "model.zzzz: unknown option; valid: data, cov, "),
    "option-not-finite": _with(_mvn("--set", "model.prior_sd=inf"), "model.prior_sd: ",
                               "finite number", "inf"),
    "list-option-not-finite": lambda tmp: (
        sample_args(tmp / "run.nc", "--set", "model.means=[0.0, nan]", model="mixture"),
        ["model.means.1: ", "finite number", "nan"]),
    "summary-missing-file": _summary_missing,
    "summary-not-netcdf": _summary_text,
    "summary-netcdf-not-a-run": _summary_plain_netcdf,
}


@pytest.mark.parametrize("case", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, case):
    args, fragments = case(tmp_path)
    before = {p.relative_to(tmp_path) for p in tmp_path.rglob("*")}
    code, out, err = run_cli(args, capsys)
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("tempering: error: ") and line.strip() != "tempering: error:"
    for fragment in fragments:
        assert fragment in line
    assert "Traceback" not in out + err
    assert not (tmp_path / "run.nc").exists()
    assert not (tmp_path / "missing_dir").exists()
    after = {p.relative_to(tmp_path) for p in tmp_path.rglob("*")}
    assert after == before  # no run file, no temporary file left behind


def test_output_path_is_checked_before_any_sampling(tmp_path, capsys, monkeypatch):
    import tempering.run.files

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled although the output path cannot be written")

    monkeypatch.setattr(tempering.run.files, "run_chains", no_sampling)
    code, _, err = run_cli(sample_args(tmp_path / "missing_dir" / "run.nc", *SMALL_MVN), capsys)
    assert code == 2
    assert err.startswith("tempering: error: output directory does not exist")
    assert not list(tmp_path.iterdir())


def test_failed_write_leaves_no_file(tmp_path, capsys, monkeypatch):
    """The run file is made whole under a temporary name, then renamed: a failure while making
    it leaves nothing (after that, the file is the run so far, resumable)."""
    from tempering.run import runfile

    def broken_write(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(runfile, "_make_checkpoint_group", broken_write)
    with pytest.raises(OSError, match="disk full"):
        main([str(a) for a in sample_args(tmp_path / "run.nc", *SMALL_MVN)])
    assert not list(tmp_path.iterdir())


def test_no_arguments_shows_help_and_exits_2(capsys):
    code, out, err = run_cli([], capsys)
    assert code == 2
    assert "sample" in out + err and "Traceback" not in out + err


# --------------------------------------------------------------------------- happy path


@pytest.fixture(scope="module")
def run_file(tmp_path_factory) -> Path:
    """One tiny mvn_mean / rwm run written through the CLI."""
    out = tmp_path_factory.mktemp("run") / "run.nc"
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in sample_args(out, *SMALL_MVN)])
    assert exc.value.code == 0
    return out


def test_sample_writes_run_file(tmp_path, capsys):
    out = tmp_path / "run.nc"
    code, stdout, err = run_cli(sample_args(out, *SMALL_MVN), capsys)
    assert code == 0, err
    assert f"wrote {out}" in stdout
    assert out.is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["run.nc"]  # no temporary file left
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_run_file_contents(run_file):
    idata = az.from_netcdf(run_file)
    assert {"posterior", "sample_stats"} <= set(idata.groups())
    assert idata.posterior["theta"].shape == (2, 20, 2)
    for name in ("acceptance_rate", "cost", "lp"):
        assert idata.sample_stats[name].shape == (2, 20)
    rate = idata.sample_stats["acceptance_rate"].values
    assert np.all((rate >= 0) & (rate <= 1))
    assert np.all(np.isfinite(idata.sample_stats["lp"].values))
    attrs = idata.posterior.attrs
    assert attrs["sampler"] == "rwm"
    assert attrs["model"] == "mvn_mean"
    assert attrs["seed"] == 1
    assert run_attr(idata, "model_options")["dim"] == 2
    assert run_attr(idata, "model_options")["n"] == 10


def test_summary_json(run_file, capsys):
    code, out, err = run_cli(["summary", "--json", run_file], capsys)
    assert code == 0, err
    result = json.loads(out)
    for key in ("params", "rhat_max", "ess_bulk_min", "ess_bulk_median", "wall_seconds",
                "cost_total", "ess_per_second", "ess_per_cost"):
        assert key in result
    assert set(result["params"]) == {"theta[0]", "theta[1]"}
    for row in result["params"].values():
        for key in ("mean", "sd", "ess_bulk", "ess_tail", "rhat", "mcse_mean"):
            assert isinstance(row[key], float), key
    idata = az.from_netcdf(run_file)
    theta = idata.posterior["theta"].values
    assert result["params"]["theta[1]"]["mean"] == pytest.approx(theta[..., 1].mean())
    assert result["cost_total"] == pytest.approx(float(idata.sample_stats["cost"].sum()))
    assert result["ess_bulk_min"] == pytest.approx(
        min(row["ess_bulk"] for row in result["params"].values()))
    assert result["rhat_max"] == pytest.approx(
        max(row["rhat"] for row in result["params"].values()))


def test_summary_json_is_strict_json_when_diagnostics_are_undefined(tmp_path, capsys):
    """With too few draws R-hat and ESS are NaN; ``--json`` must still print valid JSON."""
    out = tmp_path / "short.nc"
    args = ["sample", "--model", "mvn_mean", "--sampler", "rwm", *SMALL_MVN, "--chains", "2",
            "--draws", "3", "--warmup", "0", "--seed", "2", "--no-progress", "--out", out]
    assert run_cli(args, capsys)[0] == 0
    code, stdout, err = run_cli(["summary", "--json", out], capsys)
    assert code == 0, err

    def reject(token):
        raise AssertionError(f"not JSON: {token}")

    result = json.loads(stdout, parse_constant=reject)
    assert result["params"]["theta[0]"]["rhat"] == "nan"  # a string, never null
    assert isinstance(result["params"]["theta[0]"]["mean"], float)


def test_summary_table(run_file, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(["summary", run_file], capsys)
    assert code == 0, err
    for text in ("rwm on mvn_mean", "theta[0]", "theta[1]", "ess_bulk", "rhat", "R-hat max",
                 "ESS/s"):
        assert text in out
    assert not out.lstrip().startswith("{")


def test_summary_names_the_inner_kernel(tmp_path, capsys, monkeypatch):
    """PT's inner kernel depends on the model (RWM on 2 parameters): the summary's title says
    which one ran."""
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "pt.nc"
    fixed = ["--set", "sampler.schedule=fixed", "--set", "sampler.rungs=3"]
    assert run_cli(sample_args(out, *SMALL_MVN, *fixed, sampler="pt"), capsys)[0] == 0
    code, stdout, err = run_cli(["summary", out], capsys)
    assert code == 0, err
    assert "pt (rwm inside) on mvn_mean" in stdout


def test_config_file_with_set_override(tmp_path, capsys):
    config = tmp_path / "run.toml"
    config.write_text('[model]\nname = "mvn_mean"\ndim = 2\nn = 12\n\n'
                      '[sampler]\nname = "rwm"\nstep_size = 0.3\n', encoding="utf-8")
    out = tmp_path / "cfg.nc"
    args = ["sample", "--config", config, "--set", "model.dim=3", "--set",
            "sampler.step_size=0.5", *TINY, "--out", out]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    idata = az.from_netcdf(out)
    assert idata.posterior["theta"].shape == (2, 20, 3)  # --set beat dim = 2
    assert idata.posterior.attrs["sampler"] == "rwm"
    assert run_attr(idata, "model_options")["n"] == 12  # from the file
    assert run_attr(idata, "sampler_options")["step_size"] == 0.5


def test_model_flag_overrides_config_name(tmp_path, capsys):
    config = tmp_path / "run.toml"
    config.write_text('[model]\nname = "no_such_model"\n[sampler]\nname = "rwm"\n',
                      encoding="utf-8")
    out = tmp_path / "flag.nc"
    args = ["sample", "--config", config, "--model", "mvn_mean", *SMALL_MVN, *TINY, "--out", out]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    assert az.from_netcdf(out).posterior.attrs["model"] == "mvn_mean"


def test_missing_model_name(tmp_path, capsys):
    code, _, err = run_cli(["sample", "--sampler", "rwm", *TINY, "--out", tmp_path / "x.nc"],
                           capsys)
    assert code == 2
    assert err.startswith("tempering: error: no model given")
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- catalogs


def _option_lines(options) -> list[str]:
    from tempering.cli.catalog import format_default

    return [f"{key} = {format_default(field.default)}  ["
            for key, field in options.model_fields.items()]


def test_models_lists_names_options_defaults(capsys, monkeypatch):
    from tempering.models import MODELS

    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(["models"], capsys)
    assert code == 0, err
    assert {"mvn_mean", "gp_regression", "gp_const", "mixture"} <= set(MODELS.names())
    for spec in MODELS:
        assert spec.name in out
        for line in _option_lines(spec.options):
            assert line in out
    assert "n = None  [int > 0 | None]" in out
    assert "kernel = 'ard'  ['ard' | 'iso']" in out


def test_samplers_lists_names_options_defaults(capsys, monkeypatch):
    from tempering.algorithms import SAMPLERS

    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(["samplers"], capsys)
    assert code == 0, err
    assert {"rwm", "hmc", "nuts", "slice", "pt", "spt", "tt", "stt"} <= set(SAMPLERS.names())
    for spec in SAMPLERS:
        assert spec.name in out
        for line in _option_lines(spec.options):
            assert line in out
    assert "step_size = 0.1  [float > 0 | list[float > 0]]" in out


def test_catalog_defaults_are_rounded(capsys, monkeypatch):
    from tempering.cli.catalog import format_default

    assert format_default(0.5475701574264202) == "0.5476"
    assert format_default([0.123456789, 2.0, [1e-9, -1234567.0]]) == \
        "[0.1235, 2.0, [1e-09, -1.235e+06]]"
    assert format_default(1000.0) == "1000.0"  # still reads as a float
    assert [format_default(v) for v in (3, True, None, "ard")] == ["3", "True", "None", "'ard'"]
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(["models"], capsys)
    assert code == 0, err
    assert "beta = 0.5476  [float > 0]" in out
    assert "0.54757" not in out


@pytest.mark.parametrize("kind", ["models", "samplers"])
def test_catalog_fits_80_columns(capsys, monkeypatch, kind):
    """At 80 columns every line fits, and no option's ``key = default`` is broken across lines."""
    from rich.cells import cell_len

    from tempering.algorithms import SAMPLERS
    from tempering.models import MODELS

    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli([kind], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    for spec in MODELS if kind == "models" else SAMPLERS:
        assert any(line.startswith(f"{spec.name} — ") for line in lines), spec.name
        for option in _option_lines(spec.options):
            assert option.removesuffix("  [") in out, option


# --------------------------------------------------------------------------- help texts


def test_config_help_names_its_tables(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(["sample", "--help"], capsys)
    assert code == 0, err
    line = next(line for line in out.splitlines() if "--config" in line)
    assert "[model]" in line and "[sampler]" in line


def test_no_help_text_loses_text_to_rich_markup():
    """Help texts are rich markup: a bare ``[word]`` is a tag and vanishes unless escaped."""
    import typer.main
    from rich.text import Text

    from tempering.cli.app import app

    group = typer.main.get_command(app)
    texts = [group.help or ""]
    for command in group.commands.values():  # type: ignore[attr-defined]
        texts += [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
    for text in texts:
        assert Text.from_markup(text).plain == text.replace("\\[", "["), text


@pytest.mark.parametrize("args, code, stream, text", [
    (["samplers"], 0, "stdout", "The samplers"),
    (["sample", "--model", "nope", "--sampler", "pt", "--out", "x.nc"], 2, "stderr",
     "tempering: error: unknown model 'nope'"),
])
def test_the_console_script_ends_at_once_with_its_output_and_code(tmp_path, args, code, stream,
                                                                 text):
    """``entry`` (the ``tempering`` script) skips Python's teardown with ``os._exit``: what the
    command printed still arrives whole through a pipe, and the exit code is the command's."""
    import subprocess
    import sys

    script = ("import sys; from tempering.cli.main import entry; "
              f"sys.argv = {['tempering', *args]!r}; entry()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == code
    assert text in getattr(done, stream)
    if stream == "stdout":  # the last sampler's options, printed last, arrived
        assert done.stdout.rstrip().endswith(main_output_tail())


def main_output_tail() -> str:
    """The last line ``tempering samplers`` prints, in-process."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["samplers"])
    return out.getvalue().rstrip().splitlines()[-1].strip()
