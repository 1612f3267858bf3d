"""The text tier's registrations are read at the lines that spell the registrar word only;
they must be exactly those a search of the whole text finds (the patterns' matches begin on
such a line, and never overlap)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from checker.index import reverse_scan
from checker.index.reverse_scan import _CALLED, _DECORATED, _LISTED, _registrations, registered_in

TEXTS = [
    b"import torch\ntorch.compiler.allow_in_graph(f)\n",
    b"@torch.compiler.allow_in_graph\n@allow_in_graph\ndef f(x):\n    return x\n",  # two decorators, one def
    b"@allow_in_graph\n@other\n@allow_in_graph(strict=True)\nasync def g(x): ...\n",
    b"x = 1\n  y = allow_in_graph(h)\nfns = torch._dynamo.allow_in_graph([a, b.c, d])\n",
    b"allow_in_graph(f); allow_in_graph(g)\n",  # two on one line
    b"allow_in_graph(\n    f)\nallow_in_graph([\n    f,\n    g,\n])\n",
    b"if cond:\n\tmy_allow_in_graph_helper(k)\r\n",
    b"s = 'allow_in_graph'\n# allow_in_graph(f)\n",
    b"allow_in_graph",  # no newline at all
    b"\n\n@allow_in_graph\n\ndef spaced(x): ...\n",
    b"",
]


def _whole_text(data: bytes) -> Iterator[tuple[int, int, str, list[str]]]:
    """What the registrations were when each pattern searched the whole text."""
    for match in (*_CALLED.finditer(data), *_DECORATED.finditer(data)):
        registrar, name = (group.decode() for group in match.groups())
        yield match.start(), match.end(), registrar, [name]
    for match in _LISTED.finditer(data):
        elements = (element.strip() for element in match.group(2).split(b","))
        yield (
            match.start(),
            match.end(),
            match.group(1).decode(),
            [e.decode() for e in elements if re.fullmatch(rb"[A-Za-z_]\w*", e)],
        )


def _found(data: bytes) -> list[tuple[int, int, str, list[str]]]:
    return [(match.start(), match.end(), registrar, names) for match, registrar, names in _registrations(data)]


@pytest.mark.parametrize("data", TEXTS)
def test_the_lines_spelling_the_word_give_what_the_whole_text_gives(data: bytes) -> None:
    assert _found(data) == list(_whole_text(data))


def test_torch_registration_files_give_what_the_whole_text_gives() -> None:
    torch = pytest.importorskip("torch")
    files = [path for path in Path(torch.__file__).parent.rglob("*.py") if b"allow_in_graph" in path.read_bytes()]
    assert len(files) > 10
    for path in files:
        data = path.read_bytes()
        assert _found(data) == list(_whole_text(data)), path


def test_registered_names_are_found() -> None:
    assert registered_in(TEXTS[3]) == {"h", "a", "d"}
    assert reverse_scan._lines_spelling_the_word(b"a\nallow_in_graph allow_in_graph\nb allow_in_graph") == [2, 32]
