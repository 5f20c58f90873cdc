"""Hypothesis strategies of malformed CLI inputs, for :mod:`test_fuzz`.

Every strategy draws inputs that are wrong by construction — and, where a draw could be valid by
chance, checked against an oracle that does not use the code under test (``tomllib`` for TOML
syntax, ``float`` for a CSV cell, pydantic's ``TypeAdapter`` of the option's declared type for a
value) and discarded when valid. Options are read from the registries, so a new sampler or model
is fuzzed without touching this file.
"""

from __future__ import annotations

import csv
import io
import json
import math
import tomllib
import typing
from functools import cache
from typing import Any, NamedTuple

import annotated_types
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from tempering.algorithms import SAMPLERS
from tempering.config import parse_value
from tempering.kernels import KERNELS
from tempering.models import MODELS

#: The model every sampler case runs on: tiny synthetic data, built without JAX compiling.
SMALL_MODEL = {"name": "mvn_mean", "n": 10, "dim": 2}
#: Characters of generated text: any but control characters and lone surrogates (TOML cannot
#: hold those unescaped, and argv cannot hold surrogates).
TEXT = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"))
IDENTIFIER = st.from_regex(r"[a-z_][a-z0-9_]{0,15}", fullmatch=True)


# --------------------------------------------------------------------------- values


def _quote(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; no ``\\uD800`` pairs: not ASCII-only)."""
    return json.dumps(text, ensure_ascii=False)


def toml_literal(value: Any) -> str:
    """``value`` written as a TOML literal (strings quoted, floats as TOML spells them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_literal, value)) + "]"
    return "{" + ", ".join(f"{_quote(k)} = {toml_literal(v)}" for k, v in value.items()) + "}"


SCALARS = st.one_of(
    st.integers(min_value=-10**6, max_value=10**6),
    st.sampled_from([0, -1, 2**63, -2**63, 10**30]),
    st.floats(),
    st.sampled_from([0.0, -0.0, 1e-300, 1e308, -1e308, math.inf, -math.inf, math.nan]),
    st.booleans(),
    st.text(TEXT, max_size=12),
)
#: Any TOML value: scalars, arrays and inline tables, nested.
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(IDENTIFIER, inner, max_size=3)), max_leaves=8)


def _bounds(tp: Any, found: set[float]) -> set[float]:
    """Every numeric bound (``gt``, ``ge``, ``lt``, ``le``) anywhere in an annotation."""
    for item in (*typing.get_args(tp), *getattr(tp, "__metadata__", ())):
        for attr in ("gt", "ge", "lt", "le"):
            if isinstance(item, annotated_types.BaseMetadata) and hasattr(item, attr):
                found.add(float(getattr(item, attr)))
        _bounds(item, found)
    return found


def option_fields(options: type[BaseModel]) -> dict[str, tuple[type[BaseModel], Any]]:
    """Option name ↦ (the class that validates it, its field): a sampler with an inner kernel
    also takes the default kernel's options."""
    fields = {key: (options, field) for key, field in options.model_fields.items()}
    inner = options.model_fields.get("inner")
    if inner is not None and inner.default in KERNELS:
        kernel = KERNELS.get(inner.default).options
        fields |= {key: (kernel, field) for key, field in kernel.model_fields.items()
                   if key not in fields}
    return fields


def _declared(field: Any) -> Any:
    """A field's type with its constraints (``Annotated[float, Gt(0)]``)."""
    return typing.Annotated[field.annotation, *field.metadata] if field.metadata else \
        field.annotation


@cache
def _adapter(options: type[BaseModel], key: str) -> TypeAdapter:
    field = options.model_fields[key]
    coerce = bool(options.model_config.get("coerce_numbers_to_str"))
    # NaN and infinity are bad for every float option, whatever the class declares
    config = ConfigDict(coerce_numbers_to_str=coerce, allow_inf_nan=False)
    return TypeAdapter(_declared(field), config=config)


def is_invalid(options: type[BaseModel], key: str, value: Any) -> bool:
    """Whether option ``key`` of ``options`` must reject ``value`` (its declared type says so, or
    it names no registered kernel)."""
    if key == "inner" and isinstance(value, str) and value not in KERNELS:
        return True
    try:
        _adapter(options, key).validate_python(value)
    except ValidationError:
        return True
    return False


NONFINITE_VALUES = [math.nan, math.inf, -math.inf, [math.nan], [1.0, math.inf], [[math.nan, 0.0]]]


def _edge_values(field: Any) -> list[Any]:
    """Values at and just past the field's bounds, and NaN and infinity (also inside lists)."""
    bounds = _bounds(_declared(field), set())
    near = [b + d for b in bounds for d in (0.0, -1.0, 1.0, -1e-9, 1e-9)]
    return near + [int(b) + d for b in bounds for d in (-1, 0, 1)] + [-b for b in bounds] + \
        NONFINITE_VALUES


@st.composite
def bad_value_text(draw, options: type[BaseModel], key: str, field: Any) -> str:
    """A ``--set`` value text (a TOML literal, or raw text taken as a string) that option
    ``key`` must reject: a wrong type, out of range, NaN or infinity."""
    candidates = st.one_of(st.sampled_from(_edge_values(field)), VALUES)
    literal = candidates.map(toml_literal)
    raw = st.text(TEXT, max_size=16)
    text = draw(st.one_of(literal, raw).filter(
        lambda t: is_invalid(options, key, parse_value(t.strip()))))
    return text


def unknown_key(valid: set[str]) -> st.SearchStrategy[str]:
    """An option name that is none of ``valid`` (nor ``name``, nor empty; no ``=``)."""
    weird = st.text(TEXT, min_size=1, max_size=12)
    return st.one_of(IDENTIFIER, weird).filter(
        lambda k: "=" not in k and k.strip() and k.strip() not in valid | {"name"})


# --------------------------------------------------------------------------- options


class OptionCase(NamedTuple):
    """A bad option: the section, the model and sampler names, and ``key = text``."""

    section: str
    model: str
    sampler: str
    key: str
    text: str


@st.composite
def option_cases(draw, section: str) -> OptionCase:
    """A model's or a sampler's option with a bad value, or an unknown option."""
    registry = MODELS if section == "model" else SAMPLERS
    spec = draw(st.sampled_from(list(registry)))
    fields = option_fields(spec.options)
    if draw(st.booleans()):
        key = draw(st.sampled_from(sorted(fields)))
        options, field = fields[key]
        text = draw(bad_value_text(options, key, field))
    else:
        key = draw(unknown_key(set(fields)))
        text = toml_literal(draw(VALUES))
    model = spec.name if section == "model" else SMALL_MODEL["name"]
    sampler = spec.name if section == "sampler" else "rwm"
    return OptionCase(section, model, sampler, key, text)


# --------------------------------------------------------------------------- TOML files


def _parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


VALID_CONFIG = ['[model]', 'name = "mvn_mean"', 'n = 10', 'dim = 2', '[sampler]', 'name = "rwm"',
                'step_size = 0.5']
BREAKERS = ["[model", "= 1", 'x = "open', "x = [1, 2", "x = 1 2", "x =", "[[model]", "x = {a = 1",
            "1x y = 2", "x = 01", "x = 1.", "x = .5", "x = tru", "name = 'a'\nname = 'b'",
            "x = 1979-13-45", 'x = """', "x = 0x", "[]", "a. = 1", "x = nan nan", "[model]",
            "[sampler]\n[sampler]", "x = 1\nx = 2", "x = [1,,2]", "x = {a = 1,}", "x = +inf1"]


@st.composite
def broken_toml(draw) -> bytes:
    """Bytes that are not a TOML document: a valid config with a broken line spliced in, random
    text that does not parse, or text that is not UTF-8."""
    kind = draw(st.sampled_from(["splice", "random", "not-utf8"]))
    if kind == "splice":
        lines = list(VALID_CONFIG)
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(BREAKERS)))
        text = "\n".join(lines)
        if draw(st.booleans()):  # and cut it short somewhere
            text = text[:draw(st.integers(0, len(text)))]
    elif kind == "random":
        text = draw(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)),
                            min_size=1, max_size=60))
    else:
        head = draw(st.binary(max_size=30))
        return head + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80"]))
    if _parses(text):
        draw(st.nothing())  # a splice that happens to be valid TOML: not a case
    return text.encode("utf-8")


def _table(name: str, values: dict[str, Any], raw: dict[str, str] | None = None) -> list[str]:
    lines = [f"[{_quote(name)}]"]
    lines += [f"{_quote(k)} = {toml_literal(v)}" for k, v in values.items()]
    return lines + [f"{_quote(k)} = {text}" for k, text in (raw or {}).items()]


@st.composite
def semantic_toml(draw) -> str:
    """A TOML document that parses but is a bad config: an unknown table, a top-level value, an
    unknown option, a bad option value, or a model or sampler name that is not one."""
    kind = draw(st.sampled_from(["table", "top-level", "option", "option", "name"]))
    model, sampler = dict(SMALL_MODEL), {"name": "rwm"}
    if kind == "table":
        name = draw(st.one_of(IDENTIFIER, st.text(TEXT, max_size=8)).filter(
            lambda n: n not in ("model", "sampler")))
        extra = _table(name, draw(st.dictionaries(IDENTIFIER, VALUES, max_size=2)))
        return "\n".join(_table("model", model) + _table("sampler", sampler) + extra)
    if kind == "top-level":
        key = draw(st.one_of(IDENTIFIER, st.sampled_from(["model", "sampler"])))
        value = draw(SCALARS | st.lists(SCALARS, max_size=3))
        head = f"{_quote(key)} = {toml_literal(value)}"
        return "\n".join([head, *_table("model", model), *_table("sampler", sampler)])
    if kind == "name":
        section = draw(st.sampled_from(["model", "sampler"]))
        known = set(MODELS.names()) | set(SAMPLERS.names())
        name = draw(VALUES.filter(lambda v: not (isinstance(v, str) and v.strip() in known)))
        (model if section == "model" else sampler)["name"] = name
        return "\n".join(_table("model", model) + _table("sampler", sampler))
    case = draw(option_cases(draw(st.sampled_from(["model", "sampler"]))))
    model = {"name": case.model} if case.section == "model" else model
    sampler["name"] = case.sampler
    raw = {case.key: _as_toml_value(case.text)}
    tables = (_table("model", model, raw) + _table("sampler", sampler) if case.section == "model"
              else _table("model", model) + _table("sampler", sampler, raw))
    return "\n".join(tables)


def _as_toml_value(text: str) -> str:
    """A ``--set`` text as the TOML value it stands for (raw text becomes a quoted string)."""
    return toml_literal(parse_value(text.strip()))


# --------------------------------------------------------------------------- CSV files

#: Models that read a CSV given as ``model.data`` (``cov``: mvn_mean's covariance file).
CSV_TARGETS = [("mvn_mean", "data"), ("mvn_mean", "cov"), ("gp_regression", "data"),
               ("gp_const", "data"), ("mixture", "data"), ("changepoint", "data"),
               ("tied_means", "data"), ("logistic", "data"), ("bnn", "data"),
               ("modes2d", "data")]
NONFINITE = ["nan", "NaN", "inf", "-inf", "Infinity", "-INF", "1e400", "-1e999", "9" * 400]


def _is_number(cell: str) -> bool:
    try:
        float(cell.strip())
    except ValueError:
        return False
    return True


def _write_csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


@st.composite
def _numeric_rows(draw, min_cols: int = 1, max_cols: int = 4) -> list[list[str]]:
    cols = draw(st.integers(min_cols, max_cols))
    number = st.one_of(st.integers(-9, 9).map(str),
                       st.floats(-1e6, 1e6, allow_nan=False).map(repr))
    return draw(st.lists(st.lists(number, min_size=cols, max_size=cols), min_size=2, max_size=6))


@st.composite
def _corrupted(draw) -> list[list[str]]:
    """Numeric rows, one body row (not the first) corrupted: ragged, a cell that is not a
    number, or one that is not finite."""
    rows = draw(_numeric_rows())
    if draw(st.booleans()):
        rows.insert(0, [f"c{j}" for j in range(len(rows[0]))])
    i = draw(st.integers(1, len(rows) - 1))
    j = draw(st.integers(0, len(rows[i]) - 1))
    kind = draw(st.sampled_from(["ragged", "text", "nonfinite"]))
    if kind == "ragged":
        if len(rows[i]) > 1 and draw(st.booleans()):
            del rows[i][j]
        else:
            rows[i] += draw(st.lists(st.sampled_from(["1", "", "2.5"]), min_size=1, max_size=3))
    elif kind == "text":
        rows[i][j] = draw(st.text(TEXT, min_size=1, max_size=10).filter(
            lambda c: c.strip() and not _is_number(c)))
    else:
        rows[i][j] = draw(st.sampled_from(NONFINITE))
    return rows


@st.composite
def _wrong_shape(draw, model: str, target: str) -> list[list[str]]:
    """Finite numbers in a layout ``model`` cannot use (or a corrupted file, where every layout
    is usable)."""
    if target == "cov":  # the default synthetic data have 5 columns: a k × k matrix, k ≠ 5
        k = draw(st.integers(1, 4))
        return [[str(float(i == j)) for j in range(k)] for i in range(k)]
    if model in ("gp_regression", "gp_const"):  # a header without a y column
        rows = draw(_numeric_rows())
        return [[f"x{j}" for j in range(len(rows[0]))], *rows]
    if model in ("mixture", "tied_means", "changepoint"):  # not one value per row
        return draw(_numeric_rows(min_cols=2))
    if model == "modes2d":
        return draw(_numeric_rows(min_cols=3, max_cols=5))
    if model in ("logistic", "bnn"):  # a label that is not a class
        rows = draw(_numeric_rows(min_cols=2))
        rows[draw(st.integers(0, len(rows) - 1))][-1] = draw(st.sampled_from(["0.5", "2.5"]))
        return rows
    return draw(_corrupted())


@st.composite
def csv_cases(draw) -> tuple[str, str, bytes]:
    """(model, option, file contents) of a CSV that model cannot read."""
    model, target = draw(st.sampled_from(CSV_TARGETS))
    kind = draw(st.sampled_from(["corrupt", "corrupt", "shape", "empty", "header", "bytes"]))
    if kind == "corrupt":
        text = _write_csv(draw(_corrupted()))
    elif kind == "shape":
        text = _write_csv(draw(_wrong_shape(model, target)))
    elif kind == "empty":
        text = "\n".join(draw(st.lists(st.sampled_from(["", " ", ",", " , ,", "\t"]),
                                       max_size=4)))
    elif kind == "header":
        names = draw(st.lists(IDENTIFIER.filter(lambda c: not _is_number(c)), min_size=1,
                              max_size=4))
        text = _write_csv([names]) + draw(st.sampled_from(["", "\n", "\n\n , \n"]))
    else:
        body = draw(st.binary(max_size=40))
        return model, target, body + draw(st.sampled_from([b"\xff\xfe\x00", b"\x80", b"\xc3"]))
    return model, target, text.encode("utf-8")


# --------------------------------------------------------------------------- run files

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


@st.composite
def broken_run_files(draw, original: bytes) -> bytes:
    """A run file cut short at a random byte, with its signature damaged, or random bytes."""
    kind = draw(st.sampled_from(["truncated", "truncated", "signature", "random"]))
    if kind == "truncated":
        return original[:draw(st.integers(0, len(original) - 1))]
    if kind == "signature":
        i = draw(st.integers(0, len(HDF5_SIGNATURE) - 1))
        flip = draw(st.integers(1, 255))
        return original[:i] + bytes([original[i] ^ flip]) + original[i + 1:]
    return draw(st.binary(max_size=4096).filter(lambda b: not b.startswith(HDF5_SIGNATURE)))
