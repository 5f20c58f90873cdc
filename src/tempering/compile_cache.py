"""JAX's persistent compilation cache, switched on for the command line.

On a CPU, XLA's compilation is most of a cheap target's run: a default PT run of the benchmark's
10-D mixture spent 14–17 s compiling (the pilot's warmup, the run's warmup and its chunk) and
under 0.5 s sampling on 2 cores (docs/multimodal-benchmark.md, "Where PT's seconds go"). JAX can
keep compiled executables on disk, keyed by the program and the compiler's options, so that a
second run of the same model and sampler settings loads them instead of compiling again; the
draws are the same (the same program, the same executable). Written by hand only in what it
chooses: where the cache lives and when it is on.

:func:`enable` is what ``tempering`` (the CLI) calls before it compiles anything: each command that
compiles calls it first (``tempering --help`` imports no JAX). The cache lives
in ``TEMPERING_COMPILE_CACHE`` when that is set (``off`` or ``0`` switches it off), else in
``$XDG_CACHE_HOME/tempering/jax`` (``~/.cache/tempering/jax``), and holds at most
``MAX_BYTES`` (least recently used entries go first). Programs that compile in under
``MIN_SECONDS`` are not kept: loading them would cost about as much. The Python API leaves JAX's
configuration alone: call :func:`enable` yourself to get the same.

Benchmarks measure compilation, so ``tempering bench`` runs in :func:`fresh`: an empty cache of
its own for the one invocation (a second identical program within it still loads, which is what
the multimodal benchmark's "second run" row measures).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import jax
from jax.experimental.compilation_cache import compilation_cache as jax_cache

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)

#: Environment variable naming the cache's folder, or ``off``/``0``/empty to switch it off.
ENVIRONMENT = "TEMPERING_COMPILE_CACHE"
#: Largest size of the cache on disk, in bytes.
MAX_BYTES = 2 * 1024**3
#: Programs compiled faster than this are not cached.
MIN_SECONDS = 0.2
_OFF = ("", "0", "off", "false", "no")


def default_directory() -> Path:
    """``$XDG_CACHE_HOME/tempering/jax``, or ``~/.cache/tempering/jax``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tempering" / "jax"


def chosen_directory() -> Path | None:
    """The folder the environment asks for (module docstring), or ``None`` when it is off."""
    value = os.environ.get(ENVIRONMENT)
    if value is None:
        return default_directory()
    if value.strip().lower() in _OFF:
        return None
    return Path(value).expanduser()


def enable(directory: str | Path | None = None) -> Path | None:
    """Switch JAX's persistent compilation cache on in ``directory`` (default: the one the
    environment chooses, :func:`chosen_directory`); returns the folder, or ``None`` when the
    environment switches it off. It takes effect even after earlier compilations (JAX's cache is
    reset to open in the new folder). A cache JAX already has (``jax_compilation_cache_dir`` set by
    the caller, or by the test suite) is kept as it is, and its folder returned. A folder that
    cannot be created leaves the cache off (compiling is only slower)."""
    current = getattr(jax.config, "jax_compilation_cache_dir", None)
    if current:
        return Path(current)
    folder = Path(directory) if directory is not None else chosen_directory()
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    jax.config.update("jax_compilation_cache_max_size", MAX_BYTES)
    _open(str(folder), MIN_SECONDS, 0)
    return folder


#: The settings :func:`_open` sets, which :func:`fresh` puts back.
_SETTINGS = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
             "jax_persistent_cache_min_entry_size_bytes")


def _open(*values) -> None:
    """Set ``_SETTINGS`` to ``values`` and reset JAX's cache: JAX opens it once, at the first
    compilation, and ignores a later folder unless it is reset."""
    for name, value in zip(_SETTINGS, values, strict=True):
        jax.config.update(name, value)
    jax_cache.reset_cache()


@contextmanager
def fresh() -> Iterator[Path]:
    """JAX's persistent cache in a new, empty temporary folder while the block runs (removed
    after it); the cache settings from before are restored."""
    before = [getattr(jax.config, name) for name in _SETTINGS]
    with tempfile.TemporaryDirectory(prefix="tempering-compile-cache-") as folder:
        _open(folder, MIN_SECONDS, 0)
        try:
            yield Path(folder)
        finally:
            _open(*before)
