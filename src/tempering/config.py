"""Configuration: pydantic validation with one-line errors, TOML files and ``--set KEY=VALUE``.

A run is configured by two tables, ``[model]`` and ``[sampler]``, each holding ``name`` and that
component's options. A TOML file gives defaults; ``--set model.KEY=VALUE`` overrides them; the
``--model``/``--sampler`` flags override the names. Values given with ``--set`` are parsed as TOML
literals (``3``, ``0.01``, ``true``, ``"ard"``, ``[130, 65]``); anything that is not a TOML literal
is taken as a string (``--set model.data=my.csv``).
"""

from __future__ import annotations

import difflib
import re
import tomllib
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, model_validator

from tempering.errors import UserInputError

T = TypeVar("T", bound=BaseModel)
SECTIONS = ("model", "sampler")


class Options(BaseModel):
    """Base of a component's options (a sampler's, a kernel's): unknown keys are errors, and so
    are NaN and infinity for a float.

    Defaults and cross-field rules live in the options class. A rule that spans fields is a
    model validator whose message starts with the field it is about (``"prior_rung: needs ..."``)
    so that the one-line error names it. A default or a check that needs the model goes in
    :meth:`resolve`, which returns the options with every default filled in: validating the dump
    of resolved options and resolving again gives the same options (a run file rebuilds its
    sampler from them).
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    #: Options renamed in this release, old name → new name: the old name still works (with a
    #: ``FutureWarning`` naming the new one) so that run files written before the rename rerun
    #: bit for bit; it goes in the release after.
    RENAMED: ClassVar[dict[str, str]] = {}
    #: Values renamed in this release, option → {old value: new value}, kept the same way.
    RENAMED_VALUES: ClassVar[dict[str, dict[str, str]]] = {}
    _pilot: dict[str, Any] | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        if not (cls.RENAMED or cls.RENAMED_VALUES) or not isinstance(data, dict):
            return data
        data = dict(data)
        for old, new in cls.RENAMED.items():
            if old in data:
                if new in data:
                    raise ValueError(f"{old}: renamed {new}; give only {new}")
                warnings.warn(f"option {old!r} is now called {new!r}; the old name goes in the "
                              "next release", FutureWarning, stacklevel=2)
                data[new] = data.pop(old)
        for key, values in cls.RENAMED_VALUES.items():
            value = data.get(key)
            if isinstance(value, str) and value in values:
                warnings.warn(f"{key}={value} is now called {key}={values[value]}; the old "
                              "value goes in the next release", FutureWarning, stacklevel=2)
                data[key] = values[value]
        return data

    def resolve(self, model: Any) -> Self:
        """These options with model-dependent defaults filled in (here: unchanged). Resolving
        never runs MCMC: a sampler that must measure something first does it in
        :meth:`run_pilot`."""
        del model
        return self

    def run_pilot(self, model: Any, layout: Any = None) -> Self:
        """Run the sampler's pilot, if it has one, on resolved options; the builder
        (:func:`tempering.algorithms.registry.build_sampler`) calls it after :meth:`resolve`,
        with the run's ``layout`` when it knows it
        (:class:`~tempering.algorithms.base.RunLayout`: a pilot that runs the run's own
        programs compiles them for it).

        One convention for every pilot: what it chooses (PT's rungs and starting schedule, EE's
        levels, the discretizing chain's m) comes back as options — recorded in the run file, so
        a rebuild runs no pilot and gives the same draws — and what it did (its seconds, cost and
        measurements) rides on the returned options as ``pilot_record``, which the sampler's
        build puts in its facts as ``pilot`` (:meth:`pilot_facts`). Here: no pilot, the options
        unchanged.
        """
        del model, layout
        return self

    def carrying(self, record: dict[str, Any]) -> Self:
        """These options (a copy the pilot just made) with the pilot's record riding along."""
        self._pilot = dict(record)
        return self

    @property
    def pilot_record(self) -> dict[str, Any] | None:
        """What the pilot that placed these options did, when it ran in this process."""
        return self._pilot

    def pilot_facts(self) -> dict[str, Any]:
        """``{"pilot": record}`` for the algorithm's facts, or ``{}`` when no pilot ran here."""
        return {} if self._pilot is None else {"pilot": self._pilot}

    def __eq__(self, other: object) -> bool:
        """Options are equal when they say the same: the pilot's record is not an option."""
        return type(other) is type(self) and self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]


_UNION_TAGS = {"str", "int", "float", "bool", "list", "dict", "none"}
_FIELD_FIRST = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*): ")


def _key_parts(loc: tuple) -> list[str]:
    """A pydantic location without union-member tags (``constrained-float``, ``list[...]``)."""
    return [str(part) for i, part in enumerate(loc) if i == 0 or isinstance(part, int)
            or (part.isidentifier() and part not in _UNION_TAGS)]


def unknown_option_line(key: str, name: str, valid: Iterable[str]) -> str:
    """``KEY: unknown option (did you mean X?); valid: a, b, c`` (the hint only when one is close).

    Parameters
    ----------
    key
        The full key as the user wrote it (``sampler.rung``).
    name
        Its last part (``rung``), compared with ``valid``.
    valid
        The option names accepted there.
    """
    valid = list(dict.fromkeys(valid))
    close = difflib.get_close_matches(name, valid, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    listed = f"; valid: {', '.join(valid)}" if valid else ""
    return f"{key}: unknown option{hint}{listed}"


def first_error_line(err: ValidationError, prefix: str, valid: Iterable[str] = ()) -> str:
    """One line naming the offending key and value of a pydantic error.

    Of the errors on the first offending key, the deepest is reported: for a union such as
    ``float | list[float]`` given a list, that is the bad list element, not "not a number". An
    unknown top-level key lists the ``valid`` option names, with the closest as a hint.
    """
    errors = err.errors()
    same_key = [e for e in errors if e["loc"][:1] == errors[0]["loc"][:1]]
    first = max(same_key, key=lambda e: len(_key_parts(e["loc"])))
    parts = _key_parts(first["loc"])
    loc = ".".join(parts)
    message = first["msg"].removeprefix("Value error, ")
    named = _FIELD_FIRST.match(message) if not loc else None
    if named:  # a model validator's message that names its field first
        loc, message = named.group(1), message[named.end():]
    key = f"{prefix}.{loc}" if loc else prefix
    if first["type"] == "extra_forbidden":
        return unknown_option_line(key, parts[-1], valid if len(parts) == 1 else ())
    if "input" in first and loc and not named:
        return f"{key}: {message} (got {first['input']!r})"
    return f"{key}: {message}"


def validate_options(cls: type[T], options: dict[str, Any], prefix: str,
                     also_valid: Iterable[str] = ()) -> T:
    """Validate ``options`` against ``cls``; a failure is one :class:`UserInputError` line.

    ``also_valid`` names options accepted beside ``cls``'s own (a sampler's, when ``cls`` is the
    inner kernel's options class validating the rest), listed with them for an unknown key.
    """
    try:
        return cls.model_validate(options)
    except ValidationError as err:
        valid = [*also_valid, *cls.model_fields]
        raise UserInputError(first_error_line(err, prefix, valid)) from None


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML literal if it is one, else the string itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def load_config(path: str | Path | None) -> dict[str, dict[str, Any]]:
    """Read a TOML config with optional ``[model]`` and ``[sampler]`` tables."""
    config: dict[str, dict[str, Any]] = {section: {} for section in SECTIONS}
    if path is None:
        return config
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserInputError(f"config file not found: {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise UserInputError(f"{path}: not a valid TOML file ({err})") from None
    for key, value in raw.items():
        if key not in SECTIONS or not isinstance(value, dict):
            raise UserInputError(f"{path}: unknown table [{key}] (expected [model] and [sampler])")
        config[key] = dict(value)
    return config


def apply_sets(config: dict[str, dict[str, Any]], sets: list[str]) -> dict[str, dict[str, Any]]:
    """Apply ``--set section.key=value`` overrides to a config (returns a new dict)."""
    out = {section: dict(values) for section, values in config.items()}
    for item in sets:
        target, sep, text = item.partition("=")
        section, dot, key = target.partition(".")
        if not sep or not dot or not key:
            raise UserInputError(f"--set {item}: expected model.KEY=VALUE or sampler.KEY=VALUE")
        if section not in SECTIONS:
            raise UserInputError(f"--set {item}: unknown section {section!r} (model or sampler)")
        out[section][key.strip()] = parse_value(text.strip())
    return out
