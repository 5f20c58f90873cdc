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
"""

from __future__ import annotations

import sys
import warnings
from types import ModuleType

#: ArviZ once :func:`arviz` has imported and set it up.
_ARVIZ: ModuleType | None = None


def arviz() -> ModuleType:
    """The ``arviz`` module: imported on the first call (Numba hidden, its ``FutureWarning``
    silenced) and its Numba flag switched off; later calls return it at once."""
    global _ARVIZ
    if _ARVIZ is None:
        _ARVIZ = _import_arviz()
    return _ARVIZ


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
