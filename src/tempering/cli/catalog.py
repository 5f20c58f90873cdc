"""``tempering models`` and ``tempering samplers``: what exists, with options and defaults."""

from __future__ import annotations

import textwrap
import types
import typing
from collections.abc import Iterable
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from rich.console import Console
from rich.text import Text

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


def option_type(field) -> str:
    """The type of an option as printed, with its bounds (``int > 0 | None``)."""
    return _type_name(field.annotation) + _constraints(field.metadata)


def format_default(value: Any) -> str:
    """A default as printed: floats to 4 significant digits (``0.5476``, ``1e-08``, ``20.0``),
    also inside lists; strings quoted; a required option (no default) as ``—``."""
    if value is PydanticUndefined:
        return "—"
    if isinstance(value, float):
        text = f"{value:.4g}"
        return text + ".0" if text.lstrip("-").isdigit() else text  # still reads as a float
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(format_default, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {format_default(v)}" for k, v in value.items()) + "}"
    return repr(value)


def option_lines(options: type[BaseModel]) -> list[str]:
    """``key = default  [type]`` for each option (with its description, if it has one)."""
    lines = []
    for key, field in options.model_fields.items():
        note = f" ({field.description})" if field.description else ""
        default = format_default(field.get_default(call_default_factory=True))
        lines.append(f"{key} = {default}  [{option_type(field)}]{note}")
    return lines


def _stats_line(spec: Any) -> list[str]:
    if not getattr(spec, "stats", ()):
        return []
    return ["writes: " + ", ".join(s.name + (f"[{', '.join(s.dims)}]" if s.dims else "")
                                   for s in spec.stats)]


def spec_block(spec: Any, width: int, stats: bool = False) -> list[Text]:
    """One spec as lines of at most ``width`` columns (when no single word is longer): its name and
    summary, then indented the statistics it may write (``stats``) and its options, each wrapped
    at spaces with a hanging indent."""
    wrap = lambda text, first, rest: textwrap.wrap(
        text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
        break_on_hyphens=False)
    head = wrap(f"{spec.name} — {spec.summary}", "", "    ")
    lines = [Text(line) for line in head]
    lines[0].stylize("bold", 0, len(spec.name))
    for item in [*(_stats_line(spec) if stats else []), *option_lines(spec.options)]:
        lines += [Text(line) for line in wrap(item, "  ", "      ")]
    return lines


def print_catalog(kind: str) -> None:
    """``tempering models`` or ``tempering samplers``: one block per spec, wrapped to the
    terminal's width (a three-column table broke words at 80 columns)."""
    specs: Iterable[Any]
    if kind == "models":
        from tempering.models import MODELS

        specs = MODELS
    else:
        from tempering.algorithms import SAMPLERS

        specs = SAMPLERS
    console = Console()
    section = "model" if kind == "models" else "sampler"
    intro = (f"The {kind} (--{section} NAME) and their options, as KEY = DEFAULT  [TYPE]; set "
             f"one with --set {section}.KEY=VALUE or in the [{section}] table of --config.")
    lines = [Text(line) for line in textwrap.wrap(intro, console.width, break_long_words=False)]
    for spec in specs:
        lines += [Text(), *spec_block(spec, console.width, stats=kind == "samplers")]
    for text in lines:  # already wrapped: soft_wrap keeps rich from wrapping again
        console.print(text, soft_wrap=True)
