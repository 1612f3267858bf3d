"""The ``sarif`` format: one SARIF 2.1.0 log, as GitHub code scanning reads it.

The log has one run. ``tool.driver.rules`` describes every implemented rule (not
only those with findings), from the rule's own documentation; each result points at
its rule by ``ruleId`` and ``ruleIndex``, carries the finding's region and its
fingerprint in ``partialFingerprints`` so that code scanning tracks an alert across
line shifts. Relative paths become relative URIs under the ``%SRCROOT%`` base (the
directory aigcheck ran in); absolute paths become ``file:`` URIs. The output is
deterministic: keys sorted, results in :func:`~checker.output.reporters.base.ordered` order.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterable
from pathlib import PureWindowsPath
from typing import TYPE_CHECKING

from checker import __version__
from checker.output import docs
from checker.output.reporters.base import DEFAULT_OPTIONS, RenderOptions, ordered
from checker.spec.findings import Finding, Severity

if TYPE_CHECKING:
    from checker.rules import Rule

#: The official schema of SARIF 2.1.0 (OASIS, errata 01): what the output validates against.
SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
#: The base of relative artifact URIs: the directory aigcheck ran in.
SRCROOT = "%SRCROOT%"
#: The key of our fingerprint in ``partialFingerprints``; bump the version if
#: :mod:`checker.output.fingerprints` changes what it hashes.
FINGERPRINT_KEY = "aigcheck/v1"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}

# Code scanning shows tags as filters. The families follow the code's hundreds
# (README.md, "Rules").
_FAMILIES = {
    "1": "parameters",
    "2": "returns",
    "3": "captures",
    "4": "registrations",
    "5": "bodies",
    "9": "unanalysable-files",
}


def render(findings: Iterable[Finding], options: RenderOptions = DEFAULT_OPTIONS, /) -> str:
    """The findings as a SARIF log, indented by two spaces, ending in a newline."""
    from checker.rules import ALL_RULES  # their documentation; imported only when a log is written

    return dumps(sarif_log(findings, ALL_RULES))


def dumps(log: dict[str, object]) -> str:
    """A SARIF log as text: keys sorted, indented by two spaces, ASCII only, ending in a newline."""
    return json.dumps(log, indent=2, sort_keys=True) + "\n"


def sarif_log(findings: Iterable[Finding], rules: Iterable[type[Rule]]) -> dict[str, object]:
    """The SARIF log as JSON-ready data, describing ``rules`` (in code order)."""
    described = sorted(rules, key=lambda rule: rule.code)
    index = {rule.code: i for i, rule in enumerate(described)}
    run = {
        "tool": {
            "driver": {
                "name": "aigcheck",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": docs.README_URL,
                "rules": [rule_descriptor(rule) for rule in described],
            }
        },
        # Finding columns count code points (libcst's), not UTF-16 units (SARIF's default).
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {
            SRCROOT: {"description": {"text": "The directory aigcheck ran in; relative paths are resolved from it."}}
        },
        "results": [result(finding, index.get(finding.code)) for finding in ordered(findings)],
    }
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def rule_descriptor(rule: type[Rule]) -> dict[str, object]:
    """A ``reportingDescriptor``: the rule's names, documentation and default level."""
    documentation = rule.documentation()
    described = {"text": docs.plain_text(documentation), "markdown": documentation}
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": described,
        "help": described,
        "helpUri": docs.help_uri(rule),
        "defaultConfiguration": {"level": LEVELS[rule.severity], "enabled": rule.default_enabled},
        "properties": {"tags": ["allow_in_graph", _FAMILIES.get(rule.code[3:4], "other")]},
    }


def result(finding: Finding, rule_index: int | None) -> dict[str, object]:
    """A ``result``; ``rule_index`` is None for a code that is not an implemented rule."""
    out: dict[str, object] = {
        "ruleId": finding.code,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": physical_location(finding)}],
    }
    if rule_index is not None:
        out["ruleIndex"] = rule_index
    if finding.fingerprint:
        out["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    return out


def physical_location(finding: Finding) -> dict[str, object]:
    location: dict[str, object] = {"artifactLocation": artifact_location(finding.path)}
    # SARIF lines and columns are 1-based and the end column is exclusive, as in Finding.
    if finding.line >= 1:
        region: dict[str, int] = {"startLine": finding.line}
        if finding.column >= 1:
            region["startColumn"] = finding.column
        if finding.end_line >= finding.line:
            region["endLine"] = finding.end_line
            if finding.column >= 1 and finding.end_column >= 1:
                region["endColumn"] = finding.end_column
        location["region"] = region
    return location


def artifact_location(path: str) -> dict[str, str]:
    """A path as a URI: relative POSIX under ``%SRCROOT%``, or an absolute ``file:`` URI."""
    # Backslashes are taken as separators, as the fingerprints do: paths shown on Windows.
    posix = path.replace("\\", "/")
    windows = PureWindowsPath(path)
    if windows.drive and windows.root:
        if posix.startswith("//"):  # \\server\share\x.py -> file://server/share/x.py
            return {"uri": "file:" + _quote(posix)}
        return {"uri": "file:///" + windows.drive + _quote(posix[len(windows.drive) :])}
    if posix.startswith("/"):
        return {"uri": "file://" + _quote(posix)}
    while posix.startswith("./"):
        posix = posix[2:]
    return {"uri": _quote(posix), "uriBaseId": SRCROOT}


def _quote(path: str) -> str:
    # Undecodable file names (surrogate escapes) become the percent-encoded bytes they came
    # from; ':' is encoded so that 'a:b.py' cannot be read as a URI scheme.
    return urllib.parse.quote(path.encode("utf-8", "surrogateescape"), safe="/")
