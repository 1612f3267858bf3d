"""The code table: every code with its name, severity and default, written once.

The rule classes (:mod:`checker.rules`) take their name, severity and default from
here, and so do selection, configuration, the documentation, the cache and
``runtime_guard``. Those need only this table, while the rule classes import libcst and
the analysis, which cost more than a whole run answered from the cache.

``PLANNED`` names codes reserved for rules that are not implemented yet, so
that configuration and ``# noqa`` comments naming them are accepted today. Codes are
stable and never reused.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.spec.findings import Severity


@dataclass(frozen=True)
class RuleInfo:
    """What selection and reporting need to know of a rule: its class attributes of the same names."""

    code: str
    name: str
    severity: Severity
    #: Off unless selected explicitly (or, for documented-only rules, by ``doc-strict``).
    default_enabled: bool = True


#: Reported by the engine itself, for a file it cannot analyse.
PARSE_ERROR = RuleInfo("AIG900", "parse-error", Severity.ERROR)

#: Every implemented rule, in the order of ``checker.rules.ALL_RULES``.
RULES: tuple[RuleInfo, ...] = (
    RuleInfo("AIG101", "unproxyable-parameter", Severity.WARNING),
    RuleInfo("AIG102", "hard-error-parameter", Severity.ERROR),
    RuleInfo("AIG103", "autograd-ctx-parameter", Severity.ERROR),
    RuleInfo("AIG104", "unproxyable-call-argument", Severity.WARNING),
    RuleInfo("AIG105", "undocumented-parameter-type", Severity.INFO, default_enabled=False),
    RuleInfo("AIG201", "unproxyable-return", Severity.WARNING),
    RuleInfo("AIG202", "baked-scalar-return", Severity.ERROR),
    RuleInfo("AIG203", "untraceable-tensor-subclass", Severity.ERROR),
    RuleInfo("AIG301", "captured-tensor", Severity.ERROR),
    RuleInfo("AIG302", "captured-mutable-state", Severity.ERROR),
    RuleInfo("AIG303", "laundered-capture", Severity.ERROR),
    RuleInfo("AIG401", "recreated-closure", Severity.ERROR),
    RuleInfo("AIG402", "ineffective-registration", Severity.WARNING),
    RuleInfo("AIG403", "callable-instance", Severity.ERROR),
    RuleInfo("AIG404", "registration-in-compiled-region", Severity.WARNING),
    RuleInfo("AIG405", "not-callable", Severity.ERROR),
    RuleInfo("AIG406", "conflicting-markers", Severity.ERROR),
    RuleInfo("AIG407", "private-api", Severity.INFO),
    RuleInfo("AIG501", "trace-time-side-effect", Severity.WARNING),
    RuleInfo("AIG502", "data-dependent-python", Severity.WARNING),
    RuleInfo("AIG503", "needs-custom-op", Severity.ERROR),
    PARSE_ERROR,
)

#: The table by code.
BY_CODE: dict[str, RuleInfo] = {info.code: info for info in RULES}

PLANNED: dict[str, str] = {}
