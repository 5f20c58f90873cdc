"""The documentation site's generated pages: the catalog of samplers, models and kernels, and the
command-line reference.

Both are read from what the package declares — the registries' specs (options classes with their
defaults, types and descriptions; the statistics a sampler writes with their dims and meanings) and
the typer application — so the site cannot fall behind the code. ``docs/hooks.py`` adds the pages
to the mkdocs build; ``tests/package/test_docs.py`` checks that every registered spec and option
appears.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from tempering.cli.catalog import format_default, option_type

#: (page, title, what the page lists, the registry's CLI section or None).
CATALOG_PAGES = (
    ("samplers", "Samplers", "every registered sampler", "sampler"),
    ("models", "Models", "every registered model", "model"),
    ("kernels", "Inner kernels", "every inner kernel a tempering sampler may use", None),
)


def _cell(text: str) -> str:
    """Markdown table cell: pipes escaped, newlines folded."""
    return " ".join(str(text).split()).replace("|", "\\|")


def rst_to_markdown(text: str) -> str:
    """A docstring's reStructuredText roles and literals as Markdown code spans: ``:mod:`a.b```
    and ````x```` become `` `a.b` `` and `` `x` ``."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def options_doc(options: type[BaseModel]) -> list[str]:
    """The options class's own docstring (what its options mean), as Markdown paragraphs."""
    doc = options.__dict__.get("__doc__")
    return [rst_to_markdown(inspect.cleandoc(doc))] if doc else []


def options_table(options: type[BaseModel]) -> list[str]:
    """One row per option: name, default, type, meaning."""
    if not options.model_fields:
        return ["No options."]
    rows = ["| option | default | type | meaning |", "|---|---|---|---|"]
    for key, field in options.model_fields.items():
        default = format_default(field.get_default(call_default_factory=True))
        rows.append(f"| `{key}` | `{_cell(default)}` | `{_cell(option_type(field))}` | "
                    f"{_cell(field.description or '')} |")
    return rows


def stats_table(stats: Iterable[Any]) -> list[str]:
    """One row per statistic a sampler may write: name, dims, meaning."""
    stats = tuple(stats)
    if not stats:
        return []
    rows = ["The statistics it may write (`sample_stats` in the run file):", "",
            "| statistic | dims | meaning |", "|---|---|---|"]
    rows += [f"| `{s.name}` | {', '.join(f'`{d}`' for d in s.dims) or '—'} | {_cell(s.meaning)} |"
             for s in stats]
    return rows


def _registry(page: str) -> Iterable[Any]:
    if page == "samplers":
        from tempering.algorithms import SAMPLERS

        return SAMPLERS
    if page == "models":
        from tempering.models import MODELS

        return MODELS
    from tempering.kernels import KERNELS

    return KERNELS


def catalog_page(page: str) -> str:
    """The Markdown of one catalog page (``samplers``, ``models`` or ``kernels``)."""
    _, title, what, section = next(entry for entry in CATALOG_PAGES if entry[0] == page)
    lines = [f"# {title}", "",
             f"Generated from the registry at build time: {what}, with its options (defaults, "
             f"types and meanings as the options class declares them)."]
    if section is not None:
        lines += ["", f"Set an option with `--set {section}.KEY=VALUE` or in the `[{section}]` "
                      f"table of `--config`; `tempering {page}` prints the same in a terminal."]
    else:
        lines += ["", "Choose one with `--set sampler.inner=NAME`; its options are set beside "
                      "the sampler's (`--set sampler.step_size=0.1`)."]
    for spec in _registry(page):
        lines += ["", f"## `{spec.name}`", "", _cell(spec.summary), "",
                  *options_table(spec.options)]
        about = options_doc(spec.options)
        if about:
            lines += ["", *about]
        stats = stats_table(getattr(spec, "stats", ()))
        if stats:
            lines += ["", *stats]
    return "\n".join(lines) + "\n"


def cli_page() -> str:
    """The Markdown of every ``tempering`` command with its arguments and options (typer's own
    documentation generator, on the application the CLI runs)."""
    import typer.main
    from typer.cli import get_docs_for_click

    from tempering.cli.app import app

    command = typer.main.get_command(app)
    body = get_docs_for_click(obj=command, ctx=typer.Context(command), name="tempering",
                              title="Command-line reference")
    return body.rstrip() + "\n"
