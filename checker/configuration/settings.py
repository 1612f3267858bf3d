"""What one run does: the configuration file merged with the options, and what that
says of each file (excluded after discovery after all; the codes that apply to it)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from checker.configuration.config import Config, discover_config, load_config
from checker.configuration.options import RunOptions
from checker.configuration.selection import Layer, Selection, resolve_selection
from checker.reading.discovery import DEFAULT_EXCLUDES, DiscoveryProblem, Source, exclude_patterns
from checker.reading.globs import PatternSet
from checker.spec.findings import Severity

#: Findings at or above this severity make the exit status 1, unless ``--fail-on`` says otherwise.
FAIL_ON = Severity.WARNING


@dataclass(frozen=True)
class Settings:
    """The configuration file merged with the options: what one run does."""

    config: Config
    selection: Selection
    output_format: str
    fail_on: Severity


def settings(args: RunOptions, paths: Sequence[str]) -> Settings:
    """The options over the configuration; :class:`ConfigError` or :class:`SelectionError` if unusable."""
    if args.isolated:
        config = Config()
    elif args.config is not None:
        config = load_config(Path(args.config))
    else:
        config = discover_config(paths, args.stdin_filename)
    layers = [
        Layer(config.select, config.extend_select, config.ignore, origin=f"{config.shown}: [tool.aigcheck] "),
        Layer(args.select, args.extend_select, args.ignore),
    ]
    selection = resolve_selection(layers, doc_strict=bool(args.doc_strict or config.doc_strict))
    fail_on = Severity(args.fail_on) if args.fail_on is not None else config.fail_on or FAIL_ON
    return Settings(config, selection, args.output_format or config.output_format or "text", fail_on)


def excluded(source: Source, args: RunOptions, config: Config) -> bool:
    """Whether a file from discovery is excluded after all.

    Discovery applied the name patterns to what it walked; the configuration's
    anchored patterns (relative to its directory) are applied here. A file named
    explicitly is excluded only with ``--force-exclude``, by any pattern or default.
    """
    path = str(source.path)
    if not source.explicit:
        return config.excludes(path)
    if not args.force_exclude:
        return False
    shown = source.display.replace(os.sep, "/")
    names = [part for part in shown.split("/") if part not in ("", ".", "..")]
    return (
        config.excludes(path)
        or any(name in DEFAULT_EXCLUDES for name in names)
        or any(
            patterns.matches(candidate)
            for patterns in (config.name_patterns, _command_line_patterns(args.exclude))
            for candidate in (*names, shown)
        )
    )


@lru_cache(maxsize=4)
def _command_line_patterns(exclude: tuple[str, ...]) -> PatternSet:
    """The ``--exclude`` patterns, compiled once a run (as discovery reads them)."""
    return exclude_patterns(exclude)


def codes_for(source: Source, args: RunOptions, run_settings: Settings) -> tuple[str, ...]:
    """The codes of the selected rules less those ``per-file-ignores`` turns off for this file."""
    codes = run_settings.selection.codes
    named = source.path if source.path is not None else args.stdin_filename
    if named is None:
        return codes
    ignored = run_settings.config.ignored_codes(named)
    return tuple(code for code in codes if code not in ignored)


def useful_workers(requested: int | None, cores: int, items: Sequence[Source | DiscoveryProblem]) -> int:
    """How many worker processes to start: ``--jobs`` (default: one per usable core), but
    never more than the usable ``cores``, nor than the files to check, since each worker
    costs a process start and an import of libcst (``--jobs 100000`` took minutes).

    A file named explicitly (or ``-``) sends the run searching its project for other
    files to check, so with one the file count is no bound.
    """
    workers = min(requested or cores, cores)
    sources = [item for item in items if isinstance(item, Source)]
    if any(source.explicit for source in sources):
        return workers
    return max(1, min(workers, len(sources)))
