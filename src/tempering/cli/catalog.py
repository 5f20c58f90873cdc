"""``tempering models`` and ``tempering samplers``: what exists, with options and defaults."""

from __future__ import annotations

import types
import typing

import annotated_types
from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from rich.console import Console
from rich.markup import escape
from rich.table import Table

_BOUNDS = ((annotated_types.Gt, "gt", ">"), (annotated_types.Ge, "ge", ">="),
           (annotated_types.Lt, "lt", "<"), (annotated_types.Le, "le", "<="))


def _constraints(metadata) -> str:
    bounds = [f"{sign} {getattr(item, attr)}" for item in metadata
              for kind, attr, sign in _BOUNDS if isinstance(item, kind)]
    return " " + ", ".join(bounds) if bounds else ""


def _type_name(tp) -> str:
    """A readable type: ``int > 0 | None``, ``float > 0 | list[float > 0]``, ``'ard' | 'iso'``."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _type_name(args[0]) + _constraints(args[1:])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(arg) for arg in args)
    if origin is typing.Literal:
        return " | ".join(repr(arg) for arg in args)
    if origin is not None:
        return f"{getattr(origin, '__name__', origin)}[{', '.join(map(_type_name, args))}]"
    if tp is type(None):
        return "None"
    return getattr(tp, "__name__", str(tp))


def _annotation(field) -> str:
    return _type_name(field.annotation) + _constraints(field.metadata)


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
        # escape: "[int > 0 | None]" would otherwise be read as rich markup and vanish
        table.add_row(escape(name), escape(summary), escape("\n".join(lines)))
    return table


def print_catalog(kind: str) -> None:
    if kind == "models":
        from tempering.models import MODELS

        entries = {name: (e.options, e.summary) for name, e in MODELS.items()}
    else:
        from tempering.algorithms import SAMPLERS

        entries = {name: (e.options, e.summary) for name, e in SAMPLERS.items()}
    Console().print(options_table(kind, entries))
