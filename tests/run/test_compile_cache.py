"""The command line's persistent compilation cache (:mod:`tempering.compile_cache`): where it
lives, that it can be switched off, that a cache configured before is kept, and that a bench's
cache is a fresh one. Switching it on runs in-process with the session's cache (conftest's)
unset for the test and put back after it."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
from jax.experimental.compilation_cache import compilation_cache as jax_cache

from tempering import compile_cache


def test_the_folder_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(compile_cache.ENVIRONMENT, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compile_cache.chosen_directory() == tmp_path / "tempering" / "jax"
    monkeypatch.setenv(compile_cache.ENVIRONMENT, str(tmp_path / "mine"))
    assert compile_cache.chosen_directory() == tmp_path / "mine"
    for off in ("off", "0", "", "OFF"):
        monkeypatch.setenv(compile_cache.ENVIRONMENT, off)
        assert compile_cache.chosen_directory() is None


def test_a_cache_configured_before_is_kept(tmp_path):
    before = jax.config.jax_compilation_cache_dir
    assert before  # conftest's session cache
    assert compile_cache.enable(tmp_path) == Path(before)
    assert jax.config.jax_compilation_cache_dir == before


def test_a_fresh_cache_is_empty_used_and_the_old_one_comes_back():
    """Programs compiled inside ``fresh`` land in its folder, even after this session has
    compiled (JAX opens its cache once unless it is reset)."""
    jax.jit(lambda x: x * 2.5).lower(jnp.ones(2)).compile()  # the session's cache is open
    before = (jax.config.jax_compilation_cache_dir,
              jax.config.jax_persistent_cache_min_compile_time_secs)
    with compile_cache.fresh() as folder:
        assert folder.is_dir() and not any(folder.iterdir())
        assert jax.config.jax_compilation_cache_dir == str(folder)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.jit(lambda x: jnp.tan(x) * 7.5).lower(jnp.ones(6)).compile()
        assert any(folder.iterdir())
    assert not folder.exists()
    assert (jax.config.jax_compilation_cache_dir,
            jax.config.jax_persistent_cache_min_compile_time_secs) == before


def test_enabled_the_cache_keeps_compiled_programs(tmp_path, monkeypatch):
    """With no cache configured, ``enable`` switches JAX's on in the folder the environment
    names, and a compiled program lands there. The session's cache is put back afterwards."""
    names = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
             "jax_persistent_cache_min_entry_size_bytes", "jax_compilation_cache_max_size")
    before = {name: getattr(jax.config, name) for name in names}
    folder = tmp_path / "cache"
    monkeypatch.setenv(compile_cache.ENVIRONMENT, str(folder))
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        assert compile_cache.enable() == folder
        assert jax.config.jax_compilation_cache_dir == str(folder)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.jit(lambda x: jnp.sin(x) * 3.25).lower(jnp.ones(5)).compile()
        assert any(folder.iterdir())  # the compiled program is on disk
    finally:
        for name, value in before.items():
            jax.config.update(name, value)
        jax_cache.reset_cache()
