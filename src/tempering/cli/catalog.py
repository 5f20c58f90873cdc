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


def option_lines(options: type[BaseModel]) -> list[str]:
    """``key = default  [type]`` for each option (with its description, if it has one)."""
    lines = []
    for key, field in options.model_fields.items():
        default = "—" if field.default is PydanticUndefined else repr(field.default)
        note = f" ({field.description})" if field.description else ""
        lines.append(f"{key} = {default}  [{_annotation(field)}]{note}")
    return lines


def options_table(title: str, specs, stats: bool = False) -> Table:
    """One row per spec: name, summary, its options (default) and, for samplers, the statistics
    it may write."""
    table = Table(title=title, show_lines=True)
    for column in ("name", "summary", "options (default)"):
        table.add_column(column)
    for spec in specs:
        summary = spec.summary
        if stats and spec.stats:
            summary += "\nwrites: " + ", ".join(
                s.name + (f"[{', '.join(s.dims)}]" if s.dims else "") for s in spec.stats)
        # escape: "[int > 0 | None]" would otherwise be read as rich markup and vanish
        table.add_row(escape(spec.name), escape(summary), escape("\n".join(option_lines(
            spec.options))))
    return table


def print_catalog(kind: str) -> None:
    """``tempering models`` or ``tempering samplers``."""
    if kind == "models":
        from tempering.models import MODELS

        Console().print(options_table(kind, MODELS))
    else:
        from tempering.algorithms import SAMPLERS

        Console().print(options_table(kind, SAMPLERS, stats=True))
