"""HTML pieces of the report: escaping, numbers, tables, sections and the page with its CSS.

Every string that reaches the page goes through :func:`esc` unless it is :class:`Html`, markup
this package built itself from escaped parts. Model and option names, option values, file names
and variable names come from run files a user may not have written, so nothing of theirs is
trusted: a model called ``<script>`` shows as text.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any


class Html(str):
    """Markup built by this package from escaped parts: :func:`esc` passes it through."""

    __slots__ = ()


def esc(value: Any) -> Html:
    """``value`` as HTML text: escaped (quotes included) unless it is already :class:`Html`."""
    if isinstance(value, Html):
        return value
    return Html(html.escape(str(value), quote=True))


def join(parts: Iterable[Any], sep: str = "") -> Html:
    """The escaped parts joined (``sep`` is the package's own markup)."""
    return Html(sep.join(esc(p) for p in parts))


def fmt(value: Any, digits: int = 4) -> str:
    """A number for a table: ``digits`` significant digits, large numbers as integers, a whole
    number as an integer, ``None`` and NaN as ``—``, infinity as ``inf``; other values as text
    (a dict or list as compact JSON)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if abs(value) < 1e15 and (value.is_integer() or abs(value) >= 10 ** digits):
            return f"{value:.0f}"
        return f"{value:.{digits}g}"
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, default=str, separators=(", ", ": "))
    return str(value)


def tag(name: str, content: Any = "", **attrs: Any) -> Html:
    """``<name attrs>content</name>``; attribute values escaped (``class_`` for ``class``)."""
    text = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"'
                   for k, v in attrs.items() if v is not None)
    return Html(f"<{name}{text}>{esc(content)}</{name}>")


def table(header: Sequence[Any], rows: Iterable[Sequence[Any]], class_: str | None = None,
          caption: Any = None, row_classes: Sequence[str | None] | None = None) -> Html:
    """A table with one header row; every cell escaped (:class:`Html` cells kept)."""
    head = tag("tr", join(tag("th", h) for h in header))
    body = []
    for i, row in enumerate(rows):
        row_class = row_classes[i] if row_classes is not None else None
        body.append(tag("tr", join(tag("td", cell) for cell in row), class_=row_class))
    return tag("table", join([tag("caption", caption) if caption is not None else "",
                              tag("thead", head), tag("tbody", join(body))]), class_=class_)


def key_values(items: Iterable[tuple[Any, Any]], class_: str = "kv") -> Html:
    """Two-column table of names and values (values formatted with :func:`fmt`)."""
    rows = [(k, v if isinstance(v, Html) else fmt(v)) for k, v in items]
    return table(("name", "value"), rows, class_=class_)


def section(title: Any, *content: Any, level: int = 2, id_: str | None = None) -> Html:
    """``<section>`` with a heading and its content."""
    return tag("section", join([tag(f"h{level}", title), *content]), id=id_)


def paragraph(text: Any, class_: str | None = None) -> Html:
    """One ``<p>``."""
    return tag("p", text, class_=class_)


def bullet_list(items: Iterable[Any], class_: str | None = None) -> Html:
    """One ``<ul>`` of escaped items."""
    return tag("ul", join(tag("li", item) for item in items), class_=class_)


CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
table.kv td:last-child, table.kv th:last-child { text-align: left; }
table.kv td:last-child { max-width: 900px; overflow-wrap: anywhere;
                         font-family: ui-monospace, monospace; font-size: 0.95em; }
table.stats td:last-child, table.stats th:last-child { text-align: left; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
tr.bad td, span.bad { color: #b00020; font-weight: bold; }
ul.warnings li { color: #8a5a00; } p.flag { color: #b00020; font-weight: bold; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0.4em 0; } figcaption { font-size: 0.85em; color: #555; max-width: 480px; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
pre { background: #f7f7f7; padding: 0.5em; white-space: pre-wrap; }
.note { color: #555; font-size: 0.9em; }
.columns { display: flex; flex-wrap: wrap; gap: 2em; }
"""


def page(title: Any, body: Any) -> str:
    """A whole self-contained HTML document: inline CSS, no scripts, no external resources (a
    Content-Security-Policy forbids any fetch but inline images)."""
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n"
            f"<body>\n{esc(body)}\n</body>\n</html>\n")
