"""The package's shape, checked from its source: imports point down the layers only, the
reproductions and the benchmarks use the public API only, and nothing outside the sampler specs
dispatches on a sampler's name (docs/architecture.md, "Layers")."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import tempering
from tempering import SAMPLERS

SRC = Path(tempering.__file__).parent

#: Layers from the bottom; a module may import its own layer and the ones below.
LAYERS = (
    ("errors", "numerics", "precision", "registry", "config", "lapack_batching", "compile_cache",
     "jax_setup", "starts",
     "lazy_arviz"),
    ("data",),
    ("gp",),
    ("models",),
    ("kernels",),
    ("ladders",),
    ("estimators",),
    ("algorithms",),
    ("run", "interop", "numpyro"),  # interop/: other libraries' drivers; numpyro.py: its facade
    ("summary",),
    ("experiments", "bench", "report"),
    ("cli",),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
#: What the reproductions and benchmarks may import: the top-level namespace and these packages'
#: ``__all__`` (:func:`test_top_layer_uses_the_public_api`).
PUBLIC_PACKAGES = ("algorithms", "estimators", "gp", "kernels", "ladders", "models", "summary")
#: Per top-layer folder whose files are held to the public API: the modules of layer 0 it may
#: also import, and the names. Both share the spec shape every registry has; a benchmark also
#: compiles in an empty compilation cache of its own, as ``tempering bench`` does, so that what
#: it times includes compilation (``compile_cache.fresh``, beside ``enable`` the module's
#: user-facing call). Both packages' ``__init__`` import ``tempering.jax_setup`` (no names: JAX's
#: settings before their modules' JAX code, as every package that uses JAX does), and both import
#: ArviZ the package's one way, ``tempering.lazy_arviz.arviz``.
_SETUP = {"tempering.jax_setup": set(), "tempering.lazy_arviz": {"arviz"}}
LOW_LEVEL = {"experiments": {"tempering.registry": {"Registry", "RunnableSpec"},
                             "tempering.precision": {"scope"}, **_SETUP},
             "bench": {"tempering.registry": {"Registry", "RunnableSpec"},
                       "tempering.compile_cache": {"fresh"}, **_SETUP}}


def modules() -> list[tuple[str, Path]]:
    return [(".".join(p.relative_to(SRC.parent).with_suffix("").parts), p)
            for p in sorted(SRC.rglob("*.py"))]


def imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module imported, names taken) for every import in the file, lazy ones included."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, tuple(alias.name for alias in node.names)))
    return out


def package(module: str) -> str | None:
    """The first-level package (or top-level module) of ``tempering.x.y`` → ``x``."""
    parts = module.split(".")
    return parts[1] if parts[0] == "tempering" and len(parts) > 1 else None


@pytest.mark.parametrize("module, path", [m for m in modules() if package(m[0]) is not None
                                          and package(m[0]) != "__init__"],
                         ids=lambda m: m if isinstance(m, str) else "")
def test_imports_point_down(module, path):
    own = package(module)
    assert own in RANK, f"{module}: its package is not in LAYERS"
    upward = []
    for imported, names in imports(path):
        if imported == "tempering":  # the public facade: only for the layers above the run file
            if RANK[own] < RANK["experiments"] and names:
                upward.append(f"tempering ({', '.join(names)})")
            continue
        target = package(imported)
        if target is not None and target != own and RANK.get(target, -1) > RANK[own]:
            upward.append(imported)
    assert not upward, f"{module} imports upward: {upward}"


def allowed_names(imported: str, folder: str) -> set[str] | None:
    """The names a file of ``folder`` may take from the module ``imported``; ``None`` when the
    module is not public to it.

    Every such file may import the top-level namespace (its ``__all__``), the ``__all__`` of the
    packages in :data:`PUBLIC_PACKAGES`, and the names :data:`LOW_LEVEL` lists for its folder. A
    benchmark may also import a reproduction's package, ``tempering.experiments.<paper>``, for the
    names in its ``__all__`` (``bench ee`` runs li-wong's §5.3 samplers at the paper's settings),
    never one of its modules.
    """
    parts = imported.split(".")
    if imported == "tempering":
        return set(tempering.__all__)
    if imported in LOW_LEVEL[folder]:
        return LOW_LEVEL[folder][imported]
    public = len(parts) == 2 and parts[1] in PUBLIC_PACKAGES
    reproduction = folder == "bench" and len(parts) == 3 and parts[1] == "experiments"
    if public or reproduction:
        return set(importlib.import_module(imported).__all__)
    return None


@pytest.mark.parametrize("path", [p for folder in LOW_LEVEL
                                  for p in sorted((SRC / folder).rglob("*.py"))],
                         ids=lambda p: str(p.relative_to(SRC)))
def test_top_layer_uses_the_public_api(path):
    """The reproductions (``experiments/``) and the benchmarks (``bench/``) use the public API
    only (:func:`allowed_names`); a file imports its own folder freely. Beyond the public
    namespaces, both may take ``Registry`` and ``RunnableSpec`` from ``tempering.registry``,
    import ``tempering.jax_setup`` and ``arviz`` from ``tempering.lazy_arviz``, a reproduction
    ``scope`` from ``tempering.precision`` (it calls a built sampler's functions by hand, which
    run in the model's precision: ``docs/architecture.md``), and a benchmark
    ``fresh`` from ``tempering.compile_cache`` and the ``__all__`` of a reproduction's package
    (:data:`LOW_LEVEL`)."""
    folder = path.relative_to(SRC).parts[0]
    private = []
    for imported, names in imports(path):
        parts = imported.split(".")
        if parts[0] != "tempering" or parts[1:2] == [folder]:
            continue
        allowed = allowed_names(imported, folder)
        if allowed is None:
            private.append(imported)
        else:
            private += [f"{imported}.{name}" for name in names if name not in allowed]
    assert not private, f"{path.relative_to(SRC)} uses non-public names: {private}"


def test_no_dispatch_on_sampler_names():
    """``== "pt"``, ``in ("pt", ...)`` and the like appear nowhere in the package: what differs
    between samplers is declared in their specs."""
    names = "|".join(map(re.escape, SAMPLERS.names()))
    pattern = re.compile(rf'(==|!=)\s*"({names})"|\bin \(\s*"({names})"')
    found = [f"{path.relative_to(SRC)}:{n}: {line.strip()}"
             for _, path in modules()
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert not found, found


ALGORITHMS = SRC / "algorithms"
#: The sampler families: one package each under ``algorithms/`` (docs/architecture.md).
FAMILIES = sorted(p.name for p in ALGORITHMS.iterdir() if (p / "__init__.py").is_file())


def family(module: str) -> str | None:
    """``tempering.algorithms.<family>.x`` → ``<family>``; ``None`` for the shared modules."""
    parts = module.split(".")
    if parts[:2] == ["tempering", "algorithms"] and len(parts) > 2 and parts[2] in FAMILIES:
        return parts[2]
    return None


@pytest.mark.parametrize("name", FAMILIES)
def test_families_import_no_other_family(name):
    """A family imports the shared modules of ``algorithms/`` and its own, never another family;
    only the registry (a shared module) lists them all."""
    crossing = [f"{path.relative_to(SRC)} imports {imported}"
                for path in sorted((ALGORITHMS / name).rglob("*.py"))
                for imported, _ in imports(path)
                if family(imported) not in (None, name)]
    assert not crossing, crossing


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_opens_with_its_map_and_lists_its_samplers(name):
    module = importlib.import_module(f"tempering.algorithms.{name}")
    doc = module.__doc__ or ""
    for path in sorted((ALGORITHMS / name).glob("*.py")):
        if path.stem != "__init__":
            assert f":mod:`.{path.stem}`" in doc, f"{name}'s map does not name {path.stem}"
    assert module.SPECS and all(spec.name in SAMPLERS.names() for spec in module.SPECS)


def test_few_modules_at_the_top_of_algorithms():
    """The shared modules only (issue 33: at most ~10); everything else is in a family."""
    top = sorted(p.name for p in ALGORITHMS.glob("*.py"))
    assert len(top) <= 10, top


def test_sampler_specs_are_declared_with_keywords():
    """One declaration per sampler, readable on its own: ``SamplerSpec(name=..., summary=...,
    options=..., build=..., ...)``, never by position (issue 33)."""
    positional = [f"{path.relative_to(SRC)}:{node.lineno}"
                  for path in sorted(SRC.rglob("*.py"))
                  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                  if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "SamplerSpec"
                  and node.args]
    assert not positional, positional
