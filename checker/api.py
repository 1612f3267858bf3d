"""The front door: check Python source, or files on disk, and get findings back.

The command line, the language server to come, tests and benchmarks check code through
these functions; what lies below them (``checker/passes``, ``checker/index``, ...) may
move without notice. Nothing here imports or runs the checked code.

    >>> from checker.api import check_source
    >>> source = "import torch\\nW = torch.ones(3)\\n@torch.compiler.allow_in_graph\\ndef f(x):\\n    return x * W\\n"
    >>> [(finding.line, finding.code) for finding in check_source(source).findings]
    [(5, 'AIG301')]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from checker.passes.engine import FileReport, check_path
from checker.passes.engine import check_source as _check_bytes
from checker.rules import ALL_RULES, Rule

__all__ = ["FileReport", "default_rules", "check_file", "check_source"]


def default_rules() -> list[Rule]:
    """The rules a run without configuration enables (``aigcheck`` with no ``--select``)."""
    return [rule() for rule in ALL_RULES if rule.default_enabled]


def check_source(
    source: str | bytes,
    path: str = "<string>",
    *,
    rules: Sequence[Rule] | None = None,
    fix: bool = False,
    unused_noqa: bool = False,
) -> FileReport:
    """The findings of one module's source, shown as ``path``; no other file is read.

    ``rules``: the rules to run (those enabled by default when None). With ``fix``, findings that have
    a fix are fixed instead of reported and the fixed text is ``fixed_source``; with
    ``unused_noqa``, the suppression comments that suppressed nothing come back too.
    """
    data = source.encode("utf-8") if isinstance(source, str) else source
    return _check_bytes(data, path, default_rules() if rules is None else rules, fix=fix, unused_noqa=unused_noqa)


def check_file(
    path: str | Path,
    *,
    rules: Sequence[Rule] | None = None,
    display_path: str | None = None,
    fix: bool = False,
    unused_noqa: bool = False,
) -> FileReport:
    """The findings of one file on disk, read as its project sees it: names it imports
    from other modules of its package are followed. A file that cannot be read or
    analysed gives one AIG900."""
    chosen = default_rules() if rules is None else rules
    return check_path(Path(path), chosen, display_path, fix=fix, unused_noqa=unused_noqa)
