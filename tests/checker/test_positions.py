"""checker/reading/positions.py gives exactly libcst's PositionProvider spans, for every node."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from checker.reading.positions import _locate_by_token_counts, _locate_with_provider, locate

ROOT = Path(__file__).resolve().parents[2]

TRICKY = {
    "crlf": "import torch\r\n\r\n@torch.compiler.allow_in_graph\r\ndef f(x):\r\n    return x * 2\r\n",
    "no-final-newline": "def f(x):\n    return (x +\n            1)",
    "tabs-and-unicode": "def f(x):\n\tπ = 'é'  # ü\n\treturn x, π\n",
    "semicolons-and-continuation": "a = 1; b = 2\nc = a + \\\n    b\nif a: d = [\n  1,\n]\n",
    "decorators-and-comments": "# lead\n\n@a\n# between\n@b.c(1)\nclass K:\n    '''doc'''\n\n    def m(self): return 1\n",
    "empty": "",
}


def _all_nodes(module: cst.Module) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(Collect())
    return nodes


def _sources() -> list[tuple[str, str]]:
    files = sorted((ROOT / "fixtures").rglob("*.py")) + [ROOT / "checker" / "reading" / "positions.py"]
    found = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in files]
    return [(name, source) for name, source in found if "broken" not in name] + sorted(TRICKY.items())


@pytest.mark.parametrize(("name", "source"), _sources(), ids=[name for name, _ in _sources()])
def test_spans_equal_position_provider_on_every_node(name: str, source: str) -> None:
    module = cst.parse_module(source)
    nodes = _all_nodes(module)
    assert _locate_by_token_counts(module, nodes) == _locate_with_provider(module, nodes)


@pytest.mark.parametrize("step", [3, 50])
def test_a_few_wanted_nodes_get_the_same_spans(step: int) -> None:
    # Code generation stops at the last wanted node; the spans must not change.
    source = (ROOT / "fixtures" / "bad" / "kernels.py").read_text(encoding="utf-8")
    module = cst.parse_module(source)
    nodes = _all_nodes(module)[step // 2 :: step]
    assert _locate_by_token_counts(module, nodes) == _locate_with_provider(module, nodes)


def test_falls_back_to_the_provider_when_libcst_internals_change(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst._nodes.internal as internal

    monkeypatch.delattr(internal, "CodegenState")
    module = cst.parse_module("x = 1\ny = x\n")
    name = module.body[1].body[0].value  # type: ignore[attr-defined]
    assert locate(module, [name]) == {name: ((2, 5), (2, 6))}
