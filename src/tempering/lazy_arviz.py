"""ArviZ, imported on first use and the package's way: :func:`arviz` is the one place that
imports it.

ArviZ costs ~1.5 s to import (it brings SciPy's statistics, xarray, pandas and matplotlib), so no
module of the package imports it at its top: each calls :func:`arviz` inside the functions that
use it (``az = arviz()``) and imports ``arviz`` for annotations only under ``TYPE_CHECKING``
(``tests/package/test_startup.py`` checks both).

ArviZ 0.23 announces its 1.x refactor on import; the package keeps to APIs that survive it, so
that ``FutureWarning`` is silenced. ArviZ 0.23 also takes Numba paths whenever Numba is importable
(PyMC's PyTensor brings it): Numba is then imported with ArviZ (~0.8 s a process), its functions
compile on first use, and ``az.mcse(method="mean")`` returns a shape-(1,) array, which
``float()`` refuses on NumPy >= 2.4. The package keeps ArviZ's NumPy paths, the ones its
summaries were validated with: ArviZ is imported with Numba hidden (when nothing imported either
yet) and its Numba flag is off. Where something else imported ArviZ first (PyMC does), Numba may
have come with it, but the flag is switched off all the same before the package's first use.

A run kept in memory ends by building an InferenceData, and in a fresh process that import (with
xarray's first Dataset) is about 3 s of a first run's 15 s on two cores. :func:`prefetch` starts
it in a daemon thread when such a run starts, so it overlaps the run's XLA compiling and sampling,
which hold no GIL; :func:`arviz` waits for that thread before it imports. (Hand-written: no
library prefetches imports.)
"""

from __future__ import annotations

import sys
import threading
import warnings
from types import ModuleType

#: ArviZ once :func:`arviz` has imported and set it up.
_ARVIZ: ModuleType | None = None
#: The thread :func:`prefetch` started, if any.
_PREFETCH: threading.Thread | None = None
_PREFETCH_LOCK = threading.Lock()


def arviz() -> ModuleType:
    """The ``arviz`` module: imported on the first call (Numba hidden, its ``FutureWarning``
    silenced) and its Numba flag switched off; later calls return it at once."""
    global _ARVIZ
    if _ARVIZ is None:
        if _PREFETCH is not None:
            _PREFETCH.join()
        _ARVIZ = _import_arviz()  # at once where the prefetch imported it
    return _ARVIZ


def prefetch() -> None:
    """Import ArviZ in a daemon thread, and build one tiny InferenceData there (xarray's first
    Dataset imports more), unless ArviZ is imported or its import has started. Whatever fails
    there fails again, with its traceback, in the caller's :func:`arviz`."""
    global _PREFETCH
    with _PREFETCH_LOCK:
        if _ARVIZ is not None or _PREFETCH is not None or "arviz" in sys.modules:
            return
        _PREFETCH = threading.Thread(target=_warm, name="tempering-arviz-prefetch", daemon=True)
        _PREFETCH.start()


def _warm() -> None:
    """:func:`prefetch`'s thread: the import and one InferenceData of one draw."""
    try:
        import numpy as np
        import xarray as xr

        az = _import_arviz()
        draw = xr.Dataset({"x": (("chain", "draw"), np.zeros((1, 1)))},
                          coords={"chain": [0], "draw": [0]})
        az.InferenceData(posterior=draw, sample_stats=draw)
    except Exception:  # noqa: BLE001, S110 - the caller's own import reports it
        pass


def _import_arviz() -> ModuleType:
    """Import ArviZ with Numba hidden (when neither is imported yet) and its Numba flag off."""
    warnings.filterwarnings("ignore", category=FutureWarning, module="arviz")
    hide_numba = "arviz" not in sys.modules and "numba" not in sys.modules
    if hide_numba:
        sys.modules["numba"] = None  # type: ignore[assignment]  # find_spec → None, import fails
    try:
        import arviz as az
    finally:
        if hide_numba:
            del sys.modules["numba"]
    az.Numba.disable_numba()
    return az
