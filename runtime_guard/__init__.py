"""Strict mode for ``torch.compiler.allow_in_graph``: the runtime half of aigcheck.

>>> import runtime_guard as rg
>>> rg.set_strict("raise")            # or AIGCHECK_STRICT=raise in the environment
>>> @rg.allow_in_graph                # drop-in for torch.compiler.allow_in_graph
... def scale(x, k): ...
>>> rg.registry.violations()          # everything found, in warn and raise mode alike
[]

Violations carry the static checker's codes (AIG101 ... AIG405); see DESIGN.md section 4.
Supported torch versions: 2.13.0 and 2.14.1 (what CI tests).
"""

from runtime_guard.api import allow_in_graph, install, installed, uninstall
from runtime_guard.errors import ContractViolation, ContractWarning, Violation
from runtime_guard.modes import Strict, get_strict, set_strict, strict
from runtime_guard.registry import Check, Registration, Registry, registry
from runtime_guard.selftest import SelfTestError, SelfTestReport, check_allow_in_graph

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
