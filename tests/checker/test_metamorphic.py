"""Metamorphic tests: the checker gives the same findings for a program however it is spelt.

Every fixture (each module of fixtures/bad and fixtures/good, and each folder of them as
one project), every package of the field-idioms suite and every rule example that
registers a module-level def or class is laid out as a package ``pkg/``, checked,
rewritten by each meaning-preserving rewrite of :mod:`rewrites` (move a def to another
module, define it after its use, alias the import, re-export it through ``__init__.py``,
switch the registration form among decorator, call, rebinding, list and tuple, rename,
register it from another module by each import spelling, from a script beside the
package in a src layout, or through a helper of an installed package), and checked
again. The multiset of findings, each keyed by its code and the line of the
original program its line came from, must not change: a finding moves with the code it
is in, and messages (which cite lines and files) are not compared.

A rewrite that finds nothing it may change in a fixture is listed in
:data:`NOT_APPLICABLE` with the reason; a rule example it does not apply to is skipped
with the rewrite's own reason. The harness is tested too: the program as laid out gives
its markers, a rewrite that changes nothing (or only moves every line down) keeps every
finding, a rewrite that deletes a registration is caught, no rewrite drops or copies a
line of the original (each finding has one place to move to), and every rewritten program
runs like the original (imports, registrations, module namespaces) against stand-ins
for torch and the other libraries (:mod:`stand_ins`).

Failures here are findings of the checker that depend on spelling: each is a bug in the
checker, not in the test, unless the rewrite is shown to change the program.
"""

from __future__ import annotations

import io
import re
import tempfile
import tokenize
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import libcst as cst
import pytest
from rewrites import (
    PACKAGE,
    REWRITES,
    SPELLINGS,
    Inapplicable,
    Origin,
    Program,
    Project,
    Rewrite,
    Rewritten,
    drop_registration,
    identity,
    shift_lines,
)
from rewrites.program import installed, module_name
from stand_ins import Ran, run

from checker.api import check_paths
from checker.rules import ALL_RULES
from checker.spec.markers import expected

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


# -- what is rewritten -------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """A program to rewrite, and how it is checked."""

    name: str
    program: Program
    options: tuple[str, ...] = ()
    fixture: bool = True


def layout(files: Mapping[str, str]) -> Program:
    """The modules as the package ``pkg``, with an empty ``__init__.py``."""
    return Program.of({f"{PACKAGE}/__init__.py": "", **{f"{PACKAGE}/{name}": text for name, text in files.items()}})


def _source(path: Path) -> str:
    """The file's text as the interpreter decodes it: BOM, then a PEP 263 cookie, else UTF-8."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def _fixtures() -> list[Subject]:
    subjects = []
    for kind in ("bad", "good"):
        for path in sorted((FIXTURES / kind).iterdir()):
            if path.suffix == ".py":
                subjects.append(Subject(path.stem, layout({path.name: _source(path)})))
            elif path.is_dir():
                files = {p.name: _source(p) for p in sorted(path.glob("*.py"))}
                options = ("--doc-strict",) if path.name == "doc_strict" else ()
                subjects.append(Subject(path.name, layout(files), options))
    names = [subject.name for subject in subjects]
    assert len(names) == len(set(names)), f"two fixtures share a name: {names}"
    return subjects


FIELD_IDIOMS = FIXTURES.parent / "tests" / "field_idioms"


def _field_idioms() -> list[Subject]:
    """The packages of the field-idioms suite, each laid out as ``pkg`` (its own name in
    imports and dotted reads respelt so), checked as the suite checks them."""
    subjects = []
    for folder in sorted(path for path in FIELD_IDIOMS.iterdir() if (path / "__init__.py").is_file()):
        own = re.compile(rf"(?<![\w.:]){re.escape(folder.name)}(?=\.|\s+import\b|\s*$)", re.MULTILINE)
        files = {p.relative_to(folder).as_posix(): own.sub(PACKAGE, _source(p)) for p in sorted(folder.rglob("*.py"))}
        subjects.append(Subject(f"field/{folder.name}", layout(files)))
    return subjects


def _registers_a_def(program: Program) -> bool:
    try:
        project = Project(program)
    except cst.ParserSyntaxError:
        return False
    return any(project.registered(p) for p in project.modules())


def _examples() -> list[Subject]:
    """The rule examples (run as by test_rule_examples: the default rules and the rule itself)
    that register a module-level def or class: the others have nothing these rewrites move."""
    subjects = []
    for rule in ALL_RULES:
        options = () if rule.default_enabled else ("--extend-select", rule.code)
        for kind, examples in zip(("invalid", "valid"), rule.all_examples(), strict=True):
            for number, source in enumerate(examples, 1):
                program = layout({"example.py": source})
                if _registers_a_def(program):
                    subjects.append(Subject(f"{rule.code}-{kind}-{number}", program, options, fixture=False))
    return subjects


SUBJECTS = _fixtures() + _field_idioms() + _examples()
BY_NAME = {subject.name: subject for subject in SUBJECTS}

#: Fixtures a rewrite has nothing to change in, and why. A rewrite that applies to a
#: fixture listed here, or does not apply to one not listed, fails the test: no case is
#: skipped silently.
NOT_APPLICABLE: dict[tuple[str, str], str] = {
    **{
        (rewrite, "broken_syntax"): "the module does not parse (AIG900): there is no tree to rewrite"
        for rewrite in REWRITES
    },
    **{
        (rewrite, "factories"): "every registration is of a closure made in a function (AIG401): no module-level def"
        for rewrite in REWRITES
        if not rewrite.startswith("alias-")
    },
    **{
        ("decorator-form", fixture): "every registration of a module-level def is a decorator already"
        for fixture in (
            "captured_weights",
            "compiled_training",
            "doc_strict",
            "kernels",
            "laundered",
            "mutable_state",
            "pipeline",
            "transformer_blocks",
            "attention",
            "quant_utils",
            "training",
            "imported_objects",
            "logged_outside",
            "field/backend_registry",
            "field/config_flags",
            "field/config_objects",
            "field/kernel_loader",
        )
    },
    **{
        ("decorator-form", fixture): f"the one call-form registration binds its result to another name ({call}): "
        "as a decorator the def would have to be renamed too"
        for fixture, call in (
            ("diffusers_utils", "group_norm_silu = register_opaque(_group_norm_silu)"),
            ("fused_ops", "swiglu = torch.compiler.allow_in_graph(_swiglu)"),
            ("kernel_registry", "top_k_gating = opaque(_top_k_gating)"),
        )
    },
    **{
        (rewrite, "quant_utils"): "the only module-level def registered is _dequant, inside "
        "NamedOp('dequantize', _dequant): registered through an object, not as a def"
        for rewrite in (
            "call-form",
            "rebinding-form",
            "move-def+rebinding-form",
            "list-form",
            "tuple-form",
            "register-from-a-script",
            "register-through-an-installed-helper",
            "register-through-an-installed-alias",
            *(f"register-elsewhere-{spelling}" for spelling in SPELLINGS),
        )
    },
    (
        "define-later",
        "quant_utils",
    ): "_dequant is needed at import time: NamedOp('dequantize', _dequant) runs right after it",
    **{
        ("rename-global", fixture): "the registered defs read no module-level name bound by an assignment"
        for fixture in (
            "conflicting_markers",
            "doc_strict",
            "transformer_blocks",
            "untraceable_subclasses",
            "diffusers_utils",
            "quant_utils",
            "imported_objects",  # the registered defs read only imported objects
            "logged_outside",
            "field/config_flags",  # they read flags through the config module (config.X)
            "field/config_objects",  # and config objects through their attributes
            "field/registration_forms",
        )
    },
    **{
        (rewrite, fixture): "every registrar is the module's own alias or wrapper (or a result bound to another "
        "name), not torch's public allow_in_graph imported from torch: a helper would change which is called"
        for rewrite in ("register-through-an-installed-helper", "register-through-an-installed-alias")
        for fixture in ("diffusers_utils", "kernel_registry", "transformer_blocks")
    },
    **{
        (rewrite, fixture): "the module spells no torch.compiler chain (it imports tc and aig itself)"
        if fixture == "attention"
        else "the module spells no torch.compiler chain (its registrars are imported names)"
        for rewrite in ("alias-compiler", "alias-registrar")
        for fixture in ("attention", "diffusers_utils")
    },
}


# -- running the checker -----------------------------------------------------------------


class Found(NamedTuple):
    code: str
    path: str
    line: int
    message: str


def _keywords(options: tuple[str, ...]) -> dict[str, Any]:
    """The command-line options a subject carries (``--doc-strict``, ``--extend-select CODE``),
    as the keywords of :func:`checker.api.check_paths`."""
    keywords: dict[str, Any] = {}
    given = iter(options)
    for option in given:
        if option == "--doc-strict":
            keywords["doc_strict"] = True
        elif option == "--extend-select":
            keywords["extend_select"] = (*keywords.get("extend_select", ()), next(given))
        else:
            raise ValueError(f"a subject's option that check_paths is not given: {option}")
    return keywords


def check(program: Program, options: tuple[str, ...] = (), *, contained: bool = False) -> list[Found]:
    """The findings of one in-process run over the program, written to a temporary folder,
    found as the command line finds them (:func:`checker.api.check_paths`): parsed in this
    process unless ``contained``, each file then in a worker as the command line parses it.
    Parsing here saves nine tenths of the time of a check of programs this small (the forker
    and the worker each run forks); :func:`test_checking_here_finds_what_a_contained_run_finds`
    holds the two to the same findings."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        program.write(root)
        # installed packages come from the program's own environment, never from this machine's
        environment: dict[str, Any] = (
            {"python_environment": root / "venv"} if program.installs() else {"installed_packages": False}
        )
        report = check_paths([root], isolated=True, jobs=1, contained=contained, **environment, **_keywords(options))
        # Messages that cite another file name it under the temporary folder: "<root>" instead.
        return [
            Found(
                finding.code,
                Path(finding.path).resolve().relative_to(root).as_posix(),
                finding.line,
                finding.message.replace(str(root), "<root>"),
            )
            for finding in report.findings
        ]


def findings_before(subject: Subject) -> tuple[Found, ...]:
    return _findings_before(subject.name)


@cache
def _findings_before(name: str) -> tuple[Found, ...]:
    subject = BY_NAME[name]
    return tuple(check(subject.program, subject.options))


# -- comparing ---------------------------------------------------------------------------

#: A finding as the invariant sees it: its code and the original line its line came from
#: (for a line a rewrite wrote: the path and line it is at, marked as written).
Key = tuple[str, Origin]
WRITTEN = " (a written line)"


def key(program: Program, found: Found) -> Key:
    origin = program.origin(found.path, found.line)
    return found.code, origin or Origin(f"{found.path}{WRITTEN}", found.line)


def keys(program: Program, found: Iterator[Found] | tuple[Found, ...] | list[Found]) -> Counter[Key]:
    return Counter(key(program, f) for f in found)


class Difference(NamedTuple):
    lost: Counter[Key]
    gained: Counter[Key]

    def __bool__(self) -> bool:
        return bool(self.lost or self.gained)


def _copies_dropped(subject: Subject, program: Program, before: Counter[Key], after: Counter[Key]) -> Counter[Key]:
    """``after`` less the AIG407 of an import a rewrite copied (a registrar's, into the module
    that now registers): the copy's own finding, as the line it copies has one."""
    private = {subject.program.source(o.path).splitlines()[o.line - 1].strip() for c, o in before if c == "AIG407"}
    kept = Counter(after)
    for code, origin in after:
        if code == "AIG407" and origin.path.endswith(WRITTEN):
            text = program.source(origin.path.removesuffix(WRITTEN)).splitlines()[origin.line - 1].strip()
            if text.startswith(("import ", "from ")) and text in private:
                del kept[(code, origin)]
    return kept


def compare(subject: Subject, program: Program) -> tuple[Difference, list[Found]]:
    """How the findings of ``program`` differ from those of the subject, and the findings."""
    before = keys(subject.program, findings_before(subject))
    found = check(program, subject.options)
    after = _copies_dropped(subject, program, before, keys(program, found))
    return Difference(before - after, after - before), found


def _definition(program: Program, origin: Origin) -> str:
    """The module-level def or class the original line is in, for the reader."""
    lines = program.source(origin.path).splitlines() if origin.path in program.modules else []
    for text in reversed(lines[: origin.line]):
        match = re.match(r"(?:async\s+)?(?:def|class)\s+(\w+)", text)
        if match:
            return match.group(1)
        if text and not text[0].isspace() and not text.startswith(("@", "#", ")")):
            break
    return "module level"


def describe(subject: Subject, program: Program, difference: Difference, found: list[Found]) -> str:
    original = subject.program

    def line(key: Key) -> str:
        code, origin = key
        if origin.path not in original.modules:
            return f"{code} at {origin.path}:{origin.line}"
        text = original.modules[origin.path][origin.line - 1].text.strip()
        now = [
            f"{p}:{n}" for p, lines in program.modules.items() for n, ln in enumerate(lines, 1) if ln.origin == origin
        ]
        return f"{code} {origin} [{_definition(original, origin)}] {text!r} (now at {', '.join(now) or 'nowhere'})"

    report = []
    report += [f"  lost:   {line(k)}" for k in sorted(difference.lost.elements())]
    for k in sorted(difference.gained.elements()):
        messages = [f.message for f in found if key(program, f) == k]
        report.append(f"  gained: {line(k)}: {messages[0] if messages else ''}")
    return "\n".join(report)


def apply(rewrite: Rewrite, program: Program) -> Rewritten | Inapplicable:
    try:
        return rewrite(program)
    except cst.ParserSyntaxError:
        return Inapplicable("a module does not parse")


@cache
def _rewritten(name: str, subject: str) -> Rewritten | Inapplicable:
    return apply(REWRITES[name], BY_NAME[subject].program)


def _changed_sources(original: Program, program: Program) -> str:
    """The modules the rewrite wrote or changed, for the failure message."""
    changed = [path for path, lines in program.modules.items() if lines != original.modules.get(path)]
    return "\n".join(f"--- {path}\n{program.source(path)}" for path in changed)


# -- the invariant -----------------------------------------------------------------------

# The three tests of a case share its rewrite (cached, and costlier than their checks):
# module-scoped parameters make pytest run them one after another, so that the worker of
# ``pytest -n`` that runs the first runs the other two as well, and rewrites once.
CASES = [pytest.param(name, subject, id=f"{name}[{subject.name}]") for name in REWRITES for subject in SUBJECTS]


@pytest.mark.parametrize(("name", "subject"), CASES, scope="module")
def test_findings_survive_the_rewrite(name: str, subject: Subject) -> None:
    result = _applied(name, subject)
    difference, found = compare(subject, result.program)
    assert not difference, (
        f"{name} changed the findings of {subject.name} ({'; '.join(result.done)}):\n"
        f"{describe(subject, result.program, difference, found)}\n\n"
        f"the modules it changed:\n{_changed_sources(subject.program, result.program)}"
    )


def _applied(name: str, subject: Subject) -> Rewritten:
    __tracebackhide__ = True
    result = _rewritten(name, subject.name)
    listed = NOT_APPLICABLE.get((name, subject.name))
    if isinstance(result, Inapplicable):
        if subject.fixture:
            assert listed, (
                f"{name} has nothing to change in {subject.name} ({result.reason}): list it in NOT_APPLICABLE"
            )
            pytest.skip(listed)
        pytest.skip(result.reason)
    assert listed is None, f"{name} applies to {subject.name}, which NOT_APPLICABLE lists ({listed})"
    return result


@pytest.mark.parametrize(("name", "subject"), CASES, scope="module")
def test_every_original_line_is_kept_once(name: str, subject: Subject) -> None:
    """Rewrites move, respell and add lines (imports, registrations), but never drop or copy one:
    a finding always has exactly one place to move to."""
    result = _applied(name, subject)
    kept = Counter(line.origin for lines in result.program.modules.values() for line in lines if line.origin)
    original = Counter(line.origin for lines in subject.program.modules.values() for line in lines)
    assert kept == original


def test_not_applicable_lists_only_real_cases() -> None:
    fixtures = {subject.name for subject in SUBJECTS if subject.fixture}
    stale = [case for case in NOT_APPLICABLE if case[0] not in REWRITES or case[1] not in fixtures]
    assert not stale


# -- the harness -------------------------------------------------------------------------


def _marked(program: Program) -> Counter[Key]:
    """The findings the ``# AIGnnn`` markers of the original program expect."""
    found: Counter[Key] = Counter()
    for path in program.modules:
        source = program.source(path)
        try:
            counts = expected(source)
        except (tokenize.TokenError, SyntaxError):
            counts = Counter()
            for number, text in enumerate(source.splitlines(), 1):
                match = re.search(r"#\s*((?:AIG\d{3}\s*)+)$", text.rstrip())
                for code in re.findall(r"AIG\d{3}", match.group(1)) if match else ():
                    counts[(number, code)] += 1
        for (line, code), n in counts.items():
            found[(code, Origin(path, line))] += n
    return found


@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda subject: subject.name)
def test_the_program_as_laid_out_gives_its_markers(subject: Subject) -> None:
    """The layout under ``pkg/`` and the run in-process do not change what the fixture expects."""
    assert keys(subject.program, findings_before(subject)) == _marked(subject.program)


@pytest.mark.parametrize("subject", [s for s in SUBJECTS if s.fixture], ids=lambda subject: subject.name)
def test_checking_here_finds_what_a_contained_run_finds(subject: Subject) -> None:
    """Every finding, message included, of the run the command line makes (each file parsed
    in a worker) is that of the run these tests make (parsed in this process)."""
    assert tuple(check(subject.program, subject.options, contained=True)) == findings_before(subject)


@pytest.mark.parametrize("rewrite", [identity, shift_lines], ids=["identity", "shift-lines"])
@pytest.mark.parametrize("subject", [s for s in SUBJECTS if s.fixture], ids=lambda subject: subject.name)
def test_a_rewrite_that_changes_nothing_keeps_every_finding(rewrite: Rewrite, subject: Subject) -> None:
    result = apply(rewrite, subject.program)
    assert not isinstance(result, Inapplicable)
    difference, found = compare(subject, result.program)
    assert not difference, describe(subject, result.program, difference, found)


def test_the_invariant_catches_a_dropped_registration() -> None:
    subject = BY_NAME["captured_weights"]
    result = apply(drop_registration, subject.program)
    assert not isinstance(result, Inapplicable)
    difference, _ = compare(subject, result.program)
    assert difference.lost and not difference.gained
    assert {code for code, _ in difference.lost} == {"AIG301"}


# -- the rewritten program runs like the original ----------------------------------------


# Each program is imported against stand-ins for torch and every other library
# (:mod:`stand_ins`): a rewrite must not change which modules import, what is registered
# (by the spelling's path, such as ``torch.compiler.allow_in_graph``), or the shapes of
# what each original module binds.


def _modules(program: Program, first: Program | None = None) -> list[str]:
    """The modules of ``program`` to import (not ``__init__.py``, not an installed package's):
    those of ``first`` first, in its order, then the others (a module or a script that
    registers the package's defs runs after the package, as a user's script would)."""
    paths = [path for path in program.modules if not path.endswith("__init__.py") and not installed(path)]
    if first is not None:
        order = {module_name(path): n for n, path in enumerate(_modules(first))}
        paths.sort(key=lambda path: order.get(module_name(path), len(order)))
    return paths


@cache
def _ran_before(name: str) -> Ran:
    return run(BY_NAME[name].program, _modules(BY_NAME[name].program))


@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda subject: subject.name)
def test_every_original_imports_against_the_stand_ins(subject: Subject) -> None:
    """Otherwise the comparison below would stop at the first failing statement."""
    errors = _ran_before(subject.name).errors
    assert errors == ({"pkg.broken_syntax": "SyntaxError"} if subject.name == "broken_syntax" else {})


def _ran_after(subject: Subject, program: Program) -> Ran:
    """The rewritten program run: its original modules are compared, not a module a rewrite added."""
    ran = run(program, _modules(program, subject.program))
    before = _ran_before(subject.name)
    return ran._replace(namespaces={name: ran.namespaces[name] for name in before.namespaces if name in ran.namespaces})


@pytest.mark.parametrize(("name", "subject"), CASES, scope="module")
def test_the_rewritten_program_runs_like_the_original(name: str, subject: Subject) -> None:
    result = _applied(name, subject)
    before, after = _ran_before(subject.name), _ran_after(subject, result.program)
    assert after.errors == before.errors
    assert after.calls == before.calls
    assert after.namespaces == before.namespaces


def test_the_run_comparison_catches_a_dropped_registration() -> None:
    subject = BY_NAME["captured_weights"]
    result = apply(drop_registration, subject.program)
    assert not isinstance(result, Inapplicable)
    before, after = _ran_before(subject.name), _ran_after(subject, result.program)
    lost = before.calls - after.calls
    assert [path for path, _ in lost.elements()] == ["torch.compiler.allow_in_graph"]
    assert after.namespaces == before.namespaces
