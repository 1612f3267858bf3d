"""The front door: check Python source, or files on disk, and get findings back.

The command line, the language server to come, tests and benchmarks check code through
these functions; what lies below them (``checker/passes``, ``checker/index``, ...) may
move without notice. Nothing here imports or runs the checked code, and importing this
module imports neither libcst nor the rules (a run the cache answers needs neither).

    >>> from checker.api import check_source
    >>> source = "import torch\\nW = torch.ones(3)\\n@torch.compiler.allow_in_graph\\ndef f(x):\\n    return x * W\\n"
    >>> [(finding.line, finding.code) for finding in check_source(source).findings]
    [(5, 'AIG301')]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from checker.configuration.options import RunOptions
from checker.configuration.selection import Selection
from checker.configuration.settings import Settings, settings
from checker.passes import paths as _paths
from checker.passes.engine import FileReport, check_path
from checker.passes.engine import check_source as _check_bytes
from checker.passes.paths import CacheChoice, PathsReport
from checker.passes.session import CheckedFile
from checker.reading.environment import reading_imports
from checker.reading.exhaustive import parsing_everything

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from checker.rules import Rule

__all__ = [
    "CheckedFile",
    "Choices",
    "FileReport",
    "PathsReport",
    "Settings",
    "check_file",
    "check_paths",
    "configure",
    "check_source",
    "default_rules",
]


def default_rules() -> list[Rule]:
    """The rules a run without configuration enables (``aigcheck`` with no ``--select``)."""
    from checker.rules import ALL_RULES

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


class Choices(TypedDict, total=False):
    """The keywords of :func:`configure`, which :func:`check_paths` passes on."""

    select: Sequence[str] | None
    extend_select: Sequence[str]
    ignore: Sequence[str]
    rules: Sequence[Rule] | None
    doc_strict: bool
    config: str | os.PathLike[str] | None
    isolated: bool
    exclude: Sequence[str]
    python_environment: str | os.PathLike[str] | None
    installed_packages: bool | None


def configure(
    paths: Sequence[str | os.PathLike[str]] = (".",),
    *,
    select: Sequence[str] | None = None,
    extend_select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    rules: Sequence[Rule] | None = None,
    doc_strict: bool = False,
    config: str | os.PathLike[str] | None = None,
    isolated: bool = False,
    exclude: Sequence[str] = (),
    python_environment: str | os.PathLike[str] | None = None,
    installed_packages: bool | None = None,
) -> Settings:
    """What a run over ``paths`` does, built once: the rules, ``select``/``extend_select``/
    ``ignore`` (codes, names or prefixes, over the configuration's) or exactly ``rules``
    (registered rules only: each file is checked by fresh instances of their classes); the
    configuration, the nearest ``[tool.aigcheck]``, the file ``config``, or none
    (``isolated``); ``exclude``: name patterns skipped while walking, as ``--exclude``;
    ``python_environment``: where installed packages are read from, as ``--python-environment``
    (else the configuration's, ``$VIRTUAL_ENV``, ``.venv``); ``installed_packages``: False
    as ``--no-installed-packages``."""
    options = RunOptions(
        paths=tuple(os.fspath(path) for path in paths),
        select=tuple(select) if select is not None else None,
        extend_select=tuple(extend_select),
        ignore=tuple(ignore),
        doc_strict=doc_strict or None,
        config=os.fspath(config) if config is not None else None,
        isolated=isolated,
        exclude=tuple(exclude),
        python_environment=os.fspath(python_environment) if python_environment is not None else None,
        installed_packages=installed_packages,
    )
    if rules is None:
        return settings(options)
    from checker.rules import RULES_BY_CODE

    strangers = [type(rule).__name__ for rule in rules if RULES_BY_CODE.get(rule.code) is not type(rule)]
    if strangers:
        raise ValueError(f"{', '.join(strangers)} is not a registered rule; check_source runs any rule")
    return settings(options, Selection(tuple(sorted({rule.code for rule in rules}))))


def check_paths(
    paths: Sequence[str | os.PathLike[str]] = (".",),
    settings: Settings | None = None,
    *,
    jobs: int | None = None,
    cache: CacheChoice = False,
    fix: bool = False,
    unused_noqa: bool = False,
    contained: bool = True,
    progress: Callable[[int, int], None] | None = None,
    on_walked: Callable[[PathsReport], None] | None = None,
    exhaustive: bool = False,
    **choices: Unpack[Choices],
) -> PathsReport:
    """The reports of the files under ``paths`` (``-``: standard input), found and checked as
    ``aigcheck`` finds and checks them: files and folders walked with the default excludes,
    each file's project read for the registrations other files make of its defs, the
    files those registrations bring in checked too. Nothing is written but the cache.

    ``settings``: what the run does, from :func:`configure` (the command line builds them
    once, from its options); else ``choices``, the keywords of :func:`configure`
    (``select=["AIG3"]``, ``isolated=True``, ...). ``jobs``: worker processes (default: one
    per core); ``cache``: none, beside the configuration (True) or in a folder; ``fix``:
    fixed sources in the reports; ``unused_noqa``: suppressions that suppressed nothing
    too; ``contained``: parse in worker processes, so that a file that crashes the parser
    or overruns a budget costs only its own result (else every file is parsed in this
    process); ``progress(done, total)``: called as files are checked; ``on_walked(report)``:
    called before any file is checked, with what the walk found (``problems``,
    ``refused_cache``; no files yet). ``exhaustive``: every
    file parsed, no prefilter, veto or reverse-scan selection taken, and nothing answered from
    the cache (slow; the findings are those of a normal run, which tests hold it to).
    """
    if settings is None:
        settings = configure(paths, **choices)
    elif choices:
        raise TypeError(f"check_paths: settings already say what {', '.join(choices)} would; pass one or the other")
    with (
        parsing_everything() if exhaustive else nullcontext(),
        reading_imports(settings.import_roots([os.fspath(path) for path in paths])),
    ):
        return _paths.check_paths(
            [os.fspath(path) for path in paths],
            settings,
            jobs=jobs,
            cache=False if exhaustive else cache,
            fix=fix,
            unused_noqa=unused_noqa,
            contained=contained,
            progress=progress,
            on_walked=on_walked,
        )
