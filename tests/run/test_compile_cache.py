"""The command line's persistent compilation cache (:mod:`tempering.compile_cache`): where it
lives, that it can be switched off, that a cache configured before is kept, and that a bench's
cache is a fresh one. The folder choices are read in-process; switching the cache on needs a
fresh JAX (this session's cache is configured by conftest), so that part runs in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax

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


def test_a_fresh_cache_is_empty_and_the_old_one_comes_back():
    before = (jax.config.jax_compilation_cache_dir,
              jax.config.jax_persistent_cache_min_compile_time_secs)
    with compile_cache.fresh() as folder:
        assert folder.is_dir() and not any(folder.iterdir())
        assert jax.config.jax_compilation_cache_dir == str(folder)
    assert not folder.exists()
    assert (jax.config.jax_compilation_cache_dir,
            jax.config.jax_persistent_cache_min_compile_time_secs) == before


ENABLE_AND_COMPILE = """
import jax, jax.numpy as jnp
from tempering import compile_cache
folder = compile_cache.enable()
print(folder)
if folder is not None:
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
jax.jit(lambda x: jnp.sin(x) * 2.0).lower(jnp.ones(3)).compile()
"""


def _enable_in_a_fresh_process(setting: str) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if k != "TEMPERING_TEST_JAX_CACHE"}
    env[compile_cache.ENVIRONMENT] = setting
    done = subprocess.run([sys.executable, "-c", ENABLE_AND_COMPILE], env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip(), done.returncode


def test_enabled_the_cache_keeps_compiled_programs_and_off_keeps_none(tmp_path):
    folder = tmp_path / "cache"
    printed, _ = _enable_in_a_fresh_process(str(folder))
    assert printed == str(folder)
    assert any(folder.iterdir())  # the compiled program is on disk
    printed, _ = _enable_in_a_fresh_process("off")
    assert printed == "None"
