"""checker/reading/mentions.py: only code that names the API (or an alias) is analysed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from checker.api import check_source
from checker.reading.mentions import class_only_names, lines_spelling, may_register, nodes_on_lines, non_registrar_names
from checker.reading.source import API_ONLY, Prefilter
from checker.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[2]

REGISTERS = {
    "call": "import torch\ntorch.compiler.allow_in_graph(f)\n",
    "decorator": "from torch._dynamo import allow_in_graph\n@allow_in_graph\ndef f(x):\n    return x\n",
    "renamed-import": "from torch.compiler import allow_in_graph as aig\n",
    "project-helper": "from .utils import maybe_allow_in_graph\n",
    "getattr-by-name": "import torch\nregister = getattr(torch.compiler, 'allow_in_graph', None)\n",
    "defines-a-wrapper": "def my_allow_in_graph(fn):\n    return fn\n",
}

ONLY_TALKS_ABOUT_IT = {
    "comment": "x = 1  # we could allow_in_graph this\n",
    "docstring": '"""Use allow_in_graph with care."""\n',
    "message": "raise RuntimeError('torch.compiler.allow_in_graph expects a callable')\n",
    "string-compare": "if qualname == 'allow_in_graph':\n    pass\n",
    "disallow-only": "import torch\ntorch._dynamo.disallow_in_graph(f)\n",
}


@pytest.mark.parametrize("source", REGISTERS.values(), ids=REGISTERS.keys())
def test_code_naming_the_api_may_register(source: str) -> None:
    assert may_register(ast.parse(source), source, API_ONLY)


@pytest.mark.parametrize("source", ONLY_TALKS_ABOUT_IT.values(), ids=ONLY_TALKS_ABOUT_IT.keys())
def test_text_only_about_the_api_cannot_register(source: str) -> None:
    assert not may_register(ast.parse(source), source, API_ONLY)


def test_a_project_alias_counts_as_naming_the_api() -> None:
    source = "# allow_in_graph\nfrom .utils import register\n@register\ndef f(x):\n    return x\n"
    tree = ast.parse(source)
    assert not may_register(tree, source, API_ONLY)
    assert may_register(tree, source, Prefilter(("register",)))


#: The name that registers sits on a line other than its statement's first.
AWAY_FROM_THE_STATEMENT = {
    "second-decorator": "import torch\n@functools.wraps(g)\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x\n",
    "continued-line": "import torch\nf = torch.compiler.\\\n    allow_in_graph(f)\n",
    "parenthesised-import": "from torch._dynamo import (\n    disable,\n    allow_in_graph,\n)\n",
    "deep-in-a-class": "class A:\n    def m(self):\n        if x:\n            return [\n                torch.compiler.allow_in_graph(g)\n            ]\n",
    "in-an-f-string": "s = f'{torch.compiler.allow_in_graph(g)}'\n",
    "crlf": "# allow_in_graph\r\nimport torch\r\n\r\ntorch.compiler.allow_in_graph(f)\r\n",
    "lone-cr": "# allow_in_graph\rimport torch\r\rtorch.compiler.allow_in_graph(f)\r",
}


@pytest.mark.parametrize("source", AWAY_FROM_THE_STATEMENT.values(), ids=AWAY_FROM_THE_STATEMENT.keys())
def test_the_name_is_found_wherever_its_line_is(source: str) -> None:
    assert may_register(ast.parse(source), source, API_ONLY)


def _parsable(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes())
    except SyntaxError:
        return False
    return True


def _sources() -> list[Path]:
    """Every Python file of the repository's own code and examples that CPython parses."""
    folders = ("fixtures", "examples", "tests/field_idioms", "checker", "runtime_guard")
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py") if _parsable(path))


@pytest.mark.parametrize("path", _sources(), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_walk_by_lines_meets_every_node_on_those_lines(path: Path) -> None:
    """The pruned walk ``may_register`` relies on yields every node a whole-tree walk finds
    spanning one of the lines (f-strings aside: their inner positions can be off in 3.11)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    inside_fstrings = {id(node) for top in ast.walk(tree) if isinstance(top, ast.JoinedStr) for node in ast.walk(top)}
    count = text.count("\n") + 1
    for lines in ([*range(1, count + 1, 7)], [count // 2], lines_spelling(text, ["allow_in_graph", "def ", "@"])):
        met = {id(node) for node in nodes_on_lines(tree, lines)}
        for node in ast.walk(tree):
            start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
            if start is None or id(node) in inside_fstrings:
                continue
            if any(start <= line <= (end or start) for line in lines):
                assert id(node) in met, f"{type(node).__name__} at line {start} is skipped"


@pytest.mark.parametrize("path", _sources()[::5], ids=lambda path: str(path.relative_to(ROOT)))
def test_the_lines_spelling_a_needle_are_those_a_line_by_line_search_finds(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    needles = ["allow_in_graph", "global", "def ", "self.", "(x"]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    expected = [number for number, line in enumerate(lines, 1) if any(needle in line for needle in needles)]
    assert lines_spelling(text, needles) == expected


def test_lines_are_counted_as_cpython_counts_them() -> None:
    text = "a\r\nb\rc\n\x0cd = allow_in_graph\n"
    assert lines_spelling(text, ["allow_in_graph"]) == [ast.parse(text).body[-1].lineno] == [4]


def test_a_file_that_only_talks_about_the_api_is_not_analysed() -> None:
    source = b"import torch\n# allow_in_graph would bake SCALE\nSCALE = 2.0\n\ndef f(x):\n    return x * SCALE\n"
    report = check_source(source, "talks.py", rules=[rule() for rule in ALL_RULES])
    assert not report.parsed
    assert report.findings == ()


def test_reporting_unused_suppressions_still_analyses_such_a_file() -> None:
    source = b"x = 1  # allow_in_graph  # aigcheck: noqa: AIG301\n"
    report = check_source(source, "talks.py", rules=[rule() for rule in ALL_RULES], unused_noqa=True)
    assert report.parsed
    assert [unused.codes for unused in report.unused_noqa] == [("AIG301",)]


def test_files_newer_than_this_interpreter_are_analysed_by_libcst_alone() -> None:
    # CPython 3.11 cannot parse a PEP 695 alias, so there is no tree to skip by: libcst decides.
    source = b"import torch\ntype Alias = int\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x.tolist()\n"
    report = check_source(source, "new.py", rules=[rule() for rule in ALL_RULES])
    assert report.parsed


CLASS_ONLY = {
    "plain-class": ("class Attention:\n    pass\n", {"Attention"}),
    "rebound-by-assignment": ("class A:\n    pass\nA = wrap(A)\n", set()),
    "fallback-def": ("try:\n    from x import A\nexcept ImportError:\n    class A:\n        pass\n", set()),
    "conditional-classes": ("if flag:\n    class A:\n        pass\nelse:\n    class A(B):\n        pass\n", {"A"}),
    "global-in-a-function": ("class A:\n    pass\ndef f():\n    global A\n    A = 1\n", set()),
    "imported-as": ("class A:\n    pass\nfrom m import g as A\n", set()),
    "functions-are-not": ("def register(fn):\n    return fn\n", set()),
}


@pytest.mark.parametrize(("source", "expected"), CLASS_ONLY.values(), ids=CLASS_ONLY.keys())
def test_names_only_classes_bind(source: str, expected: set[str]) -> None:
    assert class_only_names(ast.parse(source)) == expected


NOT_REGISTRARS = {
    "a-class": ("class A:\n    pass\n", {"A"}),
    "defs-that-keep-their-parameters": (
        "def reset():\n    clear()\ndef is_compiling() -> bool:\n    return flag()\ndef ident(fn):\n    return fn\n",
        {"reset", "is_compiling", "ident"},
    ),
    "a-def-that-forwards": ("def register(fn):\n    return wrap(fn)\n", set()),
    "a-def-that-forwards-by-keyword": ("def register(fn):\n    return wrap(fn=fn.__wrapped__)\n", set()),
    "a-def-that-forwards-everything": ("def register(*args):\n    return wrap(*args)\n", set()),
    "a-factory-whose-inner-def-forwards": (
        "def register(name):\n    def deco(fn):\n        return wrap(fn)\n    return deco\n",
        set(),
    ),
    "rebound-after": ("def reset():\n    pass\nreset = wrap\n", set()),
}


@pytest.mark.parametrize(("source", "expected"), NOT_REGISTRARS.values(), ids=NOT_REGISTRARS.keys())
def test_names_that_cannot_be_registrars(source: str, expected: set[str]) -> None:
    assert non_registrar_names(ast.parse(source)) == expected
