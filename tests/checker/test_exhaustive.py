"""The exhaustive switch: every file parsed, and the same findings as a normal run (issue 21).

The cheap tier (text pre-filter, CPython-ast outlines, reverse and change scans) only
answers "may this matter?". With :func:`checker.reading.exhaustive.parsing_everything`
on, every such answer is "yes" and the full tier decides alone, so a difference between
the two runs is a prefilter or veto that changed a finding: a bug in the cheap tier (or
in the full tier), to be fixed for the idiom it missed.

The runs cover ``fixtures/``, the packages of ``tests/field_idioms/`` and every subject
of the metamorphic tests (each fixture laid out as a package, and the rule examples that
register a module-level def).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_metamorphic import SUBJECTS, Found, Subject, check

from checker.api import check_paths
from checker.passes.engine import check_source
from checker.reading.exhaustive import exhaustive, parsing_everything
from checker.reading.mentions import may_register
from checker.reading.source import API_ONLY, Prefilter, python_gate
from checker.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[2]
#: The folders checked as they are on disk: the fixtures and each field-idiom package.
FOLDERS = [
    ROOT / "fixtures" / "bad",
    ROOT / "fixtures" / "good",
    *sorted(path for path in (ROOT / "tests" / "field_idioms").iterdir() if path.is_dir()),
]


def _run(paths: list[Path], *, contained: bool = False, jobs: int = 1) -> list[dict[str, object]]:
    """The findings of one run over ``paths`` as the command line makes it
    (:func:`checker.api.check_paths`), as dicts (parsed in this process unless ``contained``)."""
    report = check_paths(paths, isolated=True, jobs=jobs, contained=contained)
    return [dataclasses.asdict(finding) for finding in report.findings]


# -- the switch itself ---------------------------------------------------------------------


def test_the_switch_is_off_unless_asked_and_restored_after() -> None:
    assert not exhaustive()
    with parsing_everything():
        assert exhaustive()
        with parsing_everything(on=False):
            assert not exhaustive()
        assert exhaustive()
    assert not exhaustive()


def test_the_text_prefilter_lets_every_file_through() -> None:
    data = b"def f(x):\n    return x\n"
    assert not API_ONLY.matches(data)
    assert not Prefilter(("register",), ("scaled",)).matches(data)
    with parsing_everything():
        assert API_ONLY.matches(data)
        assert Prefilter(("register",), ("scaled",)).matches(data)


def test_the_tree_veto_lets_a_file_that_only_talks_about_the_api_through() -> None:
    text = '"""Call allow_in_graph on it."""\n\n# allow_in_graph(f) would register f\nX = 1\n'
    tree = python_gate(text).tree
    assert tree is not None
    assert not may_register(tree, text, API_ONLY)
    with parsing_everything():
        assert may_register(tree, text, API_ONLY)


def test_the_engine_parses_a_file_that_never_mentions_the_api() -> None:
    rules = [rule() for rule in ALL_RULES if rule.default_enabled]
    data = b"import torch\nW = torch.ones(3)\ndef f(x):\n    return x * W\n"
    assert not check_source(data, "m.py", rules).parsed
    with parsing_everything():
        assert check_source(data, "m.py", rules).parsed


# -- exhaustive and normal runs agree ------------------------------------------------------


@pytest.mark.parametrize("folder", FOLDERS, ids=[path.relative_to(ROOT).as_posix() for path in FOLDERS])
def test_a_folder_gets_the_same_findings_either_way(folder: Path) -> None:
    normal = _run([folder])
    with parsing_everything():
        everything = _run([folder])
    assert everything == normal


def test_a_file_named_alone_gets_the_same_findings_either_way() -> None:
    """Named alone, a file's project is searched for registrations of its defs (the reverse
    scan): exhaustively, every file of the project is checked for them."""
    named = [ROOT / "tests" / "field_idioms" / "registration_forms" / "raw.py"]
    normal = _run(named)
    with parsing_everything():
        assert _run(named) == normal


def test_workers_forked_under_the_switch_inherit_it() -> None:
    """A contained run parses in worker processes forked after the switch was set."""
    folder = ROOT / "fixtures" / "bad"
    normal = _run([folder], contained=True, jobs=2)
    with parsing_everything():
        assert _run([folder], contained=True, jobs=2) == normal
    assert normal == _run([folder])


@pytest.mark.parametrize("subject", SUBJECTS, ids=[subject.name for subject in SUBJECTS])
def test_a_metamorphic_subject_gets_the_same_findings_either_way(subject: Subject) -> None:
    normal: list[Found] = check(subject.program, subject.options)
    with parsing_everything():
        everything = check(subject.program, subject.options)
    assert everything == normal


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
}


@pytest.mark.parametrize("registration", REGISTRATIONS.values(), ids=list(REGISTRATIONS))
def test_a_call_of_a_function_registered_in_any_spelling_is_judged(registration: str, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "kernels.py").write_text(_KERNELS.format(have=True, registration=registration), encoding="utf-8")
    (package / "caller.py").write_text(_CALLER, encoding="utf-8")
    normal = _run([tmp_path])
    assert [(item["code"], Path(str(item["path"])).name, item["line"]) for item in normal] == [
        ("AIG104", "caller.py", 9)
    ]
    with parsing_everything():
        assert _run([tmp_path]) == normal
