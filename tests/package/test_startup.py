"""Start-up (issue 44): ``import tempering`` is a lazy facade that imports no JAX, ArviZ or
sampler; ``tempering --help`` imports no JAX; ``tempering sample`` loads no ArviZ, SciPy
statistics, matplotlib, xarray or pandas; and JAX's settings (:mod:`tempering.jax_setup`: the
LAPACK rule, no precision) are in force before any of the package's JAX code runs, whichever
part is imported first. Each check runs in a fresh interpreter (this one has imported everything
already). Timings are not tests: they are in CHANGELOG.md."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tempering

SRC = Path(tempering.__file__).parent
#: Modules that import JAX before its settings exist: the settings themselves and the rule they
#: install.
SETTERS = ("tempering.jax_setup", "tempering.lapack_batching")
SETUP = "tempering.jax_setup"

def run_python(script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def loaded_after(script: str, names: tuple[str, ...]) -> list[str]:
    """Which of the modules ``names`` a fresh interpreter has loaded after ``script``."""
    probe = (f"{script}\nimport json, sys\n"
             f"print(json.dumps(sorted(set({names!r}) & set(sys.modules))))")
    return json.loads(run_python(probe).stdout.splitlines()[-1])


HEAVY = ("arviz", "scipy.stats", "matplotlib", "blackjax", "numpyro", "pymc", "xarray", "jax",
         "pandas", "tempering.models", "tempering.kernels", "tempering.run")


def test_import_tempering_loads_nothing_heavy():
    assert loaded_after("import tempering", HEAVY) == []


def test_every_public_name_resolves():
    assert set(tempering.__all__) <= set(dir(tempering))
    for name in tempering.__all__:
        assert getattr(tempering, name) is not None, name
    from tempering.models import Model
    from tempering.run.driver import sample

    assert tempering.Model is Model and tempering.sample is sample
    assert tempering.lapack_batching is importlib.import_module("tempering.lapack_batching")
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        tempering.nonexistent  # noqa: B018


def test_public_names_resolve_in_a_fresh_process():
    script = ("import tempering\n"
              "missing = [n for n in tempering.__all__ if getattr(tempering, n, None) is None]\n"
              "assert not missing, missing\n")
    run_python(script)


def test_help_imports_no_jax():
    """``tempering --help`` and every ``tempering COMMAND --help`` (exit 0) import neither JAX
    nor the samplers nor ArviZ."""
    script = ("from tempering.cli.app import app\n"
              "from tempering.cli.main import main\n"
              "commands = [c.name or c.callback.__name__ for c in app.registered_commands]\n"
              "assert len(commands) > 5, commands\n"
              "for argv in (['--help'], *([c, '--help'] for c in commands)):\n"
              "    try:\n"
              "        main(argv)\n"
              "    except SystemExit as stop:\n"
              "        assert stop.code in (0, None), (argv, stop.code)\n")
    assert loaded_after(script, HEAVY) == []


def test_sample_loads_only_what_it_uses(tmp_path):
    """A run written by ``tempering sample`` goes through h5netcdf: no ArviZ, SciPy statistics,
    matplotlib, xarray or pandas."""
    out = tmp_path / "run.nc"
    script = ("from tempering.cli.main import main\n"
              "try:\n"
              f"    main(['sample', '--model', 'mvn_mean', '--set', 'model.dim=2', '--sampler', "
              f"'rwm', '--chains', '1', '--draws', '5', '--warmup', '0', '--no-progress', "
              f"'--out', {str(out)!r}])\n"
              "except SystemExit as stop:\n"
              "    assert stop.code in (0, None), stop.code\n")
    unwanted = ("arviz", "scipy.stats", "matplotlib", "xarray", "pandas", "numpyro", "pymc",
                "distributed")
    assert loaded_after(script, (*unwanted, "h5netcdf")) == ["h5netcdf"]
    assert out.is_file()


@pytest.mark.parametrize("module", ["tempering.models", "tempering.ladders", "tempering.numerics"])
def test_a_part_imported_alone_sets_its_rule_and_no_precision(module):
    """Importing one part of the package alone puts JAX's settings in force — the per-matrix
    LAPACK rule where this jaxlib needs it (``TEMPERING_LAPACK_PER_MATRIX`` unset) — and leaves
    JAX's precision as it was (float32: :mod:`tempering.precision`)."""
    script = (f"import {module}\n"
              "import jax\n"
              "from tempering import lapack_batching\n"
              "print(jax.config.jax_enable_x64, lapack_batching.installed() == "
              "lapack_batching.needed())\n")
    env = {k: v for k, v in os.environ.items() if k != "TEMPERING_LAPACK_PER_MATRIX"}
    assert run_python(script, env).stdout.split() == ["False", "True"]


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")


def imported(tree: ast.AST) -> set[str]:
    """Every module an import in ``tree`` names (lazy ones included)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def sets_up_first(path: Path) -> bool:
    """Whether the file imports :data:`SETUP` at its top level, before any other module of the
    package."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if SETUP in names:
            return True
        if any(name.split(".")[0] == "tempering" for name in names):
            return False
    return False


def jax_modules() -> list[Path]:
    return [path for path in sorted(SRC.rglob("*.py"))
            if module_name(path) not in SETTERS
            and any(name.split(".")[0] == "jax"
                    for name in imported(ast.parse(path.read_text(encoding="utf-8"))))]


@pytest.mark.parametrize("path", jax_modules(),
                         ids=lambda p: str(p.relative_to(SRC)))
def test_jax_settings_come_first(path):
    """Every module that imports JAX is set up first: it imports :data:`SETUP` itself, before
    the package's other modules, or its first-level package's ``__init__`` does."""
    parts = path.relative_to(SRC).parts
    opener = SRC / parts[0] / "__init__.py" if len(parts) > 1 else path
    assert sets_up_first(opener), f"{opener.relative_to(SRC)} does not import {SETUP} first"


def test_jax_modules_are_found():
    found = {str(path.relative_to(SRC)) for path in jax_modules()}
    assert {"numerics.py", "compile_cache.py", "models/base.py", "kernels/rwm.py"} <= found


def runtime_imports(tree: ast.Module) -> set[str]:
    """Modules the file's imports name, lazy ones included, except those under
    ``if TYPE_CHECKING``."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update(imported(node))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def test_arviz_only_through_lazy_arviz():
    """ArviZ is imported by :func:`tempering.lazy_arviz.arviz` alone (Numba hidden, its flag
    off); elsewhere only for annotations, under ``TYPE_CHECKING``."""
    direct = [str(path.relative_to(SRC)) for path in sorted(SRC.rglob("*.py"))
              if module_name(path) != "tempering.lazy_arviz"
              and any(name.split(".")[0] == "arviz"
                      for name in runtime_imports(ast.parse(path.read_text(encoding="utf-8"))))]
    assert not direct, f"import ArviZ through tempering.lazy_arviz.arviz(): {direct}"


def test_cli_chain_methods_are_the_driver_s():
    from tempering.cli.app import ChainMethod as CliChainMethod
    from tempering.run.driver import ChainMethod

    assert [m.value for m in CliChainMethod] == [m.value for m in ChainMethod]
