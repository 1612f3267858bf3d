"""The cheap tier borrows its predicates from the full tier (issue 21, point 3).

Each predicate both tiers ask is written once (:mod:`checker.reading.forms`, the mutation
table of :mod:`checker.facts.scopes.tree`) over a description either tree gives; each
tier's adapter describes its own node. One table of cases per predicate, written as
source, is run through both node types: libcst (the full tier) and CPython's ``ast`` and
the text scans (the cheap tier). The cheap tier may say "may matter" more often than the
full tier finds something, never less; on every form it recognises, the tables hold the
two to the same answer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from checker.facts.captures.changes import ChangeKind, local_change
from checker.facts.module import ModuleFacts
from checker.facts.registrations.sites import Form, registered_argument, registered_elements
from checker.facts.scopes import statements as scope_statements
from checker.facts.scopes.builder import build_tree
from checker.facts.scopes.tree import Mutation, MutationKind
from checker.index.change_scan import _Prefilter
from checker.index.change_walk import changes
from checker.index.outlines import outline
from checker.index.reverse_scan import registered_in
from checker.reading import mentions
from checker.reading.forms import is_main_guard, names_registrar
from checker.reading.source import API_ONLY
from checker.spec import torch_api as api

# -- the __main__ guard ------------------------------------------------------------------------

#: ``if`` tests, and whether each is a ``__main__`` guard.
MAIN_GUARDS = {
    '__name__ == "__main__"': True,
    '"__main__" == __name__': True,
    "__name__ == '__main__'": True,
    "'__main__' == __name__": True,
    '(__name__ == "__main__")': True,
    '(("__main__" == __name__))': True,
    '(__name__) == ("__main__")': True,
    '__name__ == """__main__"""': True,
    '__name__ == r"__main__"': True,
    '__name__ == u"__main__"': True,
    '__name__ == "__ma" "in__"': True,
    "\"__ma\" 'in__' == __name__": True,
    '__name__ != "__main__"': False,
    '__name__ == "main"': False,
    '__name__ == b"__main__"': False,
    '__name__ == f"__main__"': False,
    '__name__ == "__ma" f"in__"': False,
    "__name__ == __name__": False,
    '"__main__" == "__main__"': False,
    'name == "__main__"': False,
    '__spec__ == "__main__"': False,
    '__name__ == "__main__" == __name__': False,
    '__name__ == "__main__" and DEBUG': False,
    'not __name__ != "__main__"': False,
    '"__main__" in __name__': False,
    '__name__.__eq__("__main__")': False,
}


def _if_test_ast(test: str) -> ast.expr:
    statement = ast.parse(f"if {test}:\n    pass\n").body[0]
    assert isinstance(statement, ast.If)
    return statement.test


def _if_test_cst(test: str) -> cst.BaseExpression:
    statement = cst.parse_module(f"if {test}:\n    pass\n").body[0]
    assert isinstance(statement, cst.If)
    return statement.test


@pytest.mark.parametrize(("test", "expected"), MAIN_GUARDS.items(), ids=list(MAIN_GUARDS))
def test_main_guard_in_both_node_types(test: str, expected: bool) -> None:
    assert is_main_guard(mentions.comparison_of(_if_test_ast(test))) is expected
    assert is_main_guard(scope_statements.comparison_of(_if_test_cst(test))) is expected


# -- the mutation table ---------------------------------------------------------------------


def _method(name: str, memoises: bool = False) -> Mutation:
    return Mutation(MutationKind.METHOD, name, memoises)


#: A statement in a function of the module that binds ``X``, and how it changes ``X``.
MUTATIONS: dict[str, Mutation | None] = {
    "X.append(k)": _method("append"),
    "X.update(a=k)": _method("update"),
    "X.__setitem__(k, 1)": _method("__setitem__"),
    "X.add_(k)": _method("add_"),
    "X.setdefault(k, [])": _method("setdefault", memoises=True),
    "X[k] = 1": Mutation(MutationKind.ITEM),
    "X[k] += 1": Mutation(MutationKind.ITEM),
    "X.flag = k": Mutation(MutationKind.ATTRIBUTE, "flag"),
    "del X[k]": Mutation(MutationKind.DELETE),
    "X.copy()": None,
    "X.get(k)": None,
    "X._cache_(k)": None,
    "X.append": None,
    "Y.append(k)": None,
}


def _in_a_function(line: str) -> str:
    return f"X = {{}}\nY = []\n\n\ndef f(k):\n    {line}\n"


def _full_tier_mutation(line: str) -> Mutation | None:
    tree = build_tree(cst.parse_module(_in_a_function(line)))
    reads = tree.mutations_of(tree.module, "X")
    return reads[0].mutation if reads else None


def _cheap_tier_mutation(line: str) -> Mutation | None:
    module = Path("config.py")
    found = changes(
        ast.parse(_in_a_function(line)),
        module,
        "X",
        {module: {"X"}},
        own=True,
        rebinding=False,
        module_of=lambda dotted: None,
    )
    return next((change.mutation for change in found), None)


@pytest.mark.parametrize(("line", "expected"), MUTATIONS.items(), ids=list(MUTATIONS))
def test_mutation_in_both_node_types(line: str, expected: Mutation | None) -> None:
    assert _full_tier_mutation(line) == expected
    # A change that only fills in what is missing is no change of what was read.
    assert _cheap_tier_mutation(line) == (None if expected is None or expected.memoises else expected)


@pytest.mark.parametrize(("line", "expected"), MUTATIONS.items(), ids=list(MUTATIONS))
def test_the_change_scans_text_prefilter_lets_every_mutation_through(line: str, expected: Mutation | None) -> None:
    """Another module's ``from config import X`` and this line: the bytes may change ``X``."""
    may = _Prefilter({Path("config.py"): {"X"}}, None).in_place.search(line.encode()) is not None
    if expected is not None and not expected.memoises:
        assert may


# -- changes of module state ------------------------------------------------------------------

#: Code after ``X = []`` in the module that binds ``X``, and why ``X`` can change after
#: compilation (None: it cannot), as the full tier (``facts.captures.changes.local_change``)
#: and the cheap tier (``index.change_walk``, which answers for other modules) both read it.
CHANGES: dict[str, ChangeKind | None] = {
    "def f():\n    global X\n    X = 2": ChangeKind.DECLARED,
    "def f():\n    global X\n    del X": ChangeKind.DECLARED,
    "X += [1]": ChangeKind.AUGMENTED,
    "for i in range(3):\n    X = [i]": ChangeKind.LOOP,
    'if __name__ == "__main__":\n    X = [2]': ChangeKind.REBOUND,
    'if "__main__" == __name__:\n    X = [2]': ChangeKind.REBOUND,
    'if __name__ == "__main__":\n    X.append(2)': ChangeKind.MUTATED,
    "def f():\n    X.append(1)": ChangeKind.MUTATED,
    "def f(k):\n    X[k] = 1": ChangeKind.MUTATED,
    "def f(k):\n    if k not in X:\n        X[k] = 1": None,
    "def f(k):\n    X.setdefault(k, 1)": None,
    "X.append(1)": None,
    "X = [2]": None,
    "def f():\n    X = 2": None,
    "def f(X):\n    X.append(1)": None,
    'if __name__ != "__main__":\n    X = [2]': None,
}


def _full_tier_change(code: str) -> ChangeKind | None:
    tree = build_tree(cst.parse_module(f"X = []\n{code}\n"))
    change = local_change(tree, "X", tree.module, tree.bindings(tree.module, "X"))
    return None if change is None else change.kind


def _cheap_tier_change(code: str) -> ChangeKind | None:
    module = Path("config.py")
    found = changes(
        ast.parse(f"X = []\n{code}\n"), module, "X", {module: {"X"}}, own=True, rebinding=True, module_of=lambda d: None
    )
    return next((change.kind for change in found), None)


@pytest.mark.parametrize(("code", "expected"), CHANGES.items(), ids=list(CHANGES))
def test_change_of_module_state_in_both_node_types(code: str, expected: ChangeKind | None) -> None:
    assert _full_tier_change(code) is expected
    assert _cheap_tier_change(code) is expected


# -- registrations --------------------------------------------------------------------------

_REGISTERING = """\
import torch
from torch.compiler import allow_in_graph

HAVE = True


def f(x):
    return x


{registration}
"""

#: Code after ``def f``, and the names its registrations register.
REGISTRATIONS: dict[str, set[str]] = {
    "torch.compiler.allow_in_graph(f)": {"f"},
    "allow_in_graph(f)": {"f"},
    "f = torch.compiler.allow_in_graph(f)": {"f"},
    "torch.compiler.allow_in_graph(fn=f)": {"f"},
    "torch._dynamo.allow_in_graph(f)": {"f"},
    "if HAVE:\n    torch.compiler.allow_in_graph(f)": {"f"},
    "try:\n    allow_in_graph(f)\nexcept AttributeError:\n    pass": {"f"},
    "@torch.compiler.allow_in_graph\ndef g(x):\n    return x": {"g"},
    "@allow_in_graph\nasync def g(x):\n    return x": {"g"},
    "if HAVE:\n\n    @allow_in_graph\n    def g(x):\n        return x": {"g"},
    "torch.compiler.allow_in_graph([f])": {"f"},
    "allow_in_graph((f, len))": {"f", "len"},
    "allow_in_graph(fn=[f])": {"f"},
    "ops = allow_in_graph([f, print])": {"f", "print"},
    "allow_in_graph((f, *HOOKS))": {"f"},
    "torch._dynamo.disallow_in_graph(f)": set(),
    "torch.compiler.allow_in_graph(*[f])": set(),
    "# allow_in_graph(f)": set(),
    '"""allow_in_graph(f) registers f"""': set(),
    "print('allow_in_graph(f)')": set(),
}


def _full_tier_registered(text: str) -> set[str]:
    facts = ModuleFacts(cst.parse_module(text), "m.py")
    found = set()
    for registration in facts.registrations:
        argument = registration.argument
        if registration.form is Form.DECORATOR and isinstance(argument, (cst.FunctionDef, cst.ClassDef)):
            found.add(argument.name.value)
            continue
        found.update(element.value for element in registered_elements(argument) if isinstance(element, cst.Name))
    return found


@pytest.mark.parametrize(("registration", "expected"), REGISTRATIONS.items(), ids=list(REGISTRATIONS))
def test_registration_in_both_node_types(registration: str, expected: set[str], tmp_path: Path) -> None:
    text = _REGISTERING.format(registration=registration)
    path = tmp_path / "m.py"
    path.write_text(text, encoding="utf-8")
    tree = ast.parse(text)
    assert _full_tier_registered(text) == expected
    assert outline(path).registered >= expected  # CPython's tree (``_decorated`` and calls of the API)
    assert registered_in(text.encode()) == expected  # the text scan of registered functions
    assert mentions.may_register(tree, text, API_ONLY) is (bool(expected) or "allow_in_graph(" in registration)


#: Registrations only the full tier sees (an alias, a wrapper, the API fetched by name): the
#: cheap tier's text scan and outline do not, and the pass after the first hands the names
#: the full tier found on (``Links.registered``; ``test_exhaustive`` runs them end to end).
FULL_TIER_ONLY: dict[str, set[str]] = {
    "aig = torch.compiler.allow_in_graph\naig(f)": {"f"},
    "def register(fn):\n    return allow_in_graph(fn)\n\n\nregister(f)": {"f"},
    'getattr(torch.compiler, "allow_in_graph")(f)': {"f"},
}


@pytest.mark.parametrize(("registration", "expected"), FULL_TIER_ONLY.items(), ids=list(FULL_TIER_ONLY))
def test_registration_the_full_tier_alone_sees(registration: str, expected: set[str], tmp_path: Path) -> None:
    text = _REGISTERING.format(registration=registration)
    path = tmp_path / "m.py"
    path.write_text(text, encoding="utf-8")
    assert expected <= _full_tier_registered(text)  # (a wrapper's own call registers its parameter too)
    assert not outline(path).registered & expected
    assert not registered_in(text.encode()) & expected
    assert mentions.may_register(ast.parse(text), text, API_ONLY)  # the file is parsed all the same


#: Registrations in the body of a top-level def or class: they register a parameter, a local
#: or a method, which no other file calls, so the text scan of registered functions (whose
#: names make other files' calls worth parsing) counts none of them; the full tier sees each.
IN_A_BODY: dict[str, str] = {
    "def deco(cls):\n    torch.compiler.allow_in_graph(cls)\n    return cls": "cls",
    "async def deco(fn):\n    allow_in_graph(fn)": "fn",
    "def make():\n    if HAVE:\n        allow_in_graph(f)": "f",
    "def make():\n\n    @allow_in_graph\n    def inner(x):\n        return x": "inner",
    "class K:\n    torch.compiler.allow_in_graph(f)": "f",
    "@decorate\ndef deco(cls):\n    allow_in_graph(fn=cls)": "cls",
}


@pytest.mark.parametrize(("registration", "name"), IN_A_BODY.items(), ids=list(IN_A_BODY))
def test_a_registration_in_a_body_names_no_function_other_files_call(registration: str, name: str) -> None:
    text = _REGISTERING.format(registration=registration)
    assert name in _full_tier_registered(text)
    assert registered_in(text.encode()) == set()


#: A registrar call, the index of the parameter its registrar registers, and the argument it registers.
REGISTERED_ARGUMENTS = {
    "reg(f)": (0, "f"),
    "reg(fn=f)": (0, "f"),
    "reg(f, fn=g)": (0, "f"),
    "reg(x, f)": (1, "f"),
    "reg(x, fn=f)": (1, "f"),
    "reg(*xs, f)": (0, "f"),
    "reg(*xs)": (0, None),
    "reg()": (0, None),
    "reg(other=f)": (0, None),
}


@pytest.mark.parametrize(("call", "case"), REGISTERED_ARGUMENTS.items(), ids=list(REGISTERED_ARGUMENTS))
def test_registered_argument_in_both_node_types(call: str, case: tuple[int, str | None]) -> None:
    index, expected = case
    expression = cst.parse_expression(call)
    assert isinstance(expression, cst.Call)
    argument = registered_argument(expression, index)
    assert (cst.Module([]).code_for_node(argument) if argument is not None else None) == expected
    parsed = ast.parse(call, mode="eval").body
    assert isinstance(parsed, ast.Call)
    if index == 0:  # the cheap tier asks of the API's own calls, which register their first argument
        assert [ast.unparse(found) for found in mentions.registered_arguments(parsed)] == (
            [expected] if expected else []
        )


@pytest.mark.parametrize("qualified", sorted(api.REGISTRATION_APIS))
def test_every_spelling_of_the_api_the_full_tier_knows_names_a_registrar(qualified: str) -> None:
    assert names_registrar(qualified.rpartition(".")[2])


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("allow_in_graph", True),
        ("maybe_allow_in_graph", True),
        ("disallow_in_graph", False),
        ("disallow_in_graph_or_allow_in_graph", True),
        ("allow_in_graphs", True),
        ("allow", False),
        ("", False),
    ],
)
def test_names_registrar(identifier: str, expected: bool) -> None:
    assert names_registrar(identifier) is expected


def test_the_cheap_tier_decodes_a_module_as_the_full_tier_does(tmp_path: Path) -> None:
    """A byte that is not UTF-8 in a comment: CPython runs the module, the full tier reads it
    (leniently), and so does the outline, which had given up on it."""
    text = _REGISTERING.format(registration="torch.compiler.allow_in_graph(f)")
    path = tmp_path / "m.py"
    path.write_bytes(text.encode().replace(b"HAVE = True", b"HAVE = True  # caf\xe9"))
    assert _full_tier_registered(path.read_bytes().decode("utf-8", errors="replace")) == {"f"}
    assert outline(path).registered == {"f"}
