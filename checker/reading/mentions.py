"""Whether a file's code, not only its text, can register something.

The text pre-filter lets through every file that mentions ``allow_in_graph`` anywhere,
comments and docstrings included; in torch that is 16 files, of which 9 only talk
about the API. CPython's parser has already read each of those files (the gate in
``checker/reading/source.py``), so its tree answers the question for a fraction of what
libcst's parse and the analysis would cost: a file can register only if an
identifier in it names the API (``allow_in_graph``, ``torch.compiler.allow_in_graph``,
``maybe_allow_in_graph``), one of the project's aliases, or ``getattr`` fetches the
API by name. ``disallow_in_graph`` alone registers nothing.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence, Set

from checker.reading.exhaustive import exhaustive
from checker.reading.forms import (
    OTHER,
    REGISTRAR_WORD,
    Comparison,
    Operand,
    iterated,
    names_registrar,
    registered_position,
)
from checker.reading.source import TEXT_WORDS, Prefilter

_DECORATED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def may_register(tree: ast.Module, text: str, prefilter: Prefilter) -> bool:
    """True unless no identifier in ``tree`` (CPython's tree of ``text``) can name a
    registrar (nor does it import a function the project registers, whose calls here are
    judged).

    Only the lines whose text spells the API, an alias or an imported name are looked at:
    an identifier lies on one line, so the answer is the whole tree's, at the cost of a few
    statements instead of every node (a name the text never spells, such as
    ``getattr(torch, "allow_" "in_graph")``, the text pre-filter misses as well).
    """
    if exhaustive():
        return True
    aliases = prefilter.alias_names
    imported = prefilter.imported_names
    # (Lines spelling "disallow_in_graph" are walked too: the nodes are judged exactly.)
    # Aliases and imported names count only as whole identifiers.
    spelled = lines_spelling(text, [REGISTRAR_WORD, *prefilter.other_names], words=prefilter.words)
    for node in nodes_on_lines(tree, spelled):
        if any(names_registrar(name) or name in aliases for name in _node_identifiers(node)):
            return True
        if isinstance(node, ast.ImportFrom) and any(alias.name in imported for alias in node.names):
            return True
    return False


def lines_spelling(text: str, needles: Iterable[str], words: Set[str] = frozenset()) -> list[int]:
    """The numbers of the lines (as CPython counts them) where the text spells one of
    ``needles``, or one of ``words`` (runs of ``\\w``; a line spelling one only inside a
    longer word may be left out), in order. One plain search per needle: CPython's regex
    engine tries an alternation, or a pattern that starts with a lookbehind or ``\\b``, at
    every position (17-20x slower on torch's files). Above ``_WORD_PASS_FROM`` words, one
    pass over the text's words instead: a file's calls are judged against every function
    the project registers, thousands in a generated tree, and a search per name would make
    the work of each file grow with the project."""
    if "\r" in text:  # CPython ends a line at \r\n and at a lone \r too
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    searched = [*needles, *words] if len(words) <= _WORD_PASS_FROM else needles
    found_at = {match.start() for needle in searched if needle for match in re.finditer(re.escape(needle), text)}
    if len(words) > _WORD_PASS_FROM:
        found_at.update(match.start() for match in TEXT_WORDS.finditer(text) if match.group() in words)
    found: list[int] = []
    line, counted = 1, 0
    for start in sorted(found_at):
        line += text.count("\n", counted, start)
        counted = start
        if not found or found[-1] != line:
            found.append(line)
    return found


#: More words than this are looked for in one pass over the text's words (see ``lines_spelling``):
#: that pass costs about as much as this many plain searches.
_WORD_PASS_FROM = 32


def nodes_on_lines(tree: ast.AST, lines: Sequence[int]) -> Iterator[ast.AST]:
    """The nodes of ``tree`` whose extent (decorators included) takes in one of ``lines``
    (sorted), and those without a position on the way: a walk that skips every subtree
    lying elsewhere. Inside an f-string, whose inner positions CPython 3.11 does not
    always get right, every node."""
    if not lines:
        return
    pending = [tree]
    while pending:
        node = pending.pop()
        start = getattr(node, "lineno", None)
        if start is not None:
            if isinstance(node, _DECORATED) and node.decorator_list:
                start = min(start, node.decorator_list[0].lineno)
            first = bisect_left(lines, start)
            if first == len(lines) or lines[first] > (getattr(node, "end_lineno", None) or start):
                continue
        if isinstance(node, ast.JoinedStr):
            yield from ast.walk(node)
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def class_only_names(tree: ast.Module, rebound: Set[str] | None = None) -> frozenset[str]:
    """Top-level names bound by nothing but ``class`` statements."""
    return _bound_only_by(tree, rebound, lambda statement: isinstance(statement, ast.ClassDef))


def non_registrar_names(tree: ast.Module, rebound: Set[str] | None = None) -> frozenset[str]:
    """Top-level names bound by nothing but ``class`` statements and defs that pass none of
    their parameters (nor a nested def's) to a call: none can be a registrar (an alias, or a
    wrapper, which forwards what it is given to one), so an importer's lookup of one needs no
    parse. ``rebound``: the names a ``global`` statement declares anywhere (found here if not given)."""
    return _bound_only_by(
        tree, rebound, lambda statement: isinstance(statement, ast.ClassDef) or _keeps_parameters(statement)
    )


def _bound_only_by(tree: ast.Module, rebound: Set[str] | None, kind: Callable[[ast.stmt], bool]) -> frozenset[str]:
    wanted: set[str] = set()
    others: set[str] = set(_rebound(tree) if rebound is None else rebound)
    for statement in top_level(tree.body):
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            (wanted if kind(statement) else others).add(statement.name)
        else:
            others.update(_stored_names(statement))
    return frozenset(wanted - others)


def _keeps_parameters(statement: ast.stmt) -> bool:
    """A def none of whose calls (its nested defs' included) is given one of its or their parameters."""
    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    parameters = _parameters(statement)
    for node in ast.walk(statement):
        if isinstance(node, ast.Call):
            given = [*node.args, *(keyword.value for keyword in node.keywords)]
            if any(isinstance(value, ast.Starred) or _names(value, parameters) for value in given):
                return False
    return True


def _names(expr: ast.expr, names: Set[str]) -> bool:
    return any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(expr))


def registrar_names(tree: ast.Module, text: str) -> frozenset[str]:
    """Top-level names a module (CPython's ``tree`` of ``text``) binds that may be registrars:
    the API under a name of its own (``from torch.compiler import allow_in_graph as mark``,
    ``mark = torch.compiler.allow_in_graph``), and wrappers, top-level defs in which one of
    them, or the API, is given a parameter (of the def or of a def inside it: a decorator
    factory). Found to a fixed point, as the full tier finds wrappers of wrappers
    (:class:`checker.facts.registrations.sites.Registrars`), which decides. Only the
    statements on lines that spell the API, or a name found so far, are looked into (a
    module of thousands of lines, diffusers' attention processors, has a few)."""
    statements = list(top_level(tree.body))
    found: set[str] = set()
    needles = [REGISTRAR_WORD]
    while needles:
        lines = lines_spelling(text, needles)
        new = {
            name
            for statement in statements
            if _spans(statement, lines)
            for name in _registrars_bound(statement, found, lines)
            if name not in found
        }
        found |= new
        needles = sorted(new)
    return frozenset(found)


def _spans(statement: ast.stmt, lines: Sequence[int]) -> bool:
    """Whether the statement (its decorators included) takes in one of ``lines`` (sorted)."""
    start = statement.lineno
    if isinstance(statement, _DECORATED) and statement.decorator_list:
        start = min(start, statement.decorator_list[0].lineno)
    first = bisect_left(lines, start)
    return first < len(lines) and lines[first] <= (statement.end_lineno or start)


def _registrars_bound(statement: ast.stmt, known: Set[str], lines: Sequence[int]) -> Iterator[str]:
    if isinstance(statement, ast.ImportFrom):
        yield from (alias.asname or alias.name for alias in statement.names if names_registrar(alias.name))
    elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        named = (name for node in nodes_on_lines(statement.value, lines) for name in _node_identifiers(node))
        if any(names_registrar(name) or name in known for name in named):
            stored = (node for node in ast.walk(statement) if isinstance(node, ast.Name))
            yield from (node.id for node in stored if isinstance(node.ctx, ast.Store))
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and _forwards_to(statement, known, lines):
        yield statement.name


def _forwards_to(definition: ast.FunctionDef | ast.AsyncFunctionDef, known: Set[str], lines: Sequence[int]) -> bool:
    """Whether a call in ``definition`` of the API or of a ``known`` registrar (on ``lines``,
    which spell them) registers a parameter."""
    parameters: set[str] | None = None
    for node in nodes_on_lines(definition, lines):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if not (names_registrar(name) or name in known):
                continue
            parameters = _parameters(definition) if parameters is None else parameters
            if any(
                isinstance(argument, ast.Name) and argument.id in parameters for argument in registered_arguments(node)
            ):
                return True
    return False


def _parameters(statement: ast.AST) -> set[str]:
    """The parameters of every def and lambda in ``statement`` (itself included)."""
    return {
        argument.arg
        for node in ast.walk(statement)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for argument in (
            *node.args.posonlyargs,
            *node.args.args,
            *node.args.kwonlyargs,
            node.args.vararg,
            node.args.kwarg,
        )
        if argument is not None
    }


def value_names(tree: ast.Module, rebound: Set[str] | None = None) -> frozenset[str]:
    """Top-level names an assignment binds (not only imports, defs and classes): the names
    that can hold data, which a module attribute read (``config.X``) may be state of.
    ``rebound``: the names a ``global`` statement declares anywhere, which can hold anything
    (found here if not given)."""
    found: set[str] = set(_rebound(tree) if rebound is None else rebound)
    for statement in top_level(tree.body):
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            found.update(_stored_names(statement))
    return frozenset(found)


def _rebound(tree: ast.AST) -> set[str]:
    return {name for node in ast.walk(tree) for name in global_names(node)}


def global_names(node: ast.AST) -> Iterator[str]:
    """The names ``node`` declares ``global`` (one node of a walk)."""
    if isinstance(node, ast.Global):
        yield from node.names


def names_the_api(node: ast.AST) -> bool:
    """Whether an identifier of ``node`` itself (one node of a walk) can name the API."""
    return any(names_registrar(name) for name in _node_identifiers(node))


def top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, looking into top-level ``if`` and ``try`` blocks."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from top_level(statement.body)
            yield from top_level(statement.orelse)
        elif isinstance(statement, (ast.Try, ast.TryStar)):
            for block in (statement.body, statement.orelse, statement.finalbody):
                yield from top_level(block)
            for handler in statement.handlers:
                yield from top_level(handler.body)
        else:
            yield statement


def _stored_names(statement: ast.stmt) -> Iterator[str]:
    """Every name a statement can bind (generously: any name stored anywhere in it)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name


def _node_identifiers(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.alias):
        yield node.name.rpartition(".")[2]
        if node.asname:
            yield node.asname
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.Call) and _is_getattr(node.func) and len(node.args) >= 2:
        name = node.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            yield name.value


def comparison_of(test: ast.expr) -> Comparison | None:
    """CPython's ``test`` described for :mod:`checker.reading.forms`: a comparison of two
    operands (brackets and implicit concatenation are gone from this tree), else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    return Comparison(isinstance(test.ops[0], ast.Eq), _operand(test.left), _operand(test.comparators[0]))


def _operand(expr: ast.expr) -> Operand:
    if isinstance(expr, ast.Name):
        return Operand(name=expr.id)
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return Operand(text=expr.value)
    return OTHER


def registered_arguments(call: ast.Call) -> list[ast.expr]:
    """The argument a registrar call registers (:func:`checker.reading.forms.registered_position`,
    as the full tier reads it), or none; a list or tuple display's elements, each on its
    own (:func:`checker.reading.forms.iterated`)."""
    positional = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
    position = registered_position(len(positional), [keyword.arg for keyword in call.keywords])
    if isinstance(position, int):
        found = [positional[position]]
    else:
        found = [keyword.value for keyword in call.keywords if keyword.arg == position]
    return [element for argument in found for element in _registered_elements(argument)]


def _registered_elements(argument: ast.expr) -> list[ast.expr]:
    if isinstance(argument, (ast.List, ast.Tuple)) and iterated(type(argument).__name__):
        return [element for element in argument.elts if not isinstance(element, ast.Starred)]
    return [argument]


def dotted_name(expr: ast.expr, modules: dict[str, str]) -> str | None:
    """The dotted name ``expr`` spells through the local names of imported modules
    (``F.relu`` with ``modules = {"F": "torch.nn.functional"}``: ``torch.nn.functional.relu``),
    else None."""
    if isinstance(expr, ast.Name):
        return modules.get(expr.id)
    if isinstance(expr, ast.Attribute):
        head = dotted_name(expr.value, modules)
        return None if head is None else f"{head}.{expr.attr}"
    return None


def _is_getattr(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "getattr") or (
        isinstance(func, ast.Attribute) and func.attr == "getattr"
    )
