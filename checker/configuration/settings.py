"""What one run does: the configuration file merged with the options and the selection,
built once, and what that says of each file (excluded after discovery after all; the
codes that apply to it) and of the report (how it is rendered).

:func:`settings` is the one place that reads :class:`~checker.configuration.options.RunOptions`;
below it, a run's checking is handed the :class:`Settings` only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from checker.configuration.config import Config, discover_config, load_config
from checker.configuration.options import RunOptions
from checker.configuration.selection import Layer, Selection, resolve_selection
from checker.output.report import Rendering
from checker.reading.discovery import DEFAULT_EXCLUDES, STDIN, Source, exclude_patterns
from checker.reading.environment import ImportRoots, find_environment, installed_folders
from checker.reading.globs import PatternSet
from checker.spec.findings import Severity

#: Findings at or above this severity make the exit status 1, unless ``--fail-on`` says otherwise.
FAIL_ON = Severity.WARNING


@dataclass(frozen=True)
class Settings:
    """The configuration file merged with the options: what one run does, and what that
    says of each of its files."""

    config: Config = field(default_factory=Config)
    selection: Selection = field(default_factory=lambda: resolve_selection([]))
    fail_on: Severity = FAIL_ON
    rendering: Rendering = Rendering()
    #: The ``--exclude`` patterns, added to the configuration's.
    exclude: tuple[str, ...] = ()
    #: Excludes apply to files named explicitly too.
    force_exclude: bool = False
    #: The name of the source read from standard input, for ``per-file-ignores``.
    stdin_filename: str | None = None
    #: Where installed packages are read from (:func:`checker.reading.environment.find_environment`),
    #: and whether they are at all (``--no-installed-packages``, ``installed-packages = false``).
    environment: Path | None = None
    installed_packages: bool = True

    def import_roots(self, paths: Sequence[str]) -> ImportRoots:
        """What the imports of a run over ``paths`` may reach (see :mod:`checker.reading.environment`)."""
        installed = installed_folders(self.environment) if self.installed_packages and self.environment else ()
        checked = tuple(Path(os.path.realpath(path)) for path in paths if path != STDIN)
        return ImportRoots(installed, checked, self.installed_packages)

    def name_excludes(self) -> list[str]:
        """The name patterns discovery skips while walking: the configuration's, then the command line's."""
        return [*self.config.name_excludes(), *self.exclude]

    def excluded(self, source: Source) -> bool:
        """Whether a file from discovery is excluded after all.

        Discovery applied the name patterns to what it walked; the configuration's
        anchored patterns (relative to its directory) are applied here. A file named
        explicitly is excluded only with ``--force-exclude``, by any pattern or default.
        """
        path = str(source.path)
        config = self.config
        if not source.explicit:
            return config.excludes(path)
        if not self.force_exclude:
            return False
        shown = source.display.replace(os.sep, "/")
        names = [part for part in shown.split("/") if part not in ("", ".", "..")]
        return (
            config.excludes(path)
            or any(name in DEFAULT_EXCLUDES for name in names)
            or any(
                patterns.matches(candidate)
                for patterns in (config.name_patterns, self._command_line_patterns)
                for candidate in (*names, shown)
            )
        )

    @cached_property
    def _command_line_patterns(self) -> PatternSet:
        """The ``--exclude`` patterns, compiled once a run (as discovery reads them)."""
        return exclude_patterns(self.exclude)

    def codes_for(self, source: Source) -> tuple[str, ...]:
        """The codes of the selected rules less those ``per-file-ignores`` turns off for this file."""
        codes = self.selection.codes
        named = source.path if source.path is not None else self.stdin_filename
        if named is None:
            return codes
        ignored = self.config.ignored_codes(named)
        return tuple(code for code in codes if code not in ignored)

    @cached_property
    def cache_digest(self) -> str:
        """A digest of the settings of ``[tool.aigcheck]`` that can change a file's result
        (not where the file is, how findings are printed or which severity fails); the
        command line's selection is in each entry's key as the file's codes."""
        config = self.config
        chosen = [
            config.select,
            config.extend_select,
            config.ignore,
            sorted((entry.pattern, sorted(entry.codes)) for entry in config.per_file_ignores),
            config.exclude,
            config.doc_strict,
            self.installed_packages,
            str(self.environment) if self.installed_packages and self.environment else None,
        ]
        return hashlib.sha256(json.dumps(chosen).encode("utf-8", "surrogatepass")).hexdigest()


def settings(args: RunOptions, selection: Selection | None = None) -> Settings:
    """The options over the configuration, as one :class:`Settings`; ``selection``: the
    rules chosen already (instead of by the options and the configuration).
    :class:`ConfigError` or :class:`SelectionError` if unusable."""
    paths = list(args.paths) or ["."]
    if args.isolated:
        config = Config()
    elif args.config is not None:
        config = load_config(Path(args.config))
    else:
        config = discover_config(paths, args.stdin_filename)
    if selection is None:
        layers = [
            Layer(config.select, config.extend_select, config.ignore, origin=f"{config.shown}: [tool.aigcheck] "),
            Layer(args.select, args.extend_select, args.ignore),
        ]
        selection = resolve_selection(layers, doc_strict=bool(args.doc_strict or config.doc_strict))
    fail_on = Severity(args.fail_on) if args.fail_on is not None else config.fail_on or FAIL_ON
    rendering = Rendering(
        output_format=args.output_format or config.output_format or "text",
        show_source=args.show_source,
        statistics=args.statistics,
        unused_noqa=args.report_unused_noqa,
        quiet=args.quiet,
    )
    installed = args.installed_packages if args.installed_packages is not None else config.installed_packages
    named = Path(args.python_environment) if args.python_environment is not None else config.python_environment
    environment = find_environment(named, config.root) if installed is not False else None
    return Settings(
        config,
        selection,
        fail_on,
        rendering,
        args.exclude,
        args.force_exclude,
        args.stdin_filename,
        environment.absolute() if environment is not None else None,
        installed is not False,
    )
