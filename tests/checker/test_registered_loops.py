"""Registrations made in a loop: ``for op in (f, g): allow_in_graph(op)`` registers what
``allow_in_graph([f, g])`` registers, element by element (a common idiom in the wild), in a
module, in a function, as ``op = allow_in_graph(op)`` and as the comprehension statement
``[allow_in_graph(op) for op in (f, g)]``; here or in another module. Iterating a dict
registers its keys, ``.values()`` its values. A loop over what the code does not show
registers nothing known (precision). Every fixture that registers a list or a tuple is held
to the same findings rewritten to the loop form, and exhaustive runs to normal ones."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from projects import assert_marked, check, run, write

from checker.api import PathsReport, check_paths

ROOT = Path(__file__).resolve().parents[2]

OPS = """
import torch

W = torch.ones(3)

def f(x):
    return x * W  # AIG301

def g(x):
    return x * W  # AIG301

"""

#: How a module registers ``f`` and ``g`` one at a time: each gives both AIG301s.
SPELLINGS = {
    "for-tuple": "for _op in (f, g):\n    torch.compiler.allow_in_graph(_op)",
    "for-list": "for _op in [f, g]:\n    torch.compiler.allow_in_graph(_op)",
    "for-set": "for _op in {f, g}:\n    torch.compiler.allow_in_graph(_op)",
    "for-name-bound-to-a-tuple": "OPS = (f, g)\nfor _op in OPS:\n    torch.compiler.allow_in_graph(_op)",
    "for-list-of-a-name": "OPS = [f, g]\nfor _op in list(OPS):\n    torch.compiler.allow_in_graph(_op)",
    "for-dict-values": "for _op in {'f': f, 'g': g}.values():\n    torch.compiler.allow_in_graph(_op)",
    "for-rebinding": "for _op in (f, g):\n    _op = torch.compiler.allow_in_graph(_op)",
    "for-alias": ("from torch.compiler import allow_in_graph as aig\nfor _op in (f, g):\n    aig(_op)"),
    "for-in-a-function": "def setup():\n    for _op in (f, g):\n        torch.compiler.allow_in_graph(_op)",
    "for-under-a-guard": "for _op in (f, g):\n    if hasattr(torch, 'compiler'):\n        torch.compiler.allow_in_graph(_op)",
    "comprehension": "[torch.compiler.allow_in_graph(_op) for _op in (f, g)]",
    "two-loops-one-name": (
        "for _op in (f,):\n    torch.compiler.allow_in_graph(_op)\nfor _op in [g]:\n    torch.compiler.allow_in_graph(_op)"
    ),
    "comprehension-of-a-name": "OPS = (f, g)\n[torch.compiler.allow_in_graph(_op) for _op in OPS]",
}


@pytest.mark.parametrize("registration", SPELLINGS.values(), ids=list(SPELLINGS))
def test_each_element_a_loop_registers_is_judged(tmp_path: Path, registration: str) -> None:
    write(tmp_path, {"ops.py": OPS + registration + "\n"})
    check(tmp_path, "ops.py")


#: Loops whose elements the code does not show, or whose registration is not each element's.
UNKNOWN = {
    "a-call": "def make():\n    return (f, g)\n\nfor _op in make():\n    torch.compiler.allow_in_graph(_op)",
    "getattr-by-name": (
        "import sys\nNAMES = ('f', 'g')\nfor _name in NAMES:\n"
        "    torch.compiler.allow_in_graph(getattr(sys.modules[__name__], _name))"
    ),
    "after-the-loop": "for _op in (f, g):\n    pass\ntorch.compiler.allow_in_graph(_op)",
    "rebound-in-the-body": (
        "from elsewhere import wrap\nfor _op in (f, g):\n    _op = wrap(_op)\n    torch.compiler.allow_in_graph(_op)"
    ),
    "unpacked": "for _i, _op in enumerate((f, g)):\n    torch.compiler.allow_in_graph(_op)",
    "a-name-bound-twice": ("OPS = (f,)\nOPS = (f, g)\nfor _op in OPS:\n    torch.compiler.allow_in_graph(_op)"),
}


@pytest.mark.parametrize("registration", UNKNOWN.values(), ids=list(UNKNOWN))
def test_a_loop_over_what_the_code_does_not_show_registers_nothing_known(tmp_path: Path, registration: str) -> None:
    """A guard of precision (these gave nothing before, and still do): no finding is made up."""
    write(tmp_path, {"ops.py": OPS.replace("  # AIG301", "") + registration + "\n"})
    check(tmp_path, "ops.py")


DICT = """
import torch

def f(x):
    return x

OPS_BY_NAME = {"f": f, "g": f}
torch.compiler.allow_in_graph(list(OPS_BY_NAME))  # AIG405 AIG405
for _key in OPS_BY_NAME:
    torch.compiler.allow_in_graph(_key)  # AIG405 AIG405
for _key in OPS_BY_NAME.keys():
    torch.compiler.allow_in_graph(_key)  # AIG405 AIG405
"""


def test_iterating_a_dict_registers_its_keys_as_list_of_it_does(tmp_path: Path) -> None:
    write(tmp_path, {"ops.py": DICT})
    found = check(tmp_path, "ops.py")
    assert len({finding.message for finding in found}) == 2  # "f" and "g", each a constant, on each line


# -- another module's functions -------------------------------------------------------------

#: An import of pkg/ops.py, and the loop over its functions that pkg/__init__.py runs.
ELSEWHERE = {
    "imported-names": ("from .ops import f, g", "for _op in (f, g):\n    torch.compiler.allow_in_graph(_op)"),
    "module-attributes": (
        "from . import ops",
        "for _op in [ops.f, ops.g]:\n    torch.compiler.allow_in_graph(_op)",
    ),
    "module-alias": ("import pkg.ops as o", "for _op in (o.f, o.g):\n    torch.compiler.allow_in_graph(_op)"),
    "name-bound-to-a-tuple": (
        "from .ops import f, g",
        "_OPS = (f, g)\nfor _op in _OPS:\n    torch.compiler.allow_in_graph(_op)",
    ),
    "rebinding": ("from .ops import f, g", "for _op in (f, g):\n    _op = torch.compiler.allow_in_graph(_op)"),
    "comprehension": ("from .ops import f, g", "[torch.compiler.allow_in_graph(_op) for _op in (f, g)]"),
    "in-a-function": (
        "from .ops import f, g",
        "def setup():\n    for _op in (f, g):\n        torch.compiler.allow_in_graph(_op)",
    ),
    "list-of-a-name": (
        "from .ops import f, g",
        "_OPS = [f, g]\nfor _op in list(_OPS):\n    torch.compiler.allow_in_graph(_op)",
    ),
    # Not loops: the list forms a loop over a name is held to, handed off alike.
    "list-form-of-a-name": ("from .ops import f, g", "_OPS = (f, g)\ntorch.compiler.allow_in_graph(_OPS)"),
    "list-form-of-list-of-a-name": (
        "from .ops import f, g",
        "_OPS = (f, g)\ntorch.compiler.allow_in_graph(list(_OPS))",
    ),
}


@pytest.fixture(params=ELSEWHERE.values(), ids=list(ELSEWHERE))
def project(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    imported, registration = request.param
    write(tmp_path, {"pkg/ops.py": OPS, "pkg/__init__.py": f"import torch\n{imported}\n\n{registration}\n"})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_loop_over_another_modules_functions_has_each_judged_there(project: Path) -> None:
    status, found = run("--isolated", "-q", "--no-cache", "pkg")
    assert status == 1
    assert_marked(project, found)
    assert all("(registered at pkg/__init__.py:" in finding.message for finding in found)


def test_checking_only_the_registering_file_reports_in_the_defining_one(project: Path) -> None:
    assert_marked(project, run("--isolated", "-q", "--no-cache", "pkg/__init__.py")[1])


def test_checking_only_the_defining_file_finds_the_loop(project: Path) -> None:
    """The reverse scan reads what the registered name stands for."""
    assert_marked(project, run("--isolated", "-q", "--no-cache", "pkg/ops.py")[1])


@pytest.mark.parametrize("named", [".", "pkg/ops.py", "pkg/__init__.py"])
def test_an_exhaustive_run_gets_the_same_findings(project: Path, named: str) -> None:
    normal = _seen(_run(project / named), project)
    assert normal
    assert _seen(_run(project / named, exhaustive=True), project) == normal


# -- the fixtures' lists and tuples, rewritten to loops ---------------------------------------


def _list_registrations(source: str) -> list[ast.Expr]:
    """The statements ``registrar([...])`` / ``registrar((...))`` (``fn=`` too) of a module."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # fixtures/bad/broken_syntax.py
        return []
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        func = node.value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        arguments = [*node.value.args, *(keyword.value for keyword in node.value.keywords)]
        if _names_the_api(name) and len(arguments) == 1 and isinstance(arguments[0], (ast.List, ast.Tuple)):
            found.append(node)
    return found


def _names_the_api(name: str) -> bool:
    """``allow_in_graph``, ``maybe_allow_in_graph``: not ``disallow_in_graph``."""
    return "allow_in_graph" in name and "disallow_in_graph" not in name


def _as_loops(source: str, form: str) -> str:
    """``source`` with each list registration a loop over the list (``for``: ``for _r in
    [...]: registrar(_r)`` on the call's line; ``comprehension``: ``[registrar(_r) for _r in
    [...]]``), the call's first line where it was, the elements on theirs."""
    lines = source.splitlines(keepends=True)
    for statement in sorted(_list_registrations(source), key=lambda node: node.lineno, reverse=True):
        call = statement.value
        assert isinstance(call, ast.Call)
        func = ast.get_source_segment(source, call.func)
        keyword = call.keywords[0].arg if call.keywords else None
        argument = call.keywords[0].value if call.keywords else call.args[0]
        collection = ast.get_source_segment(source, argument)
        registered = f"{func}({keyword}=_r)" if keyword else f"{func}(_r)"
        if form == "for":
            text = f"for _r in {collection}: {registered}"
        else:
            text = f"[{registered} for _r in {collection}]"
        first, last = statement.lineno - 1, (statement.end_lineno or statement.lineno) - 1
        head = lines[first][: statement.col_offset]
        tail = lines[last][statement.end_col_offset or 0 :]
        lines[first : last + 1] = [head + text + tail]
    return "".join(lines)


#: Each fixture (a file, or a package folder) with a list or tuple registration.
LISTED = [
    fixture
    for fixture in sorted((ROOT / "fixtures").glob("[bg]*/*"))
    if any(
        _list_registrations(path.read_text(encoding="utf-8"))
        for path in ([fixture] if fixture.suffix == ".py" else sorted(fixture.rglob("*.py")))
    )
]


def test_the_fixtures_register_lists_and_tuples() -> None:
    """The comparison below is over something: the fixtures known to register a list or a tuple."""
    names = {path.relative_to(ROOT / "fixtures").as_posix() for path in LISTED}
    assert {"bad/registration_targets", "bad/transformer_blocks.py", "good/training.py", "good/fused_ops.py"} <= names


@pytest.mark.parametrize("form", ["for", "comprehension"])
@pytest.mark.parametrize("fixture", LISTED, ids=[path.relative_to(ROOT / "fixtures").as_posix() for path in LISTED])
def test_a_fixture_gets_the_same_findings_registering_in_a_loop(fixture: Path, form: str, tmp_path: Path) -> None:
    listed, looped = tmp_path / "listed" / fixture.name, tmp_path / "looped" / fixture.name
    for copy in (listed, looped):
        if fixture.is_dir():
            shutil.copytree(fixture, copy)
        else:
            copy.parent.mkdir(parents=True)
            shutil.copy(fixture, copy)
    rewritten = 0
    for path in [looped] if looped.is_file() else sorted(looped.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if _list_registrations(source):
            path.write_text(_as_loops(source, form), encoding="utf-8")
            rewritten += 1
            assert not _list_registrations(path.read_text(encoding="utf-8"))
    assert rewritten
    want = _seen(_run(listed.parent), listed.parent, with_column=False)
    assert want or fixture.parent.name == "good"  # a bad fixture reports something of what it registers
    assert _seen(_run(looped.parent), looped.parent, with_column=False) == want
    assert _seen(_run(looped.parent, exhaustive=True), looped.parent, with_column=False) == want


def _run(root: Path, *, exhaustive: bool = False) -> PathsReport:
    """A run of ``root`` as the command line makes it, in this process, reading no installed packages."""
    return check_paths([root], isolated=True, jobs=1, contained=False, exhaustive=exhaustive, installed_packages=False)


def _seen(report: PathsReport, root: Path, with_column: bool = True) -> list[tuple[str, str, int, int, str]]:
    """The findings as compared: code, path below ``root``, line, column (or 0), message
    (the paths it names below ``root`` too)."""
    return sorted(
        (
            f.code,
            Path(f.path).resolve().relative_to(root.resolve()).as_posix(),
            f.line,
            f.column if with_column else 0,
            f.message.replace(f"{root.resolve()}/", "").replace(f"{root}/", ""),
        )
        for f in report.findings
    )
