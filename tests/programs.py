"""The programs JAX lowers inside a block, by name (:func:`lowered`), read from its compile log:
a lowering happens whether or not the persistent compilation cache then has the executable, so
what a test counts does not depend on the session's cache. Tests use it to check that a run
compiles a fixed set of programs and nothing op by op (an eager ``jnp`` call is a program of its
own)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

import jax

_LOWERED = re.compile(r"Finished jaxpr to MLIR module conversion jit\((?P<name>[^)]*)\)")


class _Names(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.names: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = _LOWERED.search(record.getMessage())
        if found:
            self.names.append(found["name"])


@contextmanager
def lowered() -> Iterator[list[str]]:
    """The names of the programs lowered inside the block (a list filled as they are)."""
    handler, logger = _Names(), logging.getLogger("jax")
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False  # the log lines are for this count, not for pytest's report
    try:
        with jax.log_compiles(True):
            yield handler.names
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
