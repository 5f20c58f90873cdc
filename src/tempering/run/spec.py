"""The run spec: everything that defines a run by name — model and options, sampler and options,
seed, chains, draws, warmup, thinning, chain layout, initial positions — in one frozen object.

It is what a run file records (:meth:`RunSpec.to_attrs`, the run's attributes), what ``tempering
rerun``, ``resume``, ``extend`` and a Dask worker rebuild from (:meth:`RunSpec.from_attrs`, then
:meth:`RunSpec.build` through the registries), and what :func:`tempering.run.files.run_spec`
takes. ``tempering.sample(model, algorithm, ...)`` stays for objects built by hand;
``run_chains(..., chain_method="dask")`` makes their spec with :meth:`RunSpec.of`.

A spec built by a user holds the options as given; :meth:`RunSpec.build` resolves them (the
sampler's ``resolve(model)`` fills model-dependent defaults, a pilot may run), and
:meth:`RunSpec.of` the built model and algorithm is the spec a run file records: the model's
validated options and the sampler's resolved ones, so that rebuilding it needs no pilot and gives
the same draws.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms import get_sampler
from tempering.algorithms.base import Algorithm, RunLayout
from tempering.errors import UserInputError
from tempering.models import get_model
from tempering.models.base import Model
from tempering.starts import as_key

#: The attributes a run file must have to be rebuilt (``init`` may be absent: none given).
REBUILD_ATTRS = ("model", "model_options", "sampler", "sampler_options", "seed", "chains",
                 "draws", "warmup", "thin", "chain_method")


def seed_record(key: int | jax.Array) -> Any:
    """How a run file records a seed or key: the integer seed, or the key's data and
    implementation (:func:`key_from_record` turns either back)."""
    if isinstance(key, int | np.integer):
        return int(key)
    typed = as_key(key)
    return {"key_data": np.asarray(jax.random.key_data(typed)).tolist(),
            "impl": str(jax.random.key_impl(typed))}


def key_from_record(record: Any) -> int | jax.Array:
    """The seed or key a run file recorded (see :func:`seed_record`)."""
    if isinstance(record, int | np.integer):
        return int(record)
    return jax.random.wrap_key_data(jnp.asarray(record["key_data"], jnp.uint32),
                                    impl=record["impl"])


def _plain(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A JSON round trip of the options: what a run file would give back, so a spec compares
    equal before and after it is written (tuples become lists, keys strings)."""
    return json.loads(json.dumps(dict(options or {}))) if options else {}


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """A run by name: what to sample, how, and with which seed.

    Attributes
    ----------
    model, sampler
        Registry names (``tempering models``, ``tempering samplers``), or ``file.py:NAME`` for a
        user's model.
    model_options, sampler_options
        Their options (a ``name`` key is dropped: the table of a TOML config may carry one); a
        built model's record its ``precision`` too (:mod:`tempering.precision`).
        ``sampler_options`` is ``None`` for an algorithm built by hand, not from the registry:
        such a run is recorded but cannot be rebuilt.
    seed
        An integer seed or a JAX PRNG key (recorded as its data and implementation).
    chains, draws, warmup, thin
        Chains; draws kept per chain; warmup steps per chain; steps per kept draw.
    chain_method
        ``vmap``, ``sequential`` or ``dask`` (the same draws every way).
    init
        Initial unconstrained positions, (chains, dim) or (dim,); ``None``: the model's.
    """

    model: str
    sampler: str
    model_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    sampler_options: Mapping[str, Any] | None = dataclasses.field(default_factory=dict)
    seed: Any = 0
    chains: int = 4
    draws: int = 1000
    warmup: int = 500
    thin: int = 1
    chain_method: str = "vmap"
    init: Any = None

    def __post_init__(self) -> None:
        for name in ("model_options", "sampler_options"):
            given = getattr(self, name)
            if given is None and name == "sampler_options":
                continue
            if not isinstance(given, Mapping):
                raise UserInputError(f"{name} must be a table of options, got {given!r}")
            object.__setattr__(self, name, {k: v for k, v in given.items() if k != "name"})
        if self.init is not None:
            object.__setattr__(self, "init", np.asarray(self.init, dtype=float).tolist())

    @property
    def key(self) -> int | jax.Array:
        """The seed or key to run with."""
        return key_from_record(self.seed) if isinstance(self.seed, Mapping) else self.seed

    def replace(self, **changes: Any) -> RunSpec:
        """This spec with some fields changed (``spec.replace(draws=2000)``)."""
        return dataclasses.replace(self, **changes)

    def build(self, every: int | None = None) -> tuple[Model, Algorithm]:
        """The model and the algorithm, through the registries (the sampler's options are
        resolved against the model; a pilot, where the sampler has one, runs here)."""
        if self.sampler_options is None:
            raise UserInputError(f"sampler {self.sampler!r} was built by hand, not from the "
                                 "registry: its run cannot be rebuilt")
        model = get_model(self.model, **self.model_options)
        return model, get_sampler(self.sampler, model, layout=self.layout(model, every),
                                  **self.sampler_options)

    def layout(self, model: Model, every: int | None = None) -> RunLayout:
        """The shapes this run's programs are compiled for (chains batched by ``vmap``, the
        driver's chunk of draws, at most ``every``: the checkpoint interval), for a pilot that
        compiles them first."""
        from tempering.run.driver import run_layout  # the driver imports this module

        return run_layout(model, chains=self.chains, warmup=self.warmup, draws=self.draws,
                          thin=self.thin, chain_method=self.chain_method, every=every)

    @classmethod
    def of(cls, model: Model, algorithm: Algorithm, **layout: Any) -> RunSpec:
        """The resolved spec of a built model and algorithm with ``layout`` (seed, chains,
        draws, warmup, thin, chain_method, init): what the run file records."""
        return cls(model=model.name, sampler=algorithm.name, **layout).resolved(model, algorithm)

    def resolved(self, model: Model, algorithm: Algorithm) -> RunSpec:
        """This spec with the options ``model`` and ``algorithm`` were built with: the model's
        validated options and the sampler's resolved ones (``None`` for an algorithm built by
        hand)."""
        options = None if algorithm.options is None else algorithm.options.model_dump()
        return self.replace(model_options={**(model.options or {}), "precision": model.precision},
                            sampler_options=options)

    def to_attrs(self) -> dict[str, Any]:
        """The run file's rebuild attributes (JSON-ready)."""
        return {"model": self.model, "sampler": self.sampler,
                "model_options": _plain(self.model_options),
                "sampler_options": (None if self.sampler_options is None
                                    else _plain(self.sampler_options)),
                "seed": seed_record(self.key), "init": self.init, "chains": int(self.chains),
                "draws": int(self.draws), "warmup": int(self.warmup), "thin": int(self.thin),
                "chain_method": str(self.chain_method)}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], source: str = "run file") -> RunSpec:
        """The spec a run file (or a checkpoint's attributes) recorded.

        Raises
        ------
        UserInputError
            Something a rebuild needs is missing (a run of an algorithm built by hand, not from
            the sampler registry, records no sampler options).
        """
        missing = [name for name in REBUILD_ATTRS if attrs.get(name) is None]
        if missing:
            raise UserInputError(f"{source}: cannot be rebuilt (no {', '.join(missing)} "
                                 "recorded; only runs of registered models and samplers can)")
        return cls(model=str(attrs["model"]), sampler=str(attrs["sampler"]),
                   model_options=dict(attrs["model_options"]),
                   sampler_options=dict(attrs["sampler_options"]), seed=attrs["seed"],
                   chains=int(attrs["chains"]), draws=int(attrs["draws"]),
                   warmup=int(attrs["warmup"]), thin=int(attrs["thin"]),
                   chain_method=str(attrs["chain_method"]), init=attrs.get("init"))
