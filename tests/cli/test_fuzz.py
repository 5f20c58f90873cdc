"""Property-based fuzzing of the CLI's input checks (hypothesis).

Generated malformed inputs — TOML configs, ``--set`` values, CSV data files, run files given to
``tempering summary`` (strategies in :mod:`fuzz_strategies`) — must each end the CLI with exit code
2, exactly one line on stderr, nothing on stdout, no traceback and nothing written. They must also
fail during validation: sampling is replaced by a function that fails the property, and any JAX
tracing or compilation fails it too, which keeps this file to seconds.

Runs are reproducible (``derandomize=True``, no example database). The last tests show the
properties can fail: with the CSV loader's parse error let through unguarded, or with a valid
input, the same property reports a failure.
"""

from __future__ import annotations

import functools
import io
import tempfile
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import jax
import pytest
import typer.main
from fuzz_strategies import (
    SMALL_MODEL,
    OptionCase,
    broken_run_files,
    broken_toml,
    csv_cases,
    option_cases,
    semantic_toml,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import tempering.data.loaders
import tempering.run.files
from tempering.cli.main import main
from tempering.models import get_model

COMMON = {"deadline": None, "derandomize": True, "database": None, "report_multiple_bugs": False,
          "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much,
                                    HealthCheck.data_too_large]}
TINY = ["--chains", "1", "--draws", "2", "--warmup", "0", "--no-progress"]
_JAX_EVENTS: list[str] = []


def _count_jax_compiles(event: str, duration: float, **kwargs) -> None:
    if event.startswith("/jax/core/compile/") or event.startswith("/jax/compilation_cache/"):
        _JAX_EVENTS.append(event)


@pytest.fixture(scope="module", autouse=True)
def fuzz_setup():
    """Record JAX's tracing and compilation events while this module runs, and build the CLI's
    click command once.

    Sampler options are validated against a built model; building the small model once first
    lets JAX cache the tiny programs that move its arrays to the device (``jnp.asarray`` traces
    one per shape), so that any event afterwards is work done for an input that should have
    been rejected. Typer rebuilds the click command from the app's signatures on every call
    (most of a rejected call's time); the app does not change, so one build serves all.
    """
    get_model(SMALL_MODEL["name"], n=SMALL_MODEL["n"], dim=SMALL_MODEL["dim"])
    jax.monitoring.register_event_duration_secs_listener(_count_jax_compiles)
    with mock.patch.object(typer.main, "get_command", functools.cache(typer.main.get_command)):
        yield
    jax.monitoring.unregister_event_duration_listener(_count_jax_compiles)


def _refuse_sampling(*args, **kwargs):
    raise AssertionError("the input passed validation and reached sampling")


def run_captured(args: list) -> tuple[int, str, str]:
    """Run ``tempering ARGS`` in-process; an exception escaping the CLI is exit code 1 with its
    traceback on stderr, as the interpreter would print it."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main([str(a) for a in args])
            code: int = 0
        except SystemExit as exc:
            code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
        except Exception:
            traceback.print_exc()
            code = 1
    return code, out.getvalue(), err.getvalue()


def _files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def assert_rejected(args: list, folder: Path) -> None:
    """The fuzz property: exit 2, one error line, no traceback, no output, nothing written in
    ``folder``, no sampling and no JAX compilation."""
    before, events = _files(folder), len(_JAX_EVENTS)
    with mock.patch.object(tempering.run.files, "run_chains", _refuse_sampling):
        code, out, err = run_captured(args)
    report = f"\nargs: {args!r}\nexit code: {code}\nstdout: {out!r}\nstderr: {err!r}"
    assert "Traceback" not in out + err, report
    assert code == 2, report
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempering: error: "), report
    assert out == "", report
    assert _files(folder) == before, "something was written" + report
    assert len(_JAX_EVENTS) == events, f"JAX compiled: {_JAX_EVENTS[events:]}" + report


def sample_args(folder: Path, *extra, model: str = "mvn_mean", sampler: str = "rwm") -> list:
    return ["sample", "--model", model, "--sampler", sampler, *TINY, *extra,
            "--out", folder / "run.nc"]


# --------------------------------------------------------------------------- TOML configs


def check_config(contents: bytes | str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "run.toml"
        path.write_bytes(contents if isinstance(contents, bytes) else contents.encode("utf-8"))
        assert_rejected(["sample", "--config", path, *TINY, "--out", folder / "run.nc"], folder)


@settings(max_examples=150, **COMMON)
@given(contents=broken_toml())
def test_toml_syntax_errors_are_rejected(contents):
    check_config(contents)


@settings(max_examples=200, **COMMON)
@given(contents=semantic_toml())
def test_bad_toml_configs_are_rejected(contents):
    check_config(contents)


# --------------------------------------------------------------------------- --set


def check_set(case: OptionCase) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = [] if case.section == "model" else [
            "--set", f"model.n={SMALL_MODEL['n']}", "--set", f"model.dim={SMALL_MODEL['dim']}"]
        args = sample_args(folder, *small, "--set", f"{case.section}.{case.key}={case.text}",
                           model=case.model, sampler=case.sampler)
        assert_rejected(args, folder)


@settings(max_examples=250, **COMMON)
@given(case=option_cases("sampler"))
def test_bad_sampler_options_are_rejected(case):
    check_set(case)


@settings(max_examples=200, **COMMON)
@given(case=option_cases("model"))
def test_bad_model_options_are_rejected(case):
    check_set(case)


# --------------------------------------------------------------------------- CSV data


def check_csv(case: tuple[str, str, bytes]) -> None:
    model, target, contents = case
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "data.csv"
        path.write_bytes(contents)
        assert_rejected(sample_args(folder, "--set", f"model.{target}={path}", model=model),
                        folder)


@settings(max_examples=200, **COMMON)
@given(case=csv_cases())
def test_bad_csv_files_are_rejected(case):
    check_csv(case)


# --------------------------------------------------------------------------- run files


@pytest.fixture(scope="module")
def run_bytes(tmp_path_factory) -> bytes:
    """A real small run file (1 chain, 5 draws of mvn_mean with rwm), as bytes."""
    path = tmp_path_factory.mktemp("fuzz") / "run.nc"
    code, _, err = run_captured(sample_args(path.parent, "--set", "model.n=5", "--set",
                                            "model.dim=1", "--draws", "5"))
    assert code == 0, err
    code, _, err = run_captured(["summary", "--json", path])
    assert code == 0, err  # the intact file is fine: what fails below is the damage
    return path.read_bytes()


def check_run_file(contents: bytes, as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "broken.nc"
        path.write_bytes(contents)
        assert_rejected(["summary", *(["--json"] if as_json else []), path], folder)


@settings(max_examples=150, **COMMON)
@given(data=st.data(), as_json=st.booleans())
def test_broken_run_files_are_rejected(run_bytes, data, as_json):
    check_run_file(data.draw(broken_run_files(run_bytes), label="contents"), as_json)


# --------------------------------------------------------------------------- the fuzz can fail


def test_fuzz_reports_a_parse_error_that_escapes(monkeypatch):
    """With the CSV loader's number parsing unguarded (a bare ValueError), the CSV property
    fails, naming the traceback."""

    def unguarded(cell: str) -> float:
        return float(cell)  # raises ValueError on "a", as the loader must not

    monkeypatch.setattr(tempering.data.loaders, "_parse", unguarded)
    property_ = settings(max_examples=50, phases=[Phase.generate], **COMMON)(
        given(case=csv_cases())(check_csv))
    with pytest.raises(AssertionError, match="ValueError"):
        property_()


def test_fuzz_reports_a_valid_input(tmp_path):
    """A valid input reaches sampling, and the property says so."""
    data = tmp_path / "ok.csv"
    data.write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="reached sampling"):
        assert_rejected(sample_args(tmp_path, "--set", f"model.data={data}"), tmp_path)
