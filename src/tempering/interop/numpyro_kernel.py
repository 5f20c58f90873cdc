"""The package's samplers as NumPyro ``MCMCKernel``\\ s: :class:`TemperingKernel`, :func:`PT`.

``MCMC(tempering.numpyro.PT(model, rungs="auto"), num_warmup=W, num_samples=S).run(key, **data)``
runs the registered sampler (``pt`` here; any name with :class:`TemperingKernel`) on
``from_numpyro(model, **data)`` under NumPyro's own driver: its chain methods (``sequential``,
``vectorized``; ``parallel`` where there are devices), ``get_samples()`` in NumPyro's constrained
space (latent and deterministic sites), ``print_summary()``, thinning, and the sampler's statistics
through ``extra_fields`` (``"stats.swap_accepted"``, ``"stats.round_trips"``, ...; all of them:
:attr:`TemperingKernel.extra_fields`; the sampler's own summary — swap rates, round trips,
Λ̂ — from them: :meth:`TemperingKernel.summary`).

The contract, per chain, is the package driver's (:mod:`tempering.run.driver`), so the draws are
the same. NumPyro hands ``init`` the chain's key k (``MCMC.run`` splits one key into
``split(key, num_chains)``; a batch of keys is used as given). Then, as the driver does with
k = ``fold_in(seed key, c)``: (k_init, k_warm, k_sample) = ``split(k, 3)``; the initial position
is ``model.init_position(k_init)`` (or ``init_params``); ``init`` runs the whole warmup at once,
``algorithm.warmup(k_warm, ·, ·, num_warmup)`` (the samplers adapt in one compiled call: PT's
schedule rounds cannot be cut into NumPyro's single steps), and the ``num_warmup`` calls of
``sample`` NumPyro makes in its warmup phase only count down; sampling step u uses
``fold_in(k_sample, u)``. So ``MCMC.run(vmap(lambda c: fold_in(key, c))(arange(C)))`` gives
the draws of ``tempering.sample(..., key=key, chains=C)`` (``tests/interop``); with one key,
NumPyro's ``split`` gives other chains — as valid, not the same. ``MCMC.warmup()`` then
``run()`` continues with the key ``run`` is given as k_sample.

What NumPyro's driver cannot carry: checkpoints (``resume``/``extend``), the run file with its
rebuild spec (``rerun``, ``tempering summary`` and ``report`` on it), Dask chains, the driver's
progress headline and its cost and wall-time accounting, and ``keep_all_rungs`` (a draw with a rung
axis). ``tempering sample`` (or :func:`tempering.run_and_save`) does all of these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree

from tempering.algorithms import SAMPLERS, Algorithm, build_sampler
from tempering.errors import UserInputError
from tempering.models.base import Array, Model
from tempering.models.numpyro_model import from_numpyro, import_numpyro

numpyro = import_numpyro()
MCMCKernel: Any = numpyro.infer.mcmc.MCMCKernel


class TemperingState(NamedTuple):
    """One chain under NumPyro's driver.

    ``i`` counts steps (−num_warmup at the start: NumPyro's warmup calls only count up to 0),
    ``z`` is the draw (a dict of unconstrained sites for a NumPyro model, θ for a tempering
    ``Model``), ``potential_energy`` = −log density, ``accept_prob`` the step's acceptance,
    ``stats`` the sampler's declared statistics of the step, ``inner``/``params`` the
    algorithm's state and its adapted parameters, ``rng_key`` the chain's sampling key.
    """

    i: Array
    z: Any
    potential_energy: Array
    accept_prob: Array
    stats: dict[str, Array]
    inner: Any
    params: Any
    rng_key: Array


class Built(NamedTuple):
    model: Model
    algorithm: Algorithm
    unravel: Callable[[Array], Any]  # θ ↦ z
    ravel: Callable[[Any], Array]  # z ↦ θ


def single_key(key: Array) -> bool:
    """Whether ``key`` is one PRNG key (typed, or raw uint32 of shape (2,)) or a batch."""
    return bool(numpyro.util.is_prng_key(key))


class TemperingKernel(MCMCKernel):
    """A registered sampler as a NumPyro ``MCMCKernel`` (module docstring).

    Parameters
    ----------
    model
        A NumPyro model function (its data come with ``MCMC.run(key, *args, **kwargs)``; the
        kernel builds ``from_numpyro(model, *args, **kwargs)``), or a tempering ``Model``.
    sampler
        A registered sampler's name (``tempering samplers``); default ``pt``.
    **options
        The sampler's options, validated as ``--set sampler.KEY=VALUE`` is.
    """

    sample_field = "z"

    def __init__(self, model: Callable[..., Any] | Model, sampler: str = "pt",
                 **options: Any) -> None:
        if not (isinstance(model, Model) or callable(model)):
            raise UserInputError(f"tempering.numpyro: expected a NumPyro model function or a "
                                 f"tempering Model, got {type(model).__name__}")
        self._model = model
        self.spec = SAMPLERS.get(sampler)
        self.options = dict(options)
        self._built: Built | None = None
        self._built_for: tuple | None = None
        self._sample_fn: Callable | None = None

    @property
    def model(self) -> Callable[..., Any] | Model:
        return self._model

    # ------------------------------------------------------------------ building
    def setup(self, *model_args: Any, **model_kwargs: Any) -> Built:
        """Build the model and the sampler for these model arguments (``init`` does it; call
        it first where ``init`` is traced, as under ``chain_method="parallel"``)."""
        leaves = tuple(jax.tree.leaves((model_args, model_kwargs)))
        if self._built is not None and self._built_for is not None and len(
                leaves) == len(self._built_for) and all(
                a is b for a, b in zip(leaves, self._built_for, strict=True)):
            return self._built
        if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
            raise UserInputError("tempering.numpyro: the model's arguments are traced (jitted "
                                 "model args or a parallel chain method); call "
                                 "kernel.setup(*args, **kwargs) before MCMC.run")
        if isinstance(self._model, Model):
            model = self._model
            unravel: Callable[[Array], Any] = lambda theta: theta
            ravel: Callable[[Any], Array] = jnp.asarray
        else:
            model = from_numpyro(self._model, *model_args, **model_kwargs)
            unravel, ravel = site_ravel(self._model, model_args, model_kwargs)
        algorithm = build_sampler(self.spec, model, self.options)
        if algorithm.position_dims:
            raise UserInputError(f"tempering.numpyro: a draw with axes {algorithm.position_dims} "
                                 "(keep_all_rungs) does not fit NumPyro's driver: use tempering "
                                 "sample")
        self._built, self._built_for = Built(model, algorithm, unravel, ravel), leaves
        return self._built

    # ------------------------------------------------------------------ NumPyro's interface
    def init(self, rng_key: Array, num_warmup: int, init_params: Any, model_args: tuple,
             model_kwargs: dict) -> TemperingState:
        built = self.setup(*model_args, **(model_kwargs or {}))
        single = single_key(rng_key)
        keys = rng_key[None] if single else rng_key
        positions = None
        if init_params is not None:
            positions = (built.ravel(init_params)[None] if single
                         else jax.vmap(built.ravel)(init_params))
        state = start_chains(built, keys, positions, int(num_warmup))
        step = self.step_fn(built)
        self._sample_fn = step if single else jax.vmap(step)
        return jax.tree.map(lambda a: a[0], state) if single else state

    def sample(self, state: TemperingState, model_args: tuple, model_kwargs: dict
               ) -> TemperingState:
        if self._sample_fn is None:
            raise RuntimeError("tempering.numpyro: sample before init")
        return self._sample_fn(state)

    def postprocess_fn(self, model_args: tuple, model_kwargs: dict) -> Callable[[Any], Any]:
        built = self.setup(*model_args, **(model_kwargs or {}))
        return lambda z: built.model.constrain(built.ravel(z))

    def get_diagnostics_str(self, state: TemperingState) -> str:
        return f"acc. prob {float(jnp.mean(state.accept_prob)):.2f}"

    # ------------------------------------------------------------------ the transition
    @staticmethod
    def step_fn(built: Built) -> Callable[[TemperingState], TemperingState]:
        """One ``sample`` call: a count in NumPyro's warmup phase (i < 0), else step i of the
        sampling phase with the key ``fold_in(rng_key, i)``."""
        algorithm = built.algorithm

        def step(state: TemperingState) -> TemperingState:
            def move(state: TemperingState) -> TemperingState:
                key = jax.random.fold_in(state.rng_key, state.i)
                inner, info = algorithm.step(key, state.inner, state.params)
                return state._replace(z=built.unravel(algorithm.position(inner)),
                                      potential_energy=-info.lp,
                                      accept_prob=jnp.asarray(info.acceptance_rate,
                                                              state.accept_prob.dtype),
                                      stats=info.stats, inner=inner)

            moved = jax.lax.cond(state.i >= 0, move, lambda s: s, state)
            return moved._replace(i=state.i + 1)

        return step

    # ------------------------------------------------------------------ the sampler's statistics
    @property
    def extra_fields(self) -> tuple[str, ...]:
        """Every statistic the sampler declares, as ``MCMC.run(..., extra_fields=...)`` takes
        them (needs the kernel built: after ``run`` or :meth:`setup`)."""
        if self._built is None:
            raise RuntimeError("tempering.numpyro: extra_fields needs the kernel built (run "
                               "once, or call kernel.setup(*args, **kwargs))")
        return ("potential_energy", "accept_prob",
                *(f"stats.{stat.name}" for stat in self._built.algorithm.stats))

    def summary(self, mcmc: Any) -> dict[str, Any]:
        """The sampler's own summary (PT: swap rate per pair, round trips, ``barrier`` Λ̂, the
        schedule, ...) from a run that collected :attr:`extra_fields`."""
        fields = mcmc.get_extra_fields(group_by_chain=True)
        stats = {name[len("stats."):]: np.asarray(value) for name, value in fields.items()
                 if name.startswith("stats.")}
        if self.spec.summarize is None:
            return {}
        missing = [f for f in self.extra_fields if f.startswith("stats.") and f not in fields]
        if missing:
            raise UserInputError(f"tempering.numpyro: the run did not collect {missing[0]!r}: "
                                 "pass extra_fields=kernel.extra_fields to MCMC.run")
        return self.spec.summarize(stats)

    def summary_lines(self, summary: Mapping[str, Any]) -> list[str]:
        """The lines ``tempering summary`` prints under its table for this sampler."""
        return self.spec.render(summary) if self.spec.render is not None else []


def PT(model: Callable[..., Any] | Model, **options: Any) -> TemperingKernel:  # noqa: N802
    """Parallel tempering (the ``pt`` sampler, its options as keywords) as a NumPyro kernel."""
    return TemperingKernel(model, "pt", **options)


def site_ravel(model_fn: Callable, args: tuple, kwargs: dict
               ) -> tuple[Callable[[Array], Any], Callable[[Any], Array]]:
    """θ ↔ NumPyro's dict of unconstrained latent sites (``ravel_pytree``, as ``from_numpyro``
    flattens them)."""
    util = numpyro.infer.util

    def sites(key: Array) -> dict[str, Array]:
        return util.initialize_model(key, model_fn, model_args=args,
                                     model_kwargs=kwargs).param_info.z

    shapes = jax.eval_shape(sites, jax.random.key(0))
    _, unravel = ravel_pytree(jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes))
    return unravel, lambda z: ravel_pytree(z)[0]


def start_chains(built: Built, keys: Array, positions: Array | None, num_warmup: int
                 ) -> TemperingState:
    """Initial states of a batch of chains from their keys: the driver's init and one-call
    warmup (module docstring), compiled for the batch."""
    model, algorithm = built.model, built.algorithm
    init_keys, warm_keys, sample_keys = jnp.moveaxis(
        jax.vmap(lambda k: jax.random.split(k, 3))(keys), 1, 0)
    if positions is None:
        positions = jax.vmap(model.init_position)(init_keys)
    chains = positions.shape[0]
    params = jax.tree.map(lambda p: jnp.broadcast_to(p, (chains, *jnp.shape(p))),
                          algorithm.params)
    inner = jax.jit(jax.vmap(algorithm.init))(init_keys, positions)
    if num_warmup > 0:
        inner, params, _ = jax.jit(jax.vmap(algorithm.warmup, in_axes=(0, 0, 0, None)),
                                   static_argnums=3)(warm_keys, inner, params, num_warmup)
    template = jax.eval_shape(lambda k, s, p: algorithm.step(k, s, p)[1],
                              sample_keys[0], jax.tree.map(lambda a: a[0], inner),
                              jax.tree.map(lambda a: a[0], params))
    stats = jax.tree.map(lambda s: jnp.zeros((chains, *s.shape), s.dtype), template.stats)
    lp = jax.vmap(model.log_density)(jax.vmap(algorithm.position)(inner))
    return TemperingState(
        i=jnp.full((chains,), -num_warmup, jnp.int32),
        z=jax.vmap(built.unravel)(jax.vmap(algorithm.position)(inner)),
        potential_energy=-lp, accept_prob=jnp.zeros((chains,)), stats=stats,
        inner=inner, params=params, rng_key=sample_keys)
