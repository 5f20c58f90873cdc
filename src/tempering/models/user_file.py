"""Models defined in a user's Python file, named ``path/to/file.py:NAME`` wherever a model name is
accepted (``--model``, ``[model] name``, :func:`tempering.get_model`, run files).

The rule. The file is imported afresh (``importlib``, under a unique module name, its directory
first on ``sys.path`` while it loads) and ``NAME`` is looked up in it:

- a :class:`~tempering.models.base.Model` (``model = tempering.from_numpyro(...)``) is used as it
  is; it takes no model options;
- a ``pymc.Model`` (``with pm.Model() as model: ...``, observations included) goes through
  :func:`~tempering.models.pymc_model.from_pymc` with its defaults; it takes no model options;
- a function is called with the model options as keyword arguments (``--set model.n=500`` calls
  ``NAME(n=500)``) and must return a ``Model`` or a ``pymc.Model`` — a NumPyro model is wrapped
  in such a function (``return tempering.from_numpyro(numpyro_fn, ...)``) or in a module-level
  ``Model``: a bare NumPyro model function carries no data, so it is refused.

The model's ``name`` becomes the ``file.py:NAME`` string as given and its ``options`` the options
given, so a run file rebuilds it (``tempering rerun``, ``tempering predict``) by loading the file
again — relative paths from the directory the run was made in. ``attrs["model_file_sha256"]``
records the file's content hash. Every failure (no such file, an import error, no ``NAME``, an
option the function does not take, a function that fails or returns something else) is one-line
:class:`~tempering.errors.UserInputError`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import inspect
import itertools
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from tempering.errors import UserInputError
from tempering.models.base import Model
from tempering.models.pymc_model import from_pymc, is_pymc_model
from tempering.models.user import first_line

#: ``anything.py:NAME`` (the last colon splits, so a Windows drive letter survives).
FILE_MODEL = re.compile(r"^(?P<path>.+\.py):(?P<attr>[A-Za-z_][A-Za-z0-9_]*)$")
_COUNTER = itertools.count()


def is_file_model(name: str) -> bool:
    """Whether a model name points into a Python file (``file.py:NAME``, or a bare ``file.py``,
    which is an error with a hint)."""
    return isinstance(name, str) and (bool(FILE_MODEL.match(name)) or name.endswith(".py"))


def load_module(path: Path, label: str) -> ModuleType:
    """Import the file as a fresh module (a unique name, so two files or two loads never clash)."""
    if not path.is_file():
        raise UserInputError(f"model {label}: no such file {path}")
    stem = re.sub(r"\W", "_", path.stem)
    module_name = f"tempering_user_model_{next(_COUNTER)}_{stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UserInputError(f"model {label}: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except UserInputError as exc:
        sys.modules.pop(module_name, None)
        raise UserInputError(f"model {label}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - any failure of the user's file is their input
        sys.modules.pop(module_name, None)
        raise UserInputError(f"model {label}: importing {path} failed: {first_line(exc)}"
                             ) from None
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    return module


def call_factory(factory: Any, options: dict[str, Any], label: str) -> Any:
    """``factory(**options)``, with an option it does not take or its own failure as one line."""
    try:
        inspect.signature(factory).bind(**options)
    except TypeError:
        takes = ", ".join(inspect.signature(factory).parameters) or "none"
        raise UserInputError(f"model {label}: options {sorted(options)} do not fit its "
                             f"parameters ({takes})") from None
    except ValueError:  # no signature (a builtin): let the call decide
        pass
    try:
        return factory(**options)
    except UserInputError as exc:
        raise UserInputError(f"model {label}: {exc}") from None
    except Exception as exc:  # noqa: BLE001
        raise UserInputError(f"model {label}: building it failed: {first_line(exc)}") from None


def pymc_as_model(pymc_model: Any, label: str) -> Model:
    """A ``pymc.Model`` found in the file, through :func:`~tempering.from_pymc`."""
    try:
        return from_pymc(pymc_model)
    except UserInputError as exc:
        raise UserInputError(f"model {label}: {exc}") from None


def load_file_model(name: str, options: dict[str, Any]) -> Model:
    """The model ``NAME`` of ``path.py:NAME`` built with ``options`` (module docstring's rule)."""
    match = FILE_MODEL.match(name)
    if match is None:
        raise UserInputError(f"model {name}: name the model inside the file, as {name}:NAME")
    path, attr = Path(match["path"]), match["attr"]
    module = load_module(path, name)
    if not hasattr(module, attr):
        defined = [k for k, v in vars(module).items()
                   if not k.startswith("_") and (isinstance(v, Model) or inspect.isfunction(v))
                   and getattr(v, "__module__", module.__name__) == module.__name__]
        raise UserInputError(f"model {name}: {path} defines no {attr!r} (it defines: "
                             f"{', '.join(defined) or 'no model or function'})")
    target = getattr(module, attr)
    if is_pymc_model(target):
        target = pymc_as_model(target, name)
    if isinstance(target, Model):
        if options:
            raise UserInputError(f"model {name}: it is a Model, not a function, so it takes no "
                                 f"options (got {', '.join(sorted(options))})")
        model = target
    elif callable(target):
        model = call_factory(target, options, name)
        if is_pymc_model(model):
            model = pymc_as_model(model, name)
        if not isinstance(model, Model):
            raise UserInputError(f"model {name}: returned {type(model).__name__}, not a "
                                 "tempering Model (wrap a NumPyro model: return "
                                 "tempering.from_numpyro(fn, ...))")
    else:
        raise UserInputError(f"model {name}: {attr} is a {type(target).__name__}, not a Model "
                             "or a function returning one")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return dataclasses.replace(model, name=name, options=dict(options),
                               attrs={**model.attrs, "model_file_sha256": digest})
