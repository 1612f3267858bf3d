"""The defs CPython's tree shows to be no registrar wrapper, unless an imported name they
forward to is one (``checker/reading/forwarding.py``): held to cases, to the full tier's
wrappers on the same modules (torch's own registration files too), and, in the index, to
the findings of a run that parses everything, with fewer parses and a cache that notices
when a module forwarded to becomes a wrapper."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst
import pytest
from projects import RULES, write

from checker.api import check_file, check_paths
from checker.index.pipeline import Parsed, parse
from checker.reading.exhaustive import parsing_everything
from checker.reading.forwarding import reexports_only, wrappers_unless

CASES = {
    "builtins-only": ("def mark(t, i):\n    if not hasattr(t, 'k'):\n        print(type(i))\n", {"mark": set()}),
    "a-parameter-and-its-attributes": ("def apply(fn, t):\n    fn(t)\n    t.done.add(fn)\n", {"apply": set()}),
    "itself": ("def mark(t, i):\n    for j in i:\n        mark(t, j)\n", {"mark": set()}),
    "another-def-of-the-module": (
        "def a(t):\n    b(t)\ndef b(t):\n    return len(t)\n",
        {"a": set(), "b": set()},
    ),
    "imported-names": (
        "from torch.utils import check\nimport numpy as np\nimport os.path\nfrom . import rel\n"
        "def a(t):\n    check(t)\n    np.asarray(t)\n    os.path.join(t)\n    rel.go(t)\n",
        {"a": {"torch.utils.check", "numpy.asarray", "os.path.join", ".rel.go"}},
    ),
    "through-another-def": (
        "from m import check\ndef a(t):\n    b(t)\ndef b(t):\n    check(t)\n",
        {"a": {"m.check"}, "b": {"m.check"}},
    ),
    "an-unknown-callee-spreads": ("def a(t):\n    b(t)\ndef b(t):\n    obj.run(t)\n", {}),
    "a-local-variable": ("def a(t):\n    run = pick()\n    run(t)\n", {}),
    "a-defaulted-parameter": ("def a(t, how=None):\n    how(t)\n", {}),
    "a-parameter-stored-to": ("def a(t, how):\n    how = pick()\n    how(t)\n", {}),
    "a-builtin-shadowed-at-the-top": ("hasattr = pick()\ndef a(t):\n    hasattr(t)\n", {}),
    "a-star-import": ("from m import *\ndef a(t):\n    hasattr(t)\n", {}),
    "a-name-bound-twice": ("from m import check\ncheck = other\ndef a(t):\n    check(t)\n", {}),
    "spelled-as-the-api": ("def a(t):\n    helper.allow_in_graph(t)\ndef my_allow_in_graph(t):\n    pass\n", {}),
    "a-call-result": ("def a(t):\n    make()(t)\n", {}),
    "rebound-by-global": ("def a(t):\n    pass\ndef b():\n    global a\n    a = 1\n", {"b": set()}),
    "only-the-registered-argument-counts": ("def a(t):\n    run(1, t)\n    run(fn=None, x=t)\n", {"a": set()}),
    "a-factory-of-a-forwarding-def": (
        "def a(name):\n    def deco(fn):\n        return wrap(fn)\n    return deco\n",
        {},
    ),
}


@pytest.mark.parametrize(("source", "expected"), CASES.values(), ids=CASES.keys())
def test_what_each_def_forwards_to(source: str, expected: dict[str, set[str]]) -> None:
    tree = ast.parse(source)
    rebound = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    assert {name: set(names) for name, names in wrappers_unless(tree, rebound).items()} == expected


def test_reexported_names() -> None:
    source = "from .impl import helper, other as renamed\nfrom .ops import my_allow_in_graph\nimport pkg.sub\n"
    assert reexports_only(ast.parse(source), set()) == {"helper"}


def _full_tier_wrappers(source: str) -> set[str]:
    """The top-level defs the full tier takes for wrappers, with no other module to ask."""
    parsed = parse(source, "module.py", None)
    assert isinstance(parsed, Parsed)
    return {definition.name.value for definition in parsed.facts.registrars.wrappers}


WRAPPERS = """\
import torch

def register(fn):
    return torch.compiler.allow_in_graph(fn)

def again(fn):
    return register(fn)

def guarded(fn):
    if hasattr(fn, "x"):
        again(fn)
"""


@pytest.mark.parametrize("source", [WRAPPERS, *(source for source, _ in CASES.values())])
def test_no_def_left_in_is_a_wrapper_to_the_full_tier(source: str) -> None:
    tree = ast.parse(source)
    assert not wrappers_unless(tree, set()).keys() & _full_tier_wrappers(source)


def test_the_wrappers_are_left_out() -> None:
    assert _full_tier_wrappers(WRAPPERS) == {"register", "again", "guarded"}
    assert wrappers_unless(ast.parse(WRAPPERS), set()) == {}


def test_torch_registration_files_agree_with_the_full_tier() -> None:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    files = [path for path in sorted(root.rglob("*.py")) if b"allow_in_graph" in path.read_bytes()]
    assert len(files) >= 10
    ruled_out = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        left_in = wrappers_unless(tree, set()).keys()
        assert not left_in & _full_tier_wrappers(source), path
        ruled_out += len(left_in)
    assert ruled_out > 20  # (the predicate does rule defs out there: decorators.py's markers)


def _project(root: Path, check_body: str) -> Path:
    """A package whose ``__init__.py`` names the API and re-exports ``helper``, a def that
    passes its parameter to builtins, to itself and to ``util.check``; ``user.py`` gives
    ``helper`` a function that reads a module-level tensor."""
    return write(
        root,
        {
            "pkg/__init__.py": "from torch.compiler import allow_in_graph\nfrom .impl import helper\n",
            "pkg/impl.py": """\
                import torch
                from .util import check

                @torch.compiler.allow_in_graph
                def f(x):
                    return x

                def helper(t, depth):
                    if depth and not hasattr(t, "done"):
                        check(t)
                        helper(t, depth - 1)
                """,
            "pkg/util.py": check_body,
            "user.py": """\
                import torch
                import pkg

                W = torch.ones(4)

                def scaled(x):
                    return x * W

                pkg.helper(scaled, 1)
                torch.compiler.allow_in_graph(torch.sin)
                """,
        },
    )


PLAIN_CHECK = "def check(t):\n    return isinstance(t, int)\n"
WRAPPING_CHECK = "from torch.compiler import allow_in_graph\n\ndef check(t):\n    return allow_in_graph(t)\n"


@pytest.mark.parametrize("check_body", [PLAIN_CHECK, WRAPPING_CHECK], ids=["plain", "wrapping"])
def test_the_index_finds_what_parsing_everything_finds(tmp_path: Path, check_body: str) -> None:
    root = _project(tmp_path, check_body)
    found = [finding.code for finding in check_file(root / "user.py", rules=RULES).findings]
    with parsing_everything():
        assert [finding.code for finding in check_file(root / "user.py", rules=RULES).findings] == found
    assert ("AIG301" in found) is (check_body == WRAPPING_CHECK)


def test_a_def_forwarding_to_no_registrar_costs_no_parse(tmp_path: Path, monkeypatch) -> None:
    root = _project(tmp_path, PLAIN_CHECK)
    parsed: list[str] = []
    real_parse = libcst.parse_module

    def counting_parse(source: str, *args: object, **kwargs: object) -> libcst.Module:
        parsed.append(source.splitlines()[-1].strip())
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting_parse)
    check_file(root / "user.py", rules=RULES)
    assert parsed == ["torch.compiler.allow_in_graph(torch.sin)"]  # user.py alone: not pkg, impl, util


def test_the_cache_notices_the_module_forwarded_to_becoming_a_wrapper(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", PLAIN_CHECK)
    cache = tmp_path / "cache"

    def codes() -> list[str]:
        report = check_paths([root / "user.py"], cache=cache, jobs=1, isolated=True)
        return [finding.code for file in report.files for finding in file.report.findings]

    assert "AIG301" not in codes()
    (root / "pkg/util.py").write_text(textwrap.dedent(WRAPPING_CHECK))
    assert "AIG301" in codes()
