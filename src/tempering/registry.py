"""One shape for every registry: a tuple of specs declared in one place, looked up by name.

Kernels, samplers, models, reproductions and benchmarks are each a module that exports a spec (a
NamedTuple with at least ``name`` and a one-line ``summary``); the package lists them in a plain
tuple (``kernels/__init__.py``, ``algorithms/registry.py``, ...) and wraps the tuple in a
:class:`Registry`. Nothing in the package dispatches on a name: code asks the registry for the
spec and uses what the spec declares (BlackJAX passes factories in, Pigeons.jl keeps one folder per
concept with an interface file; this is the same idea).

A user's own spec joins at run time with :meth:`Registry.register` (and leaves with
:meth:`Registry.unregister`), e.g. a sampler defined in a notebook or a test module; it is then
found by name like a built-in one — by the CLI in the same process, and by ``tempering rerun``
where it is registered again before the run file is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from tempering.errors import UserInputError


class Spec(Protocol):
    """What every registered spec has."""

    @property
    def name(self) -> str: ...

    @property
    def summary(self) -> str: ...


S = TypeVar("S", bound=Spec)


class Registry(Generic[S]):
    """The built-in specs of one kind, plus any registered at run time, by name.

    Parameters
    ----------
    kind
        What the specs are ("sampler", "kernel", ...), for error messages.
    builtin
        The declared tuple; names must be unique.
    """

    def __init__(self, kind: str, builtin: tuple[S, ...]):
        self.kind = kind
        self.builtin = builtin
        self._specs: dict[str, S] = {}
        for spec in builtin:
            self.register(spec)

    def __iter__(self) -> Iterator[S]:
        return iter(tuple(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> tuple[str, ...]:
        """Every registered name, built-in ones first."""
        return tuple(self._specs)

    def get(self, name: str) -> S:
        """The spec called ``name``.

        Raises
        ------
        UserInputError
            No spec has that name (the message lists the known ones).
        """
        if not isinstance(name, str):  # e.g. name = [1] in a TOML config: unhashable
            raise UserInputError(f"{self.kind} name must be a string, got {name!r}")
        if name not in self._specs:
            raise UserInputError(f"unknown {self.kind} {name!r} (known: {', '.join(self._specs)})")
        return self._specs[name]

    def find(self, name: str) -> S | None:
        """The spec called ``name``, or ``None`` (a run file of a spec not registered here)."""
        return self._specs.get(name)

    def register(self, spec: S, *, replace: bool = False) -> S:
        """Add ``spec``; a name already taken is an error unless ``replace``. Returns ``spec``."""
        if spec.name in self._specs and not replace:
            raise ValueError(f"a {self.kind} called {spec.name!r} is already registered")
        self._specs[spec.name] = spec
        return spec

    def unregister(self, name: str) -> None:
        """Remove a spec registered at run time (built-in specs stay)."""
        if any(spec.name == name for spec in self.builtin):
            raise ValueError(f"{self.kind} {name!r} is built in and cannot be unregistered")
        self._specs.pop(name, None)


class RunnableSpec(NamedTuple):
    """A spec that is a function to run: a reproduction (``tempering reproduce NAME``) or a
    benchmark (``tempering bench NAME``). ``parts``: what ``--only`` may name (``run`` then takes
    ``only``, a comma-separated subset); empty when the run is one piece. ``fans_out``: ``run``
    takes ``workers`` and ``scheduler`` and spreads its runs over a Dask cluster."""

    name: str
    summary: str
    run: Callable[..., Any]
    parts: tuple[str, ...] = ()
    fans_out: bool = False
