"""The package's shape, checked from its source: imports point down the layers only, the
reproductions use the public API only, and nothing outside the sampler specs dispatches on a
sampler's name (docs/architecture.md, "Layers")."""

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
    ("errors", "numerics", "registry", "config", "lapack_batching", "compile_cache"),
    ("data",),
    ("gp",),
    ("models",),
    ("kernels",),
    ("ladders",),
    ("estimators",),
    ("algorithms",),
    ("run",),
    ("summary",),
    ("experiments", "bench", "report"),
    ("cli",),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
#: What the reproductions may import: the top-level namespace and these packages' ``__all__``.
PUBLIC_PACKAGES = ("algorithms", "estimators", "kernels", "ladders", "models", "summary")


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


@pytest.mark.parametrize("path", sorted((SRC / "experiments").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(SRC / "experiments")))
def test_reproductions_use_the_public_api(path):
    private = []
    for imported, names in imports(path):
        if not imported.startswith("tempering") or imported.startswith("tempering.experiments"):
            continue
        if imported == "tempering":
            allowed = set(tempering.__all__)
        elif imported == "tempering.registry":  # the spec shape every registry shares
            allowed = {"Registry", "RunnableSpec"}
        elif imported.removeprefix("tempering.") in PUBLIC_PACKAGES:
            allowed = set(importlib.import_module(imported).__all__)
        else:
            private.append(imported)
            continue
        private += [f"{imported}.{name}" for name in names if name not in allowed]
    assert not private, f"{path.name} uses non-public names: {private}"


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
