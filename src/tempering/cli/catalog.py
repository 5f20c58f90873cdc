"""``tempering models`` and ``tempering samplers``: what exists, with options and defaults."""

from __future__ import annotations

from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from rich.console import Console
from rich.table import Table


def _annotation(field) -> str:
    text = str(field.annotation)
    for noise in ("typing.", "<class '", "'>", "annotated_types."):
        text = text.replace(noise, "")
    return text


def options_table(title: str, entries: dict[str, tuple[type[BaseModel], str]]) -> Table:
    """One row per option of each entry: name, option, type, default."""
    table = Table(title=title, show_lines=True)
    for column in ("name", "summary", "options (default)"):
        table.add_column(column)
    for name, (options, summary) in entries.items():
        lines = []
        for key, field in options.model_fields.items():
            default = "—" if field.default is PydanticUndefined else repr(field.default)
            lines.append(f"{key} = {default}  [{_annotation(field)}]")
        table.add_row(name, summary, "\n".join(lines))
    return table


def print_catalog(kind: str) -> None:
    if kind == "models":
        from tempering.models import MODELS

        entries = {name: (e.options, e.summary) for name, e in MODELS.items()}
    else:
        from tempering.algorithms import SAMPLERS

        entries = {name: (e.options, e.summary) for name, e in SAMPLERS.items()}
    Console().print(options_table(kind, entries))
