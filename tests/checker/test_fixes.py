"""Fixes (AIG407): rewritten only when asked, and only where the rewrite is safe."""

from __future__ import annotations

import textwrap

from checker.api import check_source, default_rules

RULES = default_rules()


def fix(source: str) -> tuple[str | None, list[str]]:
    report = check_source(textwrap.dedent(source).encode(), "m.py", rules=RULES, fix=True)
    return report.fixed_source, [finding.code for finding in report.findings]


def test_attribute_and_alias_spellings_are_rewritten() -> None:
    fixed, remaining = fix(
        """
        import torch

        fast = torch._dynamo.allow_in_graph

        @torch._dynamo.allow_in_graph
        def f(x):
            return x  # keep this comment
        """
    )
    assert fixed == textwrap.dedent(
        """
        import torch

        fast = torch.compiler.allow_in_graph

        @torch.compiler.allow_in_graph
        def f(x):
            return x  # keep this comment
        """
    )
    assert "AIG407" not in remaining


def test_single_name_import_is_rewritten_keeping_its_alias() -> None:
    fixed, _ = fix("from torch._dynamo import allow_in_graph as aig\n\n@aig\ndef f(x):\n    return x\n")
    assert fixed == "from torch.compiler import allow_in_graph as aig\n\n@aig\ndef f(x):\n    return x\n"


def test_unsafe_spellings_are_reported_not_rewritten() -> None:
    fixed, remaining = fix(
        """
        import torch._dynamo as dynamo
        from torch._dynamo import allow_in_graph, disable

        @dynamo.allow_in_graph
        def f(x):
            return x

        @allow_in_graph
        def g(x):
            return x
        """
    )
    assert fixed is None
    assert remaining.count("AIG407") == 2


def test_without_fix_nothing_is_rewritten() -> None:
    report = check_source(b"import torch\ntorch._dynamo.allow_in_graph(len)\n", "m.py", rules=RULES)
    assert report.fixed_source is None
    assert [finding.code for finding in report.findings] == ["AIG407"]


def test_noqa_wins_over_fix() -> None:
    fixed, remaining = fix("import torch\n\n@torch._dynamo.allow_in_graph  # noqa: AIG407\ndef f(x):\n    return x\n")
    assert fixed is None and remaining == []


def test_fixed_source_keeps_the_file_encoding() -> None:
    latin = "# -*- coding: latin-1 -*-\n# café\nimport torch\ntorch._dynamo.allow_in_graph(len)\n".encode("latin-1")
    report = check_source(latin, "m.py", rules=RULES, fix=True)
    assert report.encoding == "iso-8859-1"
    assert report.fixed_source is not None
    assert report.fixed_source.encode(report.encoding).startswith(latin[:36])
    bom = b"\xef\xbb\xbfimport torch\ntorch._dynamo.allow_in_graph(len)\n"
    report = check_source(bom, "m.py", rules=RULES, fix=True)
    assert report.fixed_source is not None
    assert report.fixed_source.encode(report.encoding).startswith(b"\xef\xbb\xbfimport torch\ntorch.compiler.")
