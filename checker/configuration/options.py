"""What one ``aigcheck`` run was asked to do: the command line, as a frozen value.

:mod:`checker.command.cli` builds it from the parsed arguments; nothing below the command line
sees argparse.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunOptions:
    """The options of one run; ``None`` where an option was not given (the configuration
    file, or the default, decides)."""

    paths: tuple[str, ...] = ()
    # what to check
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    doc_strict: bool | None = None
    config: str | None = None
    isolated: bool = False
    exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    stdin_filename: str | None = None
    # where imports lead
    python_environment: str | None = None
    installed_packages: bool | None = None
    # what to report, and the exit status
    output_format: str | None = None
    fail_on: str | None = None
    exit_zero: bool = False
    show_source: bool | None = None
    statistics: bool = False
    report_unused_noqa: bool = False
    quiet: bool = False
    # fixes and baselines
    fix: bool = False
    diff: bool = False
    baseline: str | None = None
    write_baseline: str | None = None
    # speed
    jobs: int | None = None
    no_cache: bool = False
    cache_dir: str | None = None

    @property
    def fixing(self) -> bool:
        """Whether fixes are computed: to write them (``--fix``) or show them (``--diff``)."""
        return self.fix or self.diff
