"""The chain-batched, ahead-of-time compiled programs of an algorithm (:class:`Compiled`): what
the driver runs, and what a pilot that shares the run's programs runs before it
(:meth:`Compiled.shared`); and one jitted ``init`` per algorithm (:func:`chain_init`). The chains'
keys and starting positions are :mod:`tempering.starts`'s."""

from __future__ import annotations

import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.base import Algorithm, begin_key
from tempering.numerics import compile_lowered, gc_paused, jit_once, traced_once
from tempering.starts import kept

#: Algorithms whose compiled programs a process keeps for a later run (:meth:`Compiled.shared`).
SHARED_ALGORITHMS = 4


#: The last few algorithms' jitted ``init`` (:func:`chain_init`).
_INITS: OrderedDict[Any, Any] = OrderedDict()


def chain_init(algorithm: Algorithm) -> Any:
    """``jax.jit(algorithm.init)``, one per algorithm (the last few kept): its trace is cached,
    so a run traces a chain's start once where it traced it three or four times (the ledger's
    and the runner's state shapes, the program's start; each a vmap of it or inside one). On
    MINTEE, whose start reads every level's batch energy, each trace took 0.1–0.3 s."""
    return kept(_INITS, algorithm.init, lambda: jax.jit(algorithm.init), SHARED_ALGORITHMS)


class Compiled:
    """The chain-batched warmup and chunk functions of one algorithm, compiled ahead of time.

    Each is lowered and compiled before it first runs, and the compile time is kept apart
    (``compile_seconds``), so that wall times — and ESS per second — measure sampling only. One
    chunk executable serves every chunk: a chunk always has ``length`` slots and runs its first
    ``count`` (a traced argument: a ``fori_loop`` over the first ``count`` slots, the rest left
    zero), so a last, shorter chunk needs no second compilation.
    """

    def __init__(self, algorithm: Algorithm, thin: int, compute_bound_warmup: bool = False,
                 brief: bool = False):
        self.algorithm = algorithm
        self.thin = thin
        #: compile the warmup as a chunk (XLA's fusion emitters; ``numerics.tall_data``)
        self.warm_like_chunk = compute_bound_warmup
        #: compile the one program as a program that runs once (``numerics.brief_run``)
        self.brief = brief
        self._init_chain = chain_init(algorithm)
        self.init = jit_once(jax.vmap(self._init_chain))
        self._warmup = jax.jit(jax.vmap(self._start_and_warm, in_axes=(0, 0, 0, 0, None)),
                               static_argnums=4)
        self._chunk_jit = jax.jit(jax.vmap(self._chunk, in_axes=(0, 0, 0, None, None, None)),
                                  static_argnums=5)
        #: the warmup's length is an argument of the one program: one for every warmup
        self.steps_traced = bool(getattr(algorithm.scans, "steps_traced", False))
        self._program_jit = jax.jit(self._program,
                                    static_argnums=(8,) if self.steps_traced else (8, 9))
        self._executables: dict[tuple, Any] = {}
        #: per batch: the one program's chains' start (placeholders to sample) and warmup
        self._start: dict[int, tuple] = {}
        self._warmup_of: dict[int, int] = {}
        self.compile_seconds = 0.0

    @property
    def one_program(self) -> bool:
        """Whether warmup and sampling run on one program (the algorithm has
        :class:`~tempering.algorithms.base.Scans`), not a warmup program and a chunk program."""
        return self.algorithm.scans is not None

    _shared: OrderedDict[tuple, Compiled] = OrderedDict()

    @classmethod
    def shared(cls, algorithm: Algorithm, thin: int, compute_bound_warmup: bool = False,
               brief: bool = False) -> Compiled:
        """The process's :class:`Compiled` for ``algorithm``'s functions (the same ``init``,
        ``warmup``, ``step``, ``scans`` and ``position``; its parameters may differ, as they are
        arguments of the programs): a pilot that ran the run's own programs (PT's
        ``rungs=auto``) hands them to the run this way. The last :data:`SHARED_ALGORITHMS`
        algorithms are kept."""
        functions = _functions(algorithm)
        key = (*map(id, functions), getattr(algorithm.scans, "steps_traced", False), int(thin),
               bool(compute_bound_warmup), bool(brief))
        if key in cls._shared and _functions(cls._shared[key].algorithm) != functions:
            del cls._shared[key]  # ids of functions since collected
        found = kept(cls._shared, key,
                     lambda: cls(algorithm, thin, compute_bound_warmup, brief), SHARED_ALGORITHMS)
        found.algorithm = algorithm  # the caller's facts and trim; the functions are the same
        return found

    def _executable(self, name: str, fn, args: tuple, static: int, batch: int):
        cache_key = (name, static, batch)
        if cache_key not in self._executables:
            t0 = time.perf_counter()
            self._executables[cache_key] = compile_lowered(
                fn.lower(*args, static), sampling=name == "chunk" or self.warm_like_chunk)
            self.compile_seconds += time.perf_counter() - t0
        return self._executables[cache_key]

    def prepared(self, batch: int, warmup: int, length: int, warmed: bool = False) -> bool:
        """Whether the executables for ``batch`` chains are compiled already (``warmed``: chains
        that are warm already, of a run of ``warmup`` steps, need no warmup program)."""
        if self.one_program:
            return self._program_key(batch, warmup, length) in self._executables
        return (("chunk", length, batch) in self._executables
                and (warmup == 0 or warmed or ("warmup", warmup, batch) in self._executables))

    def prepare(self, start, warm_key, sample_key, state, params, warmup: int,
                length: int, warmed: bool = False) -> None:
        """Compile the warmup and the chunk executables for these shapes before any timing. Each
        is traced and lowered here and handed to a thread to compile at once (XLA compiles a
        module on one thread and releases the GIL): the warmup, the larger, first, so that the
        chunk's tracing overlaps its compilation, and with two free cores the pair costs about
        the warmup's tracing and compilation. ``start`` is the chains' (init keys, positions);
        ``state`` may be shapes only (``jax.ShapeDtypeStruct``s), as before a warmup, which
        starts the chains itself; so may ``start`` and the keys with one program (a pilot whose
        chains' start still compiles, :func:`chain_start`): the program is compiled, and the
        start is kept by the warmup that runs it. With one program, it is compiled for the
        run's ``warmup`` even when the chains are ``warmed`` (a resumed run samples on the
        executable its first session had, not on one compiled for another warmup)."""
        batch = warm_key.shape[0]
        if self.one_program:
            if not any(isinstance(a, jax.ShapeDtypeStruct) for a in jax.tree.leaves(start)):
                self._start[batch] = start
            if self._program_key(batch, warmup, length) not in self._executables:
                self._compile_program(batch, warmup, length, start, sample_key, state, params)
            return
        chunk_args = (sample_key, state, params, np.int64(0), np.int64(length))
        jobs: list[tuple[str, Any, tuple, int]] = []
        if warmup > 0 and not warmed:
            jobs.append(("warmup", self._warmup, (*start, warm_key, params), warmup))
        jobs.append(("chunk", self._chunk_jit, chunk_args, length))
        todo = [job for job in jobs if (job[0], job[3], batch) not in self._executables]
        if not todo:
            return
        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(todo)) as pool:
            # tracing runs the user's Python (a NumPyro model keeps a global handler stack), so
            # it stays on this thread; only XLA's compilation runs on the pool
            futures = [pool.submit(compile_lowered, job[1].lower(*job[2], job[3]),
                                   job[0] == "chunk" or self.warm_like_chunk) for job in todo]
            done = [future.result() for future in futures]
        for (name, _, _, static), executable in zip(todo, done, strict=True):
            self._executables[(name, static, batch)] = executable
        self.compile_seconds += time.perf_counter() - t0

    def record_shapes(self, batch: int, length: int) -> dict[str, jax.ShapeDtypeStruct]:
        """One draw's record by name, as the compiled chunk for ``batch`` chains makes it."""
        if self.one_program:
            key = self._program_key(batch, self._warmup_of.get(batch, 0), length)
            record = self._executables[key].out_info[3]
            return self._kept(_per_draw(record), 0)
        _, record = self._executables[("chunk", length, batch)].out_info
        return self._kept(_per_draw(record), 0)

    def traced_record_shapes(self, sample_key, state, params) -> dict[str, jax.ShapeDtypeStruct]:
        """One draw's record by name, from tracing a one-draw chunk (nothing compiled): for a
        process that makes a run file without running chains (a Dask run's client)."""
        _, record = jax.eval_shape(lambda k, s, p: self._chunk_jit(k, s, p, 0, 1, 1),
                                   sample_key, state, params)
        return self._kept(_per_draw(record), 0)

    def warmup(self, start, key, params, num_steps: int):
        """The chains started at ``start`` (init keys, positions) and warmed up: one program,
        so a run's start compiles nothing apart."""
        if self.one_program:
            return self._warm_on_program(start, key, params, num_steps)
        args = (*start, key, params)
        return self._executable("warmup", self._warmup, args, num_steps, key.shape[0])(*args)

    def _start_and_warm(self, init_key, position, key, params, num_steps):
        state = self._init_chain(init_key, position)
        return self.algorithm.warmup(key, state, params, num_steps)

    def chunk(self, key, state, params, start: int, count: int, length: int):
        """Draws ``start`` … ``start + count − 1`` (``count ≤ length``); the records are
        (chain, count, ...)."""
        if self.one_program:
            state, record = self._sample_on_program(key, state, params, start, count, length)
        else:
            args = (key, state, params, np.int64(start), np.int64(count))
            state, record = self._executable("chunk", self._chunk_jit, args, length,
                                             key.shape[0])(*args)
        # sliced on the host: a device array's slice compiles a program per length
        record = jax.tree.map(lambda a: np.asarray(a)[:, :count], record)
        return state, self._kept(record, 2)

    def _kept(self, record: dict[str, Any], axis: int) -> dict[str, Any]:
        """The record as the run keeps it (:attr:`~tempering.algorithms.base.Algorithm.trim`)."""
        trim = self.algorithm.trim
        return record if trim is None else trim(record, axis)

    def _chunk(self, key, state, params, start, count, length):
        algorithm, thin = self.algorithm, self.thin

        def one_draw(state, draw_index):
            def one_step(carry, j):
                state, cost = carry
                step_key = jax.random.fold_in(key, draw_index * thin + j)
                state, info = algorithm.step(step_key, state, params)
                return (state, cost + info.cost), info

            (state, cost), infos = jax.lax.scan(one_step, (state, jnp.zeros(())),
                                                jnp.arange(thin))
            last = jax.tree.map(lambda a: a[-1], infos)
            record = {"position": algorithm.position(state), "lp": last.lp, "cost": cost,
                      "acceptance_rate": jnp.mean(infos.acceptance_rate), **last.stats}
            return state, record

        draw, shapes = traced_once(one_draw, state, start)

        def draw_into(slot, carry):
            state, records = carry
            state, record = draw(state, (start + slot).astype(start.dtype))
            return state, jax.tree.map(lambda buf, r: buf.at[slot].set(r), records, record)

        # A loop over the first ``count`` slots of ``length`` (the rest stay zero): a ``cond``
        # skipping the slots past ``count`` would copy the whole state (EE's rings, say) per draw.
        records = jax.tree.map(lambda a: jnp.zeros((length, *a.shape), a.dtype), shapes[1])
        return jax.lax.fori_loop(0, count, draw_into, (state, records))


    # One program for warmup and sampling (an algorithm with ``scans``) -------------------

    def _program_key(self, batch: int, warmup: int, length: int) -> tuple:
        """The one program's key: a sampling call takes any warmup's; a traced length, none."""
        if self.steps_traced:
            return ("program", None, length, batch)
        if warmup == 0:
            warmup = self._warmup_of.get(batch, 0)
        return ("program", warmup, length, batch)

    def compiled_length(self, batch: int) -> int | None:
        """The chunk length of a program for every warmup compiled for ``batch``, or ``None``."""
        executable, length = self._program_for(batch, 0, None)
        return length if self.steps_traced and executable is not None else None

    def _steps(self, warmup: int) -> tuple:
        """The program's warmup-length argument where it is traced (else none: static)."""
        return (np.int32(warmup),) if self.steps_traced else ()

    def _compile_program(self, batch: int, warmup: int, length: int, start, key, state,
                         params) -> None:
        init_key, position = start
        args = (init_key, position, key, state, params, np.int64(0), np.int64(length),
                np.bool_(True))
        static = (length,) if self.steps_traced else (length, warmup)
        t0 = time.perf_counter()
        with gc_paused():  # tracing and lowering: Python's collector only slows them
            lowered = self._program_jit.lower(*args, *static, *self._steps(warmup))
        self._executables[self._program_key(batch, warmup, length)] = compile_lowered(
            lowered, sampling=not self.brief)
        self._warmup_of[batch] = warmup
        self.compile_seconds += time.perf_counter() - t0

    def _program_for(self, batch: int, warmup: int, length: int | None):
        """The compiled program of ``warmup`` (any, to sample) and ``length`` (any, to warm up)
        for ``batch`` chains and its length, or ``None`` and the length to compile one for."""
        for (name, w, n, b), executable in self._executables.items():
            if (name == "program" and b == batch and (warmup == 0 or w in (None, warmup))
                    and (length is None or n == length)):
                return executable, n
        return None, length or 1

    def _warm_on_program(self, start, key, params, num_steps: int):
        batch = key.shape[0]
        self._start.setdefault(batch, start)
        executable, length = self._program_for(batch, num_steps, None)
        state = jax.eval_shape(self.init, *start)
        if executable is None:
            self._compile_program(batch, num_steps, length, start, key, state, params)
            executable, length = self._program_for(batch, num_steps, length)
        self._warmup_of[batch] = num_steps
        state = jax.tree.map(lambda a: np.zeros(a.shape, a.dtype), state)
        scans = self.algorithm.scans
        assert scans is not None
        total = scans.warming_scans(num_steps)
        segments = (total,) if scans.segments is None else scans.segments(num_steps)
        done, cost = 0, np.zeros(batch)
        for i, count in enumerate(segments):  # the host steps in between (PT's rounds)
            state, params, spent, _ = executable(*start, key, state, params, np.int64(done),
                                                 np.int64(count), np.bool_(True),
                                                 *self._steps(num_steps))
            cost, done = cost + np.asarray(spent), done + count
            if scans.between is not None and i < len(segments) - 1:
                state, params = scans.between(i, state, params)
        return state, params, cost

    def _sample_on_program(self, key, state, params, start: int, count: int, length: int):
        batch = key.shape[0]
        executable, _ = self._program_for(batch, 0, length)
        if executable is None:
            self._compile_program(batch, 0, length, self._start[batch], key, state, params)
            executable, _ = self._program_for(batch, 0, length)
        state, _, _, record = executable(*self._start[batch], key, state, params,
                                         np.int64(start), np.int64(count), np.bool_(False),
                                         *self._steps(self._warmup_of.get(batch, 0)))
        return state, record

    def _program(self, init_key, position, key, state, params, start, count, warming, length,
                 num_steps):
        """Warmup (``warming``: the chains started from ``init_key``, ``position``, then
        ``count`` scans of the algorithm's :class:`~tempering.algorithms.base.Scans`) or draws
        ``start`` … ``start + count − 1`` into ``length`` slots, each ``thin`` scans, as
        :meth:`_chunk` makes them; one program, whose warmup part a sampling call skips (a
        ``cond`` on ``warming``, which is not batched). Returns the state, the parameters, the
        cost and the records (a warmup's are not kept), each with the chains' axis first.

        The chains are a ``vmap`` inside the loop over draws, not around it: a loop batched from
        outside is batched by JAX's ``while`` rule, which batches its body until the carry's
        batched parts stop changing (about 0.1–0.2 s of a cold default PT run's tracing and
        lowering)."""
        algorithm, scans, thin = self.algorithm, self.algorithm.scans, self.thin
        assert scans is not None
        first = start == 0  # a warmup in segments (``Scans.segments``) starts the chains once
        state = jax.lax.cond(warming & first,
                             lambda: jax.vmap(self._init_chain)(init_key, position),
                             lambda: state)
        resume = scans.resume
        if resume is None:
            state, params, carry, cost = jax.vmap(
                lambda k, s, p: scans.begin(begin_key(k), s, p, warming, num_steps))(
                    key, state, params)
        else:
            state, params, carry, cost = jax.vmap(
                lambda s, p: resume(s, p, num_steps, warming, first))(state, params)
        scans_per_draw = jnp.where(warming, 1, thin)

        def one_scan(key, index, j, loop):
            state, params, carry, drawn, accept, _ = loop
            t = jnp.where(warming, index, index * thin + j)
            state, params, carry, info = scans.scan(jax.random.fold_in(key, t), t, state,
                                                    params, carry, warming, num_steps)
            return state, params, carry, drawn + info.cost, accept + info.acceptance_rate, info

        def one_draw(key, state, params, carry, index):
            blank = None
            if thin > 1:  # the info a draw's loop of scans starts from
                _, _, _, first = jax.eval_shape(
                    lambda: scans.scan(key, index, state, params, carry, warming, num_steps))
                blank = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), first)
            inner = (state, params, carry, jnp.zeros(()), jnp.zeros(()), blank)
            if thin == 1:
                inner = one_scan(key, index, 0, inner)
            else:
                inner = jax.lax.fori_loop(0, scans_per_draw,
                                          lambda j, c: one_scan(key, index, j, c), inner)
            state, params, carry, drawn, accept, last = inner
            record = {"position": algorithm.position(state), "lp": last.lp, "cost": drawn,
                      "acceptance_rate": accept / scans_per_draw, **last.stats}
            return state, params, carry, record

        draw, shapes = traced_once(one_draw, *_one_chain((key, state, params, carry)), start)
        draws = jax.vmap(draw, in_axes=(0, 0, 0, 0, None))

        def draw_into(slot, loop):
            state, params, carry, records, cost = loop
            index = (start + slot).astype(start.dtype)
            state, params, carry, record = draws(key, state, params, carry, index)
            at = jnp.minimum(slot, length - 1)  # a warmup's scans overwrite the last slot
            records = jax.tree.map(lambda buf, r: buf.at[:, at].set(r), records, record)
            return state, params, carry, records, cost + record["cost"]

        batch = key.shape[0]
        records = jax.tree.map(lambda a: jnp.zeros((batch, length, *a.shape), a.dtype),
                               shapes[3])
        state, params, _, records, cost = jax.lax.fori_loop(
            0, count, draw_into, (state, params, carry, records, cost))
        return state, params, cost, records


def _one_chain(tree: Any) -> Any:
    """One chain's shapes of a chain-batched ``tree``."""
    return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), tree)


def _functions(algorithm: Algorithm) -> tuple:
    return algorithm.step, None if algorithm.scans is None else algorithm.scans.scan


def _per_draw(record: Any) -> dict[str, jax.ShapeDtypeStruct]:
    return {name: jax.ShapeDtypeStruct(leaf.shape[2:], leaf.dtype)
            for name, leaf in record.items()}
