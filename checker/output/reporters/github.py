"""The ``github`` format: GitHub Actions workflow commands that annotate the diff.

One line per finding, e.g.
``::error file=pkg/a.py,line=4,col=12,endLine=4,endColumn=17,title=AIG301 captured-tensor::...``.
Errors are ``::error``, warnings ``::warning`` and info ``::notice``. Values are escaped
as GitHub's toolkit (``@actions/core``) escapes them: ``%``, CR and LF in the message;
those and ``:`` and ``,`` in properties. GitHub has no escape for other control
characters, which the log viewer would act on (``\\x1b`` starts a colour), so they are
shown as Python writes them (``\\t``, ``\\x1b``), as are bidirectional overrides and the
undecodable bytes of a file name (``\\xff``). Nothing else is printed, so no summary.
"""

from __future__ import annotations

from collections.abc import Iterable

from checker.output.reporters.base import DEFAULT_OPTIONS, RenderOptions, escape_controls, ordered
from checker.spec.findings import Finding, Severity

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def render(findings: Iterable[Finding], options: RenderOptions = DEFAULT_OPTIONS, /) -> str:
    """One workflow command per finding, each ending in a newline (empty without findings)."""
    return "".join(command(finding) + "\n" for finding in ordered(findings))


def command(finding: Finding) -> str:
    """The workflow command that annotates ``finding``."""
    properties = [("file", _path(finding.path)), ("line", str(finding.line))]
    # GitHub rejects columns on an annotation that spans lines (toolkit: "cannot be
    # sent when startLine and endLine are different values").
    if finding.end_line == finding.line:
        properties.append(("col", str(finding.column)))
        properties += [("endLine", str(finding.end_line)), ("endColumn", str(finding.end_column))]
    else:
        properties.append(("endLine", str(finding.end_line)))
    properties.append(("title", f"{finding.code} {finding.name}"))
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{COMMANDS[finding.severity]} {rendered}::{escape_data(finding.message)}"


def escape_data(text: str) -> str:
    """A message as ``escapeData`` of ``@actions/core`` writes it, other control characters escaped."""
    return escape_controls(text, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value as ``escapeProperty`` of ``@actions/core`` writes it."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _path(path: str) -> str:
    # Annotations name files relative to the workspace, with '/' as on the runner's checkout.
    posix = path.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    return posix
