"""Configuration: the ``[tool.aigcheck]`` table of ``pyproject.toml``.

The file used is the nearest ``pyproject.toml`` that has a ``[tool.aigcheck]`` table,
searched from the directory the run is about upwards: the common parent of the
checked paths (a file counts as its directory; standard input as the directory of
``--stdin-filename``, else the working directory). A ``pyproject.toml`` without the
table is passed over, so a sub-package's own ``pyproject.toml`` does not hide the
repository's configuration (ruff does the same). ``--config FILE`` names the file
instead; ``--isolated`` uses none.

Every key, type and code is checked when the file is read: a mistake stops the run
with a message that names the file, the key and what was expected, instead of being
silently ignored. A file that is not a regular file (``--config /dev/zero``, a FIFO),
is larger than :data:`MAX_CONFIG_BYTES` or nests too deeply to parse is refused the
same way, before it can block the run or exhaust its memory or stack. The command
line overrides the file (see :mod:`checker.command.cli`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import cached_property
from pathlib import Path

from checker.configuration.selection import Catalogue, SelectionError
from checker.output.reporters import REPORTERS
from checker.reading.discovery import exclude_patterns, special_file
from checker.reading.globs import Dialect, PatternSet, glob_matches
from checker.spec.findings import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

FILE_NAME = "pyproject.toml"
TABLE = "[tool.aigcheck]"
#: A configuration file larger than this is refused unread (pyproject.toml files are a few KiB).
MAX_CONFIG_BYTES = 4 * 1024 * 1024

_RULES = 'a list of codes, rule names or code prefixes, such as ["AIG301", "captured-mutable-state", "AIG4"]'
#: Every key, with what it must hold (quoted in type errors).
KEYS: dict[str, str] = {
    "select": _RULES,
    "extend-select": _RULES,
    "ignore": _RULES,
    "per-file-ignores": 'a table from a glob pattern to a list of codes, rule names or code prefixes, such as {"tests/*" = ["AIG3"]}',
    "exclude": 'a list of glob patterns, such as ["generated", "tests/fixtures/*"]',
    "doc-strict": "true or false",
    "output-format": "a string, one of: " + ", ".join(sorted(REPORTERS)),
    "fail-on": "a string, one of: " + ", ".join(severity.value for severity in Severity),
    "python-environment": 'a string, the folder of a virtual environment (or a site-packages folder), such as ".venv"',
    "installed-packages": "true or false",
}

_TOML_TYPES = {
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    list: "an array",
    dict: "a table",
}
_DECODE_POSITION = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")


class ConfigError(ValueError):
    """The configuration cannot be used (a usage error: exit status 2)."""


@dataclass(frozen=True)
class PerFileIgnore:
    """Codes ignored in the files whose path matches ``pattern``."""

    pattern: str
    codes: frozenset[str]


@dataclass(frozen=True)
class Config:
    """The settings of one ``[tool.aigcheck]`` table; the defaults when ``path`` is None.

    Rule tokens are kept as written (they were checked on loading) so that selection
    can apply them in order; ``per_file_ignores`` hold resolved codes.
    """

    path: Path | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[PerFileIgnore, ...] = ()
    exclude: tuple[str, ...] = ()
    doc_strict: bool = False
    output_format: str | None = None
    fail_on: Severity | None = None
    #: The environment installed packages are read from (relative paths: to the file's folder).
    python_environment: Path | None = None
    #: Whether imports from installed packages are resolved (None: not said; they are).
    installed_packages: bool | None = None
    #: How messages name the file: relative to the working directory when inside it.
    shown: str = field(default=FILE_NAME, compare=False)

    @property
    def root(self) -> Path:
        """The directory that patterns are relative to: the configuration file's."""
        return self.path.parent if self.path is not None else Path.cwd()

    def ignored_codes(self, file: str) -> frozenset[str]:
        """The codes ``per-file-ignores`` turns off for ``file`` (a path as on disk)."""
        if not self.per_file_ignores:
            return frozenset()
        relative = self._relative(file)
        codes: set[str] = set()
        for entry in self.per_file_ignores:
            if matches(entry.pattern, relative):
                codes |= entry.codes
        return frozenset(codes)

    def anchored_excludes(self) -> tuple[str, ...]:
        """``exclude`` patterns with a ``/`` (other than a trailing one): matched against
        paths relative to :attr:`root`, like ``.gitignore`` lines."""
        return tuple(pattern for pattern in self.exclude if "/" in pattern.rstrip("/"))

    def name_excludes(self) -> tuple[str, ...]:
        """``exclude`` patterns without a ``/``: matched against any file or directory name."""
        return tuple(pattern for pattern in self.exclude if "/" not in pattern.rstrip("/"))

    def excludes(self, file: str) -> bool:
        """Whether an anchored ``exclude`` pattern matches ``file`` or a directory above it."""
        patterns = self.anchored_patterns
        if not patterns:
            return False
        relative = self._relative(file)
        if relative.startswith("../"):
            return False
        return patterns.matches(relative, or_a_parent=True)

    @cached_property
    def anchored_patterns(self) -> PatternSet:
        """:meth:`anchored_excludes`, compiled once, each read as :func:`matches` reads it
        anchored: a leading ``./`` and the slashes at either end dropped."""
        return PatternSet((pattern.strip("/").removeprefix("./") for pattern in self.anchored_excludes()), Dialect.GLOB)

    @cached_property
    def name_patterns(self) -> PatternSet:
        """:meth:`name_excludes`, compiled once, as discovery reads them (``fnmatch``)."""
        return exclude_patterns(self.name_excludes())

    def _relative(self, file: str) -> str:
        absolute = os.path.abspath(file)
        try:
            relative = os.path.relpath(absolute, self.root)
        except ValueError:  # another drive (Windows)
            relative = absolute
        return relative.replace(os.sep, "/")


def matches(pattern: str, path: str, *, anchored: bool = False, or_a_parent: bool = False) -> bool:
    """Whether a glob matches a ``/``-separated relative path, the way ruff's globs do.

    ``*`` also matches ``/``; ``**/`` matches any number of directories, none
    included (in time linear in the path, however many there are: :mod:`checker.reading.globs`).
    Unless ``anchored``, a pattern without a ``/`` also matches the file's own name, so
    ``"__init__.py"`` means that file in every directory. With ``or_a_parent``, a
    directory above the path may match instead.
    """
    pattern = pattern.removeprefix("./")
    if glob_matches(pattern, path, or_a_parent=or_a_parent):
        return True
    return not anchored and "/" not in pattern and glob_matches(pattern, path.rsplit("/", 1)[-1])


def search_start(paths: Sequence[str], stdin_filename: str | None, stdin: str = "-") -> Path:
    """The directory to search upwards from for the paths of one run."""
    directories = []
    for path in paths:
        if path == stdin:
            named = os.path.dirname(os.path.abspath(stdin_filename)) if stdin_filename else os.getcwd()
            directories.append(named)
        else:
            absolute = os.path.abspath(path)
            directories.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    try:
        return Path(os.path.commonpath(directories)) if directories else Path.cwd()
    except ValueError:  # paths on several drives (Windows)
        return Path.cwd()


def find_config(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.aigcheck]`` table, at or above ``start``."""
    for directory in [start, *start.parents]:
        candidate = directory / FILE_NAME
        if candidate.is_file() and _table(_read_toml(candidate), candidate) is not None:
            return candidate
    return None


def discover_config(paths: Sequence[str], stdin_filename: str | None) -> Config:
    """The configuration for a run over ``paths``: found by :func:`find_config`, or the defaults."""
    found = find_config(search_start(paths, stdin_filename))
    return load_config(found) if found is not None else Config()


def load_config(path: Path) -> Config:
    """The ``[tool.aigcheck]`` table of ``path``, checked; :class:`ConfigError` if it cannot be used."""
    table = _table(_read_toml(path), path)
    if table is None:
        raise ConfigError(f"{_shown(path)}: has no {TABLE} table")
    return parse_table(table, path)


def parse_table(table: Mapping[str, object], path: Path) -> Config:
    """Check the keys, types and codes of one ``[tool.aigcheck]`` table."""
    shown = _shown(path)
    where = f"{shown}: {TABLE}"
    for key in table:
        if key not in KEYS:
            close = get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where} unknown key '{key}'{hint}; valid keys: {', '.join(sorted(KEYS))}")
    catalogue = Catalogue.from_registry()
    rules = {
        key: _rule_tokens(table[key], key, where, catalogue)
        for key in ("select", "extend-select", "ignore")
        if key in table
    }
    if "select" in table and not rules["select"]:
        raise ConfigError(
            f"{where} select is empty; name at least one rule, or remove the key to run the default rules"
        )
    output_format = _choice(table, "output-format", where, sorted(REPORTERS))
    fail_on = _choice(table, "fail-on", where, [severity.value for severity in Severity])
    doc_strict = table.get("doc-strict", False)
    if not isinstance(doc_strict, bool):
        raise ConfigError(_type_error(where, "doc-strict", doc_strict))
    installed = table.get("installed-packages")
    if installed is not None and not isinstance(installed, bool):
        raise ConfigError(_type_error(where, "installed-packages", installed))
    environment = table.get("python-environment")
    if environment is not None and (not isinstance(environment, str) or not environment):
        raise ConfigError(_type_error(where, "python-environment", environment))
    return Config(
        path=path,
        select=rules.get("select"),
        extend_select=rules.get("extend-select", ()),
        ignore=rules.get("ignore", ()),
        per_file_ignores=_per_file_ignores(table.get("per-file-ignores", {}), where, catalogue),
        exclude=_strings(table.get("exclude", []), "exclude", where),
        doc_strict=doc_strict,
        output_format=output_format,
        fail_on=Severity(fail_on) if fail_on is not None else None,
        python_environment=path.parent / Path(environment).expanduser() if environment is not None else None,
        installed_packages=installed,
        shown=shown,
    )


def _read_toml(path: Path) -> dict[str, object]:
    try:
        text = _read_bounded(path).decode("utf-8")
        return tomllib.loads(text)
    except OSError as error:
        raise ConfigError(f"{_shown(path)}: cannot read the file: {error.strerror or type(error).__name__}") from None
    except RecursionError:
        raise ConfigError(
            f"{_shown(path)}: invalid TOML: arrays or inline tables are nested too deeply to read; "
            "flatten them, or pass --isolated to ignore the file"
        ) from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{_shown(path)}: invalid TOML: the file is not UTF-8 ({error.reason})") from None
    except tomllib.TOMLDecodeError as error:
        # The parser puts the position at the end of its message; move it to the front,
        # where editors and terminals look for "file:line:column".
        message = str(error)
        position = _DECODE_POSITION.search(message)
        if position is None:
            raise ConfigError(f"{_shown(path)}: invalid TOML: {message}") from None
        line, column = position.groups()
        if line is None:  # at the end of the document: its last line
            place = f"{text.count(chr(10)) + (0 if text.endswith(chr(10)) else 1)}"
            raise ConfigError(f"{_shown(path)}:{place}: invalid TOML: {message.strip()}") from None
        raise ConfigError(f"{_shown(path)}:{line}:{column}: invalid TOML: {message[: position.start()]}") from None


def _read_bounded(path: Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_CONFIG_BYTES`; :class:`ConfigError` otherwise.

    The kind is checked before opening (opening a FIFO blocks), and the open does not
    block either, in case the path changes in between; reading stops past the limit
    whatever size the file claims.
    """
    kind = special_file(str(path))
    if kind is not None:
        raise ConfigError(f"{_shown(path)}: not a regular file: {kind.value}; {_REMEDY}")
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(descriptor, "rb") as stream:
        kind = special_file(stream.fileno())
        if kind is not None:
            raise ConfigError(f"{_shown(path)}: not a regular file: {kind.value}; {_REMEDY}")
        data = stream.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{_shown(path)}: the file is larger than the {MAX_CONFIG_BYTES // (1024 * 1024)} MiB "
            f"a configuration may be; {_REMEDY}"
        )
    return data


#: What to do about a configuration file that cannot be read.
_REMEDY = f"name a {FILE_NAME} with a {TABLE} table with --config, or pass --isolated to use none"


def _table(document: Mapping[str, object], path: Path) -> Mapping[str, object] | None:
    tool = document.get("tool")
    if not isinstance(tool, dict) or "aigcheck" not in tool:
        return None
    table = tool["aigcheck"]
    if not isinstance(table, dict):
        raise ConfigError(f"{_shown(path)}: tool.aigcheck must be a table, not {_toml_type(table)}")
    return table


def _rule_tokens(value: object, key: str, where: str, catalogue: Catalogue) -> tuple[str, ...]:
    tokens = _strings(value, key, where)
    for token in tokens:
        # Each element is one token: "AIG301,AIG302" is reported rather than split,
        # so that the file reads the same way to every tool that parses it.
        try:
            catalogue.resolve(token, f"{where} {key}")
        except SelectionError as error:
            raise ConfigError(str(error)) from None
    return tokens


def _per_file_ignores(value: object, where: str, catalogue: Catalogue) -> tuple[PerFileIgnore, ...]:
    if not isinstance(value, dict):
        raise ConfigError(_type_error(where, "per-file-ignores", value))
    entries = []
    for pattern, tokens in value.items():
        key = f'per-file-ignores."{pattern}"'
        codes: set[str] = set()
        for token in _rule_tokens(tokens, key, where, catalogue):
            implemented, planned, off = catalogue.resolve(token, f"{where} {key}", include_off=True)
            codes |= implemented | planned | off
        entries.append(PerFileIgnore(pattern, frozenset(codes)))
    return tuple(entries)


def _strings(value: object, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        expected = _RULES if key.startswith("per-file-ignores.") else KEYS[key]
        raise ConfigError(_type_error(where, key, value, expected))
    return tuple(value)


def _choice(table: Mapping[str, object], key: str, where: str, choices: Sequence[str]) -> str | None:
    if key not in table:
        return None
    value = table[key]
    if not isinstance(value, str):
        raise ConfigError(_type_error(where, key, value))
    if value not in choices:
        raise ConfigError(f"{where} {key}: unknown value '{value}'; valid values: {', '.join(choices)}")
    return value


def _type_error(where: str, key: str, value: object, expected: str | None = None) -> str:
    if isinstance(value, list):
        wrong = next((item for item in value if not isinstance(item, str)), None)
        found = f"an array holding {_toml_type(wrong)}"
    else:
        found = _toml_type(value)
    return f"{where} {key} must be {expected or KEYS[key]}; found {found}"


def _toml_type(value: object) -> str:
    return next((name for kind, name in _TOML_TYPES.items() if type(value) is kind), "a date or time")


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it, else absolute."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:
        return absolute
    return absolute if relative.startswith("..") else relative
