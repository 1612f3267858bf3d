"""The engine: one file in, findings out.

It reads bytes, applies the text pre-filter, decodes (PEP 263), parses once with
libcst, builds the module's facts once (the one pipeline the project index parses its
modules by too: :mod:`checker.index.pipeline`) and runs every selected rule over them. Any
failure to read or parse becomes an AIG900 finding and the run goes on; a crash of
the checker itself is returned as ``internal_error`` so the caller can say so and
exit 2 without losing the other files' findings.

What the file tells about the rest of the project (registrar aliases it exports,
registrations it hands to other files, the files it depends on) comes back beside the
report, as :class:`~checker.spec.links.Links`, for the session that runs the passes across
modules (:mod:`checker.passes.session`). Other modules are read through a project index
(:class:`checker.index.project.Project`), given by the caller or made for the one file.

libcst, the analysis and the rules are imported on the first parse, not with this
module: a run answered from the cache (or by the pre-filter) needs only
:class:`FileReport`, and importing them would make such a run nearly twice as long.
"""

from __future__ import annotations

import hashlib
import traceback
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from checker.output.fingerprints import fingerprinted
from checker.output.noqa import Hit, NoqaIndex, UnusedNoqa, UsedElsewhere
from checker.reading.environment import installed_package, reported_at_registrations
from checker.reading.mentions import may_register
from checker.reading.source import (
    API_ONLY,
    MAX_FILE_BYTES,
    Prefilter,
    Unanalysable,
    decode,
    read_candidate,
    source_encoding,
    split_lines,
    too_large,
)
from checker.spec.catalog import PARSE_ERROR
from checker.spec.findings import Finding
from checker.spec.links import Elsewhere, Links, Place

if TYPE_CHECKING:
    import libcst as cst

    from checker.index.project import Project
    from checker.passes.installed_findings import Relocation
    from checker.rules import Rule
    from checker.rules.base import Fix


def new_index(registered_names: Collection[str] = ()) -> Project:
    """A project index of its own, for a caller that keeps none; ``registered_names``:
    the functions the project registers, found by a text scan (see ``Project``)."""
    from checker.index.project import Project

    return Project(frozenset(registered_names))


def import_analysis() -> None:
    """Import now what parsing needs (libcst, the analysis, the rules), not on the first parse."""
    import checker.index.project
    import checker.output.fixes
    import checker.reading.positions
    import checker.rules  # noqa: F401 - imports every rule, and the facts they use


@dataclass(frozen=True)
class FileReport:
    """What checking one file produced."""

    path: str
    findings: tuple[Finding, ...] = ()
    parsed: bool = False
    internal_error: str | None = None
    suppressed: int = field(default=0, compare=False)
    #: With ``fix=True``: the source with every fix applied (None when nothing changed),
    #: the encoding to write it back in, and how many findings the fixes resolved.
    fixed_source: str | None = None
    encoding: str = "utf-8"
    fixed: int = 0
    #: With ``fixed_source``: the SHA-256 (hex) of the bytes it was computed from; the fix
    #: is written only over those very bytes (see :mod:`checker.output.atomic`).
    fixed_from: str = ""
    #: With ``unused_noqa=True``: the suppression comments that suppressed nothing.
    unused_noqa: tuple[UnusedNoqa, ...] = ()
    #: The suppressions of other files that findings made there used (an installed package's
    #: file's, at the registering lines); the run takes them off those files' ``unused_noqa``.
    used_elsewhere: tuple[UsedElsewhere, ...] = ()


@dataclass(frozen=True)
class LinkedReport:
    """The report of one file, linked to the rest of the project: the aliases it exports,
    the registrations it hands to other files, the files its result depends on. The
    engine gives it to the session (:mod:`checker.passes.session`), which reads the links
    for its passes across modules and hands on only the report."""

    report: FileReport
    links: Links = Links()


def check_path(
    path: Path,
    rules: Sequence[Rule],
    display_path: str | None = None,
    *,
    fix: bool = False,
    unused_noqa: bool = False,
    index: Project | None = None,
) -> FileReport:
    """The report of :func:`analyse_path`."""
    return analyse_path(path, rules, display_path, fix=fix, unused_noqa=unused_noqa, index=index).report


def analyse_path(
    path: Path,
    rules: Sequence[Rule],
    display_path: str | None = None,
    *,
    fix: bool = False,
    unused_noqa: bool = False,
    index: Project | None = None,
) -> LinkedReport:
    """Check one file on disk; unreadable files become AIG900."""
    shown = display_path or str(path)
    candidate = read_candidate(path)
    if candidate is None:
        return LinkedReport(FileReport(shown))
    if isinstance(candidate, Unanalysable):
        return LinkedReport(unanalysable(shown, _codes(rules), candidate))
    return analyse_source(candidate, shown, rules, fix=fix, unused_noqa=unused_noqa, index=index)


def check_source(
    data: bytes,
    path: str,
    rules: Sequence[Rule],
    *,
    fix: bool = False,
    unused_noqa: bool = False,
    prefilter: Prefilter = API_ONLY,
    elsewhere: Sequence[Elsewhere] = (),
    index: Project | None = None,
) -> FileReport:
    """The report of :func:`analyse_source`."""
    return analyse_source(
        data, path, rules, fix=fix, unused_noqa=unused_noqa, prefilter=prefilter, elsewhere=elsewhere, index=index
    ).report


def analyse_source(
    data: bytes,
    path: str,
    rules: Sequence[Rule],
    *,
    fix: bool = False,
    unused_noqa: bool = False,
    prefilter: Prefilter = API_ONLY,
    elsewhere: Sequence[Elsewhere] = (),
    index: Project | None = None,
) -> LinkedReport:
    """Check the bytes of one Python file, shown as ``path`` in findings.

    With ``fix``, findings whose rule offers a fix are fixed instead of reported, and
    the fixed source comes back in ``fixed_source``. Nothing is written here. With
    ``unused_noqa``, the suppression comments that suppressed nothing come back too.
    ``elsewhere``: registrations of this file's defs and classes made by other files;
    ``index``: the project's other modules (one is made for this file when None).
    """
    if not prefilter.matches(data):
        return LinkedReport(FileReport(path))
    if len(data) > MAX_FILE_BYTES:
        return LinkedReport(unanalysable(path, _codes(rules), too_large(len(data))))
    decoded = decode(data)
    if isinstance(decoded, Unanalysable):
        return LinkedReport(unanalysable(path, _codes(rules), decoded))
    text, lossy = decoded.text, decoded.lossy
    try:
        digest = hashlib.sha256(data).hexdigest()
        modules = index if index is not None else new_index()
        fixing = fix and not lossy  # fixed code of replaced bytes would not be the file's
        outcome = _check_text(text, path, rules, modules, fixing, unused_noqa, digest, prefilter, tuple(elsewhere))
    except RecursionError:
        return LinkedReport(unanalysable(path, _codes(rules), Unanalysable("the file is nested too deeply to analyse")))
    except MemoryError:
        raise  # the process's budget, not a bug: its caller knows the budget and says so
    except Exception:  # noqa: BLE001 - a checker bug must not stop the run
        return LinkedReport(FileReport(path, internal_error=traceback.format_exc()))
    if outcome.report.fixed_source is None:
        return outcome
    return replace(outcome, report=replace(outcome.report, encoding=source_encoding(data), fixed_from=digest))


def _check_text(
    text: str,
    path: str,
    rules: Sequence[Rule],
    modules: Project,
    fix: bool = False,
    unused_noqa: bool = False,
    digest: str = "",
    prefilter: Prefilter = API_ONLY,
    elsewhere: tuple[Elsewhere, ...] = (),
) -> LinkedReport:
    from checker.index.pipeline import parse  # imported lazily: most files never get here
    from checker.output.fixes import apply_fixes
    from checker.reading.positions import locate

    # Parsed already as another file's import? (Not reused with registrations made elsewhere.)
    # (Nor when fixing: the fixed code must be of the very text parsed here.)
    modules.judge_calls_of(prefilter.imported)  # (the registered names a file is let through for importing)
    reused = modules.parsed(path, digest) if digest and not (elsewhere or fix) else None
    # Unless the API is only talked about (comments, docstrings, messages), as CPython's tree shows.
    matters = None if unused_noqa else partial(may_register, text=text, prefilter=prefilter)
    parsed = parse(text, path, modules, matters=matters, elsewhere=elsewhere, reused=reused)
    if parsed is None:
        return LinkedReport(FileReport(path))
    if isinstance(parsed, Unanalysable):
        return LinkedReport(unanalysable(path, _codes(rules), parsed))
    facts, prepared = parsed.facts, parsed.prepared
    if reused is None and not elsewhere:
        modules.remember(Path(path), facts, digest)  # a sibling importing from this file reuses the parse
    module = facts.module
    raw = [(rule, report) for rule in rules for report in rule.check(facts)]
    exports = facts.registrars.exported()
    handing = facts.handoffs
    # After the rules and the handoffs: both may have consulted other modules.
    dependencies = tuple(sorted(modules.dependencies(path).items()))
    registered = facts.registered_functions
    if not raw and not handing and not unused_noqa:
        return LinkedReport(FileReport(path, parsed=True), Links(exports, dependencies, registered=registered))
    sites = [handoff.registration.site for handoff in handing]
    relocation = _relocation(path, module, elsewhere)
    sites += relocation.nodes() if relocation is not None else []
    spans = locate(module, [node for _, report in raw for node in (report.node, *report.cited)] + sites)
    if relocation is not None:  # an installed package's file: its findings are made at the registrations
        relocated = tuple(relocation.findings(raw, spans))
        dependencies = tuple(sorted({*dependencies, *relocation.dependencies()}))
        return LinkedReport(
            FileReport(path, relocated, parsed=True, used_elsewhere=relocation.used()),
            Links(exports, dependencies, registered=registered),
        )
    handoffs = tuple(
        (h.path, Elsewhere(h.name, h.registration.registrar, Place(path, spans[h.registration.site][0][0])))
        for h in handing
    )
    noqa = NoqaIndex.from_text(text)
    findings: set[Finding] = set()
    fixes: list[Fix] = []
    suppressed = 0
    used: set[Hit] = set()
    fixing = fix and prepared.fixable
    for rule, report in raw:
        (line, column), (end_line, end_column) = spans[report.node]
        finding = Finding(
            path,
            line,
            prepared.column(line, column),
            end_line,
            prepared.column(end_line, end_column),
            rule.code,
            rule.name,
            rule.severity,
            report.render(lambda node: spans[node][0][0]),
        )
        hits = noqa.hits(line, rule.code, rule.name)
        if hits:
            suppressed += 1
            used.update(hits)
        elif fixing and report.fix is not None:
            fixes.append(report.fix)
        else:
            findings.add(finding)
    ordered = sorted(findings, key=Finding.sort_key)
    fixed_source = prepared.restore(apply_fixes(module, fixes)) if fixes else None
    file_report = FileReport(
        path,
        tuple(fingerprinted(ordered, split_lines(text))),
        parsed=True,
        suppressed=suppressed,
        fixed_source=fixed_source if fixed_source != text else None,
        fixed=len(fixes),
        unused_noqa=tuple(noqa.unused(path, used, [(rule.code, rule.name) for rule in rules])) if unused_noqa else (),
    )
    return LinkedReport(file_report, Links(exports, dependencies, handoffs, registered))


def _relocation(path: str, module: cst.Module, elsewhere: tuple[Elsewhere, ...]) -> Relocation | None:
    """For a file of an installed package outside the checked paths, checked with registrations
    made in the checked files: how its findings move to those registrations (None otherwise)."""
    from checker.passes.installed_findings import Relocation, definitions

    package = installed_package(Path(path)) if elsewhere and reported_at_registrations(Path(path)) else None
    return Relocation(path, package, elsewhere, definitions(module)) if package is not None else None


def _codes(rules: Iterable[Rule]) -> set[str]:
    return {rule.code for rule in rules}


def unanalysable(path: str, codes: Collection[str], why: Unanalysable) -> FileReport:
    """The report of a file that cannot be analysed: AIG900 when it is among the selected ``codes``."""
    if PARSE_ERROR.code not in codes:
        return FileReport(path)
    code, name, severity = PARSE_ERROR.code, PARSE_ERROR.name, PARSE_ERROR.severity
    # Imported here: the message types cost the main process 50 ms at start, which a run
    # whose files all parse (or come from the cache) never needs there.
    from checker.spec.messages import NotAnalysed

    message = NotAnalysed(why.reason).text()
    finding = Finding(path, why.line, why.column, why.line, why.column, code, name, severity, message)
    return FileReport(path, tuple(fingerprinted([finding], [])))
