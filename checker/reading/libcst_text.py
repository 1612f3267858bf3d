"""The text libcst is given: a file as CPython reads it, in a form libcst parses alike.

CPython accepts a few things libcst does not take the same way:

- a form feed in a line's indentation resets the column count (CPython's tokenizer does
  this for Emacs users); libcst counts it as indentation, so a block can be refused or
  nested wrongly, and its generated code drops the form feed. The indentation up to the
  last form feed is removed here, per line, and put back in fixed code;
- a boolean chain of thousands of operands crashes libcst's native parser (SIGSEGV at
  about 7,000), and thousands of implicitly concatenated strings make it refuse the
  file (at about 5,000). Such an expression is replaced by a placeholder name of the
  same extent (``(_aigcheck_elided_ ...)``, blanks keeping every line and column),
  whose kind is unknown: nothing inside it is judged, and nothing is judged by it.

- a literal of very many elements, all constants (a data table: a 2 MB list of numbers),
  costs libcst several objects per element, more than a worker's memory budget. No rule
  judges such elements one by one, so the literal is summarised: libcst is given the
  same display with one string constant in place of its elements (``["_aigcheck_elided_"
  ...]``, blanks keeping every line and column), a list, set or dict as before, a tuple
  of constants as before; fixed code gets the literal back as it was.

Boolean chains and literals are replaced before parsing (a crash cannot be caught),
strings only when libcst refused a file CPython accepted (:func:`elide_strings`).
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from checker.reading.source import Gate, Unanalysable, syntax_error

if TYPE_CHECKING:
    import libcst as cst

#: Operands of one ``and``/``or`` chain above which libcst's parser is not given it.
MAX_BOOL_OPERANDS = 3000
#: Implicitly concatenated strings in one literal above which it is elided (on refusal).
MAX_STRING_PARTS = 2500
PLACEHOLDER = "_aigcheck_elided_"
#: Constant elements of one literal (nested displays counted through) above which it is summarised.
MAX_LITERAL_ELEMENTS = 10_000
#: What a summarised literal holds, by its kind: one string constant (as immutable as they all were).
_SUMMARIES: dict[type[ast.expr], tuple[str, str, str]] = {
    ast.List: ("[", f'"{PLACEHOLDER}"', "]"),
    ast.Set: ("{", f'"{PLACEHOLDER}"', "}"),
    ast.Dict: ("{", f'"{PLACEHOLDER}": 0', "}"),
    ast.Tuple: ("(", f'"{PLACEHOLDER}",', ")"),
}
_SUMMARISED = tuple(_SUMMARIES)

#: A chain that long has at least this many spaced operators (a cheap test before a walk).
_SPACED_OPERATORS = MAX_BOOL_OPERANDS // 3


@dataclass(frozen=True)
class LibcstText:
    """``text`` for libcst; ``removed``: per line (1-based), the indentation taken off
    the start (form feeds and what precedes them); ``elided``: placeholders were put in."""

    text: str
    removed: Mapping[int, str] = field(default_factory=dict)
    elided: bool = False
    #: The summarised literals, in order: (the text given to libcst, the literal's own).
    summarised: tuple[tuple[str, str], ...] = ()

    @property
    def fixable(self) -> bool:
        """Whether fixed code can be turned back into the file's own text exactly."""
        return not self.elided

    def column(self, line: int, column: int) -> int:
        """A column of ``text`` as a column of the file."""
        return column + len(self.removed.get(line, ""))

    def restore(self, fixed: str) -> str:
        """Fixed code of ``text``, with each summarised literal and each line's removed
        indentation put back."""
        fixed = self._literals_back(fixed)
        if not self.removed:
            return fixed
        before = _lines(self._literals_back(self.text))
        after = _lines(fixed)
        restored: list[str] = []
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, start, end, new_start, new_end in matcher.get_opcodes():
            if tag in ("equal", "replace") and end - start == new_end - new_start:
                for offset, line in enumerate(after[new_start:new_end]):
                    restored.append(self.removed.get(start + offset + 1, "") + line)
            else:
                restored.extend(after[new_start:new_end])
        return "".join(restored)

    def _literals_back(self, fixed: str) -> str:
        """``fixed`` with each summarised literal's own text in place of libcst's (no fix
        reaches inside one: its elements are constants)."""
        parts: list[str] = []
        cursor = 0
        for given, own in self.summarised:
            found = fixed.find(given, cursor)
            if found < 0:
                raise ValueError("a fix changed a summarised literal; the file is not fixed")
            parts += [fixed[cursor:found], own]
            cursor = found + len(given)
        return "".join(parts) + fixed[cursor:]


def for_libcst(text: str, tree: ast.Module | None = None) -> LibcstText:
    """``text`` made safe for libcst; ``tree``: CPython's, parsed here when needed and absent."""
    spaced = text.count(" and ") + text.count(" or ")
    # A literal of more elements than that has at least as many commas.
    many = text.count(",") >= MAX_LITERAL_ELEMENTS
    if "\f" not in text and spaced < _SPACED_OPERATORS and not many:
        return LibcstText(text)
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return LibcstText(text)  # the caller's parse says what is wrong
    lines = _lines(text)
    removed = _strip_form_feeds(lines, tree) if "\f" in text else {}
    chains = [node for node in ast.walk(tree) if isinstance(node, ast.BoolOp)] if spaced >= _SPACED_OPERATORS else []
    long_chains = [chain for chain in chains if len(chain.values) > MAX_BOOL_OPERANDS]
    literals = [node for node in _data_literals(tree) if not any(_inside(node, chain) for chain in long_chains)]
    summarised = _replace(lines, long_chains, literals, removed)
    return LibcstText("".join(lines), removed, bool(long_chains), summarised)


def elide_strings(prepared: LibcstText, tree: ast.Module) -> LibcstText | None:
    """``prepared`` with string literals of very many parts elided too, or None if it has none."""
    lines = _lines(prepared.text)
    literals = [node for node in ast.walk(tree) if isinstance(node, (ast.Constant, ast.JoinedStr))]
    long_literals = [node for node in literals if _parts(node, lines, prepared.removed) > MAX_STRING_PARTS]
    if not long_literals:
        return None
    _elide(lines, long_literals, prepared.removed)
    return LibcstText("".join(lines), prepared.removed, elided=True)


def parse_for_libcst(text: str, prepared: LibcstText, gate: Gate) -> tuple[cst.Module, LibcstText] | Unanalysable:
    """libcst's module of ``prepared`` (made from ``text``), and the text it is of. When
    libcst refuses what CPython accepted, string literals of very many parts are elided and
    it is tried once more."""
    import libcst as cst

    try:
        return cst.parse_module(prepared.text), prepared
    except cst.ParserSyntaxError as error:
        retry = elide_strings(prepared, gate.tree or ast.parse(text)) if gate.accepted else None
        if retry is None:
            return _refused(gate, error)
        try:
            return cst.parse_module(retry.text), retry
        except cst.ParserSyntaxError:
            return _refused(gate, error)


def _refused(gate: Gate, error: Exception) -> Unanalysable:
    if not gate.accepted:
        return syntax_error(gate, error)
    message = str(getattr(error, "message", error)).strip().splitlines()[0]
    return Unanalysable(
        f"libcst cannot parse this file, which CPython accepts ({message}); it was not checked. "
        "Please report the file's shape to aigcheck"
    )


def _lines(text: str) -> list[str]:
    """The lines of ``text`` with their ends, as Python numbers them: unlike
    ``str.splitlines``, a form feed does not end a line."""
    return _LINE.findall(text)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _strip_form_feeds(lines: list[str], tree: ast.Module) -> dict[int, str]:
    """Take off each line's indentation up to its last form feed, except on lines that
    begin inside a string; returns what was taken, per line."""
    in_strings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno and node.end_lineno > node.lineno:
            in_strings.update(range(node.lineno + 1, node.end_lineno + 1))
    removed: dict[int, str] = {}
    for number, line in enumerate(lines, start=1):
        indentation = line[: len(line) - len(line.lstrip(" \t\f"))]
        cut = indentation.rfind("\f") + 1
        if cut and number not in in_strings:
            removed[number] = line[:cut]
            lines[number - 1] = line[cut:]
    return removed


def _elide(lines: list[str], nodes: Iterable[ast.expr], removed: Mapping[int, str]) -> None:
    """Replace each node's text by the placeholder, keeping lines and columns."""
    _replace(lines, nodes, (), removed)


def _replace(
    lines: list[str], elided: Iterable[ast.expr], summarised: Iterable[ast.expr], removed: Mapping[int, str]
) -> tuple[tuple[str, str], ...]:
    """Replace the text of each of ``elided`` by the placeholder, and of each of
    ``summarised`` by a display of one constant (``_SUMMARIES``), keeping lines and columns.
    The last first, so that CPython's offsets of the earlier ones on a line still hold.
    Returns the (summary, own text) pairs of the literals summarised, in order."""
    literals = {id(node) for node in summarised}
    done: list[tuple[str, str]] = []
    for node in reversed(_outermost([*elided, *summarised])):
        first, last = node.lineno, node.end_lineno or node.lineno
        start = _column(lines[first - 1], node.col_offset, removed.get(first, ""))
        end = _column(lines[last - 1], node.end_col_offset or 0, removed.get(last, ""))
        span = "".join(lines[first - 1 : last])
        tail = len(span) - len(lines[last - 1]) + end
        own = span[start:tail]
        blank = "".join(character if character in "\r\n" else " " for character in own)
        if id(node) not in literals:
            text = f"({PLACEHOLDER}" + blank[len(PLACEHOLDER) + 2 :] + ")"
        else:
            opening, element, closing = _SUMMARIES[type(node)]
            room = blank.find(" " * len(element), 1, len(blank) - 1)
            if room < 0:
                continue  # no line of it has room (never, for so many elements)
            text = opening + blank[1:room] + element + blank[room + len(element) : -1] + closing
            done.append((text, own))
        lines[first - 1 : last] = _lines(span[:start] + text + span[tail:])
    return tuple(reversed(done))


def _data_literals(tree: ast.Module) -> list[ast.expr]:
    """The outermost displays of more than ``MAX_LITERAL_ELEMENTS`` constants and nothing
    else, whose kind one constant keeps: a tuple only of constants (one holding a list is
    of no known kind), and not the value of an assignment that unpacks it element by
    element (``a, b = 1, 2``), nor a subscript's (``Literal["a", "b"]``)."""
    found: list[ast.expr] = []
    pending: list[ast.AST] = [tree]
    kept: set[int] = set()  # displays whose elements matter one by one
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Assign) and any(isinstance(target, (ast.Tuple, ast.List)) for target in node.targets):
            kept.add(id(node.value))
        elif isinstance(node, ast.Subscript):
            kept.add(id(node.slice))
        elif isinstance(node, ast.JoinedStr):
            continue  # (CPython 3.11 does not always place what is inside an f-string right)
        elif isinstance(node, _SUMMARISED) and id(node) not in kept:
            constants = _constants(node)
            if constants is not None and constants[0] > MAX_LITERAL_ELEMENTS:
                if constants[1] or not isinstance(node, ast.Tuple):
                    found.append(node)
                    continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def _constants(node: ast.expr) -> tuple[int, bool] | None:
    """How many constants a literal of nothing else holds, and whether it is immutable (no
    list, set or dict in it); None when it holds anything else."""
    if isinstance(node, ast.Constant):
        return 1, True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return (1, True) if isinstance(node.operand, ast.Constant) else None
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            return None  # ``**spread``
        elements: list[ast.expr] = [*node.keys, *node.values]  # type: ignore[list-item]
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        elements = node.elts
    else:
        return None
    count, immutable = 0, isinstance(node, ast.Tuple)
    for element in elements:
        inner = _constants(element)
        if inner is None:
            return None
        count, immutable = count + inner[0], immutable and inner[1]
    return count, immutable


def _inside(node: ast.expr, outer: ast.expr) -> bool:
    start, end = (node.lineno, node.col_offset), (node.end_lineno or 0, node.end_col_offset or 0)
    return (outer.lineno, outer.col_offset) <= start and end <= (outer.end_lineno or 0, outer.end_col_offset or 0)


def _outermost(nodes: Iterable[ast.expr]) -> list[ast.expr]:
    """The nodes not inside another of them, in the order of the text."""
    kept: list[ast.expr] = []
    for node in sorted(nodes, key=lambda node: (node.lineno, node.col_offset)):
        if kept and (node.lineno, node.col_offset) < (kept[-1].end_lineno or 0, kept[-1].end_col_offset or 0):
            continue
        kept.append(node)
    return kept


def _column(line: str, byte_offset: int, removed: str) -> int:
    """CPython's UTF-8 byte offset on the original line as a character index of ``line``."""
    original = removed + line
    return len(original.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) - len(removed)


def _parts(node: ast.expr, lines: list[str], removed: Mapping[int, str]) -> int:
    """How many string tokens make up the literal ``node`` (0 for one too short to matter)."""
    first, last = node.lineno, node.end_lineno or node.lineno
    if last == first and (node.end_col_offset or 0) - node.col_offset < 2 * MAX_STRING_PARTS:
        return 0
    start = _column(lines[first - 1], node.col_offset, removed.get(first, ""))
    end = _column(lines[last - 1], node.end_col_offset or 0, removed.get(last, ""))
    segment = "".join(lines[first - 1 : last])
    segment = segment[start : len(segment) - len(lines[last - 1]) + end]
    if len(segment) < 2 * MAX_STRING_PARTS:
        return 0
    try:
        tokens = tokenize.generate_tokens(io.StringIO(f"({segment})").readline)
        return sum(1 for token in tokens if token.type == tokenize.STRING or token.type == _FSTRING_START)
    except (tokenize.TokenError, SyntaxError):
        return 0


_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
