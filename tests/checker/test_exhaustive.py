"""The exhaustive switch: every file parsed, and the same findings as a normal run (issue 21).

The cheap tier (text pre-filter, CPython-ast outlines, reverse and change scans) only
answers "may this matter?". With ``check_paths(..., exhaustive=True)`` every such answer is
"yes" and the full tier decides alone, so a difference between the two runs is a
prefilter or veto that changed a finding: a bug in the cheap tier (or in the full tier),
to be fixed for the idiom it missed.

The runs cover ``fixtures/``, the packages of ``tests/field_idioms/`` and every subject
of the metamorphic tests (each fixture laid out as a package, and the rule examples that
register a module-level def).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from test_metamorphic import SUBJECTS, Subject, _keywords

from checker.api import PathsReport, check_paths

ROOT = Path(__file__).resolve().parents[2]
#: The folders checked as they are on disk: the fixtures and each field-idiom package.
FOLDERS = [
    ROOT / "fixtures" / "bad",
    ROOT / "fixtures" / "good",
    *sorted(path for path in (ROOT / "tests" / "field_idioms").iterdir() if path.is_dir()),
]
#: A finding as compared: every field, the message included.
Seen = tuple[str, str, int, int, str]


def _run(paths: list[Path], *, exhaustive: bool = False, contained: bool = False, **keywords: object) -> PathsReport:
    """One run as the command line makes it (parsed in this process unless ``contained``).
    Installed packages are not read: the repository's own ``.venv`` (torch, numpy) is the test
    machinery's, not the fixtures' environment, and exhaustively it would parse all of numpy
    for each question (test_installed_packages covers that resolution)."""
    keywords.setdefault("installed_packages", False)
    return check_paths(paths, isolated=True, jobs=2, contained=contained, exhaustive=exhaustive, **keywords)  # type: ignore[arg-type]


def _seen(report: PathsReport, root: Path) -> list[Seen]:
    return [
        (f.code, Path(f.path).resolve().relative_to(root.resolve()).as_posix(), f.line, f.column, f.message)
        for f in report.findings
    ]


def _parsed(report: PathsReport) -> set[str]:
    return {Path(file.report.path).name for file in report.files if file.report.parsed}


# -- the switch itself ---------------------------------------------------------------------

_ONLY_TALKS = '''"""Call allow_in_graph on it."""

# allow_in_graph(f) would register f
X = 1
'''


def _project(tmp_path: Path) -> Path:
    (tmp_path / "plain.py").write_text("def f(x):\n    return x\n", encoding="utf-8")
    (tmp_path / "talks.py").write_text(_ONLY_TALKS, encoding="utf-8")
    return tmp_path


def test_a_normal_run_parses_neither_a_file_that_never_mentions_the_api_nor_one_that_only_talks_about_it(
    tmp_path: Path,
) -> None:
    assert _parsed(_run([_project(tmp_path)])) == set()


def test_an_exhaustive_run_parses_every_file_and_leaves_the_switch_off_after(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    assert _parsed(_run([folder], exhaustive=True)) == {"plain.py", "talks.py"}
    assert _parsed(_run([folder])) == set()


def test_workers_forked_under_the_switch_inherit_it(tmp_path: Path) -> None:
    assert _parsed(_run([_project(tmp_path)], exhaustive=True, contained=True)) == {"plain.py", "talks.py"}


# -- exhaustive and normal runs agree ------------------------------------------------------


@pytest.mark.parametrize("folder", FOLDERS, ids=[path.relative_to(ROOT).as_posix() for path in FOLDERS])
def test_a_folder_gets_the_same_findings_either_way(folder: Path) -> None:
    normal = _seen(_run([folder]), ROOT)
    assert _seen(_run([folder], exhaustive=True), ROOT) == normal


def test_a_file_named_alone_gets_the_same_findings_either_way() -> None:
    """Named alone, a file's project is searched for registrations of its defs (the reverse
    scan): exhaustively, every file of the project is checked for them."""
    named = [ROOT / "tests" / "field_idioms" / "registration_forms" / "raw.py"]
    assert _seen(_run(named, exhaustive=True), ROOT) == _seen(_run(named), ROOT)


def test_a_contained_run_gets_the_same_findings_either_way() -> None:
    folder = ROOT / "fixtures" / "bad"
    normal = _seen(_run([folder], contained=True), ROOT)
    assert _seen(_run([folder], exhaustive=True, contained=True), ROOT) == normal == _seen(_run([folder]), ROOT)


@pytest.mark.parametrize("subject", SUBJECTS, ids=[subject.name for subject in SUBJECTS])
def test_a_metamorphic_subject_gets_the_same_findings_either_way(subject: Subject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        subject.program.write(root)
        keywords = _keywords(subject.options)
        normal = _seen(_run([root], **keywords), root)
        assert _seen(_run([root], exhaustive=True, **keywords), root) == normal


# -- idioms a difference showed the cheap tier missed ------------------------------------------

_KERNELS = """\
import torch

HAVE = {have}


def scaled(x, mode):
    return x * 2


{registration}
"""
_CALLER = """\
from .kernels import scaled


class Plan:
    pass


def run(x):
    return scaled(x, Plan())
"""
#: Registrations of ``scaled`` the text scan of registered functions must find: its calls
#: in another module are judged only for the names that scan finds.
REGISTRATIONS = {
    "top-level": "torch.compiler.allow_in_graph(scaled)",
    "in-a-top-level-if": "if HAVE:\n    torch.compiler.allow_in_graph(scaled)",
    "in-a-top-level-try": "try:\n    torch.compiler.allow_in_graph(scaled)\nexcept AttributeError:\n    pass",
    "rebound-in-an-if": "if HAVE:\n    scaled = torch.compiler.allow_in_graph(scaled)",
    "keyword": "torch.compiler.allow_in_graph(fn=scaled)",
    # Found by the full tier only (the text scan cannot see an alias or a wrapper): the pass
    # after the first hands the names on.
    "alias": "aig = torch.compiler.allow_in_graph\naig(scaled)",
    "wrapper": "def register(fn):\n    return torch.compiler.allow_in_graph(fn)\n\n\nregister(scaled)",
    "getattr": 'getattr(torch.compiler, "allow_in_graph")(scaled)',
    "in-a-function": "def setup():\n    torch.compiler.allow_in_graph(scaled)\n\n\nsetup()",
}


@pytest.mark.parametrize("registration", REGISTRATIONS.values(), ids=list(REGISTRATIONS))
def test_a_call_of_a_function_registered_in_any_spelling_is_judged(registration: str, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "kernels.py").write_text(_KERNELS.format(have=True, registration=registration), encoding="utf-8")
    (package / "caller.py").write_text(_CALLER, encoding="utf-8")
    normal = _seen(_run([tmp_path]), tmp_path)
    assert [(code, path, line) for code, path, line, _, _ in normal] == [("AIG104", "pkg/caller.py", 9)]
    assert _seen(_run([tmp_path], exhaustive=True), tmp_path) == normal
