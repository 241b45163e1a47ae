"""A package that is also a function: ``qrelkit.estimate(...)`` beside ``qrelkit.estimate.draw_sample``.

``qrelkit.estimate`` names both the estimators' package and the notebook function that runs them
(as ``qrelkit.score`` runs the evaluation). Python binds a package's name on its parent the moment
the package is imported, so a plain function of that name in ``qrelkit/__init__`` would be replaced
by the package as soon as anything imported ``qrelkit.estimate.X``. Instead the package itself is
made callable: its module object gets a subclass of ModuleType whose ``__call__`` forwards to the
function, so both spellings work whatever was imported first.
"""
from __future__ import annotations

import importlib
import types
from typing import Any


class CallableModule(types.ModuleType):
    """A module whose call runs ``__call_target__`` = (module, function name)."""

    __call_target__: tuple[str, str]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module, name = self.__call_target__
        return getattr(importlib.import_module(module), name)(*args, **kwargs)


def make_callable(module: types.ModuleType, target_module: str, name: str) -> None:
    """Make ``module`` callable as ``target_module.name``."""
    module.__class__ = CallableModule
    module.__call_target__ = (target_module, name)  # type: ignore[attr-defined]
