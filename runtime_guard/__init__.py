"""Strict mode for ``torch.compiler.allow_in_graph``: the runtime half of aigcheck.

>>> import runtime_guard as rg
>>> rg.set_strict("raise")            # or AIGCHECK_STRICT=raise in the environment
>>> @rg.allow_in_graph                # drop-in for torch.compiler.allow_in_graph
... def scale(x, k): ...
>>> rg.registry.violations()          # everything found, in warn and raise mode alike
[]

Violations carry the static checker's codes (AIG101 ... AIG405); README.md, "Strict mode at run time", says what each checks.
Supported torch versions: 2.13.0 and 2.14.1 (what CI tests).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runtime_guard.api import allow_in_graph, install, installed, uninstall
    from runtime_guard.errors import ContractViolation, ContractWarning, Violation
    from runtime_guard.modes import Strict, get_strict, set_strict, strict
    from runtime_guard.registry import Check, Registration, Registry, registry
    from runtime_guard.selftest import SelfTestError, SelfTestReport, check_allow_in_graph

#: The module each public name comes from. Names are imported on first use (PEP 562), so
#: that importing the package imports no torch: the pytest plugin is loaded by every pytest
#: session, torch or not, and only ``--aig-strict`` needs the guard.
_SOURCES = {
    **dict.fromkeys(("allow_in_graph", "install", "installed", "uninstall"), "runtime_guard.api"),
    **dict.fromkeys(("ContractViolation", "ContractWarning", "Violation"), "runtime_guard.errors"),
    **dict.fromkeys(("Strict", "get_strict", "set_strict", "strict"), "runtime_guard.modes"),
    **dict.fromkeys(("Check", "Registration", "Registry", "registry"), "runtime_guard.registry"),
    **dict.fromkeys(("SelfTestError", "SelfTestReport", "check_allow_in_graph"), "runtime_guard.selftest"),
}

__all__ = [
    "Check",
    "ContractViolation",
    "ContractWarning",
    "Registration",
    "Registry",
    "SelfTestError",
    "SelfTestReport",
    "Strict",
    "Violation",
    "allow_in_graph",
    "check_allow_in_graph",
    "get_strict",
    "install",
    "installed",
    "registry",
    "set_strict",
    "strict",
    "uninstall",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The package, which keeps ``registry`` the :class:`Registry` instance.

    Importing a submodule binds it on its package: ``runtime_guard.registry`` the module
    would hide ``registry`` the instance once any module imported it (the eager package
    imported it and then rebound the name).
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name == "registry" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
