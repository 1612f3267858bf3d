"""``# noqa`` comments: which findings are suppressed on which line."""

from __future__ import annotations

import pytest

from checker.engine import FileReport, check_source
from checker.noqa import NoqaIndex
from checker.rules import ALL_RULES, RULES_BY_CODE

CODE, NAME = "AIG301", "captured-tensor"


def suppresses(line_text: str, code: str = CODE, name: str = NAME) -> bool:
    """Whether a ``# noqa`` on the only line of a source suppresses ``code``/``name``."""
    return NoqaIndex.from_text(line_text + "\n").suppresses(1, code, name)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("y = x * w  # noqa", id="bare"),
        pytest.param("y = x * w  #noqa", id="bare-no-space"),
        pytest.param("y = x * w  # NOQA", id="bare-upper-case"),
        pytest.param("y = x * w  # noqa: AIG301", id="code"),
        pytest.param("y = x * w  # noqa:AIG301", id="code-no-space"),
        pytest.param("y = x * w  # noqa : AIG301", id="space-before-colon"),
        pytest.param("y = x * w  # noqa: aig301", id="code-lower-case"),
        pytest.param("y = x * w  # NoQA: Aig301", id="mixed-case"),
        pytest.param("y = x * w  # noqa: captured-tensor", id="name"),
        pytest.param("y = x * w  # noqa: CAPTURED-TENSOR", id="name-upper-case"),
        pytest.param("y = x * w  # noqa: E501, AIG301", id="after-another-tools-code"),
        pytest.param("y = x * w  # noqa: AIG301,E501,F401", id="before-other-tools-codes"),
        pytest.param("y = x * w  # noqa: E501 captured-tensor B008", id="space-separated-mixed"),
        pytest.param("y = x * w  # type: ignore[misc]  # noqa: AIG301", id="after-another-comment"),
        pytest.param("y = x * w  # noqa: AIG301  explained below", id="trailing-words"),
    ],
)
def test_suppressed(line: str) -> None:
    assert suppresses(line)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("y = x * w", id="no-comment"),
        pytest.param("y = x * w  # a comment", id="other-comment"),
        pytest.param("y = x * w  # noqa: AIG302", id="other-code-of-ours"),
        pytest.param("y = x * w  # noqa: captured-mutable-state", id="other-name-of-ours"),
        pytest.param("y = x * w  # noqa: E501, F401", id="only-other-tools-codes"),
        pytest.param("y = x * w  # noqa: AIG3", id="prefix-is-not-a-code"),
        pytest.param("y = x * w  # noqa: AIG3011", id="longer-code"),
        pytest.param("y = '# noqa'", id="in-a-string"),
        pytest.param('y = f"{x} # noqa"', id="in-an-f-string"),
        pytest.param("y = x * w  # this is not noqa", id="noqa-word-without-hash"),
    ],
)
def test_not_suppressed(line: str) -> None:
    assert not suppresses(line)


def test_applies_only_to_its_own_line() -> None:
    index = NoqaIndex.from_text("a = 1  # noqa: AIG301\nb = 2\nc = 3  # noqa\n")
    assert index.suppresses(1, CODE, NAME)
    assert not index.suppresses(2, CODE, NAME)
    assert index.suppresses(3, "AIG999", "anything")


def test_noqa_inside_a_multi_line_string_is_not_a_suppression() -> None:
    source = 'doc = """\nline  # noqa\n"""\nx = 1\n'
    assert NoqaIndex.from_text(source).by_line == {}


def test_bare_noqa_suppresses_every_code() -> None:
    index = NoqaIndex.from_text("x = 1  # noqa\n")
    for code, name in [("AIG301", "captured-tensor"), ("AIG900", "parse-error"), ("AIG501", "x")]:
        assert index.suppresses(1, code, name)


def test_codes_are_stored_lower_case() -> None:
    assert NoqaIndex.from_text("x = 1  # noqa: AIG301, Captured-Tensor\n").by_line == {
        1: frozenset({"aig301", "captured-tensor"})
    }


def test_python_3_12_syntax_is_still_read() -> None:
    # tokenize on 3.11 accepts these; the comment is found either way.
    source = "type X = int  # noqa: AIG301\ndef f[T](x: T): ...  # noqa\n"
    index = NoqaIndex.from_text(source)
    assert index.suppresses(1, CODE, NAME)
    assert index.suppresses(2, "AIG502", "data-dependent-python")


def test_untokenizable_text_falls_back_to_lines() -> None:
    # An unterminated string stops tokenize; comments on other lines still count.
    index = NoqaIndex.from_text("x = 1  # noqa: AIG301\ny = '''\n")
    assert index.suppresses(1, CODE, NAME)


class TestThroughTheEngine:
    """Suppression of a real rule's finding; skipped while AIG301 is not registered."""

    SOURCE = "import torch\nw = torch.ones(3)\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * w{comment}\n"

    @pytest.fixture(autouse=True)
    def _needs_aig301(self) -> None:
        if "AIG301" not in RULES_BY_CODE:
            pytest.skip("AIG301 captured-tensor is not registered")

    def report(self, comment: str) -> FileReport:
        rules = [rule() for rule in ALL_RULES]
        report = check_source(self.SOURCE.format(comment=comment).encode(), "m.py", rules)
        assert report.internal_error is None, report.internal_error
        return report

    def test_reported_without_a_comment(self) -> None:
        report = self.report("")
        assert [(f.code, f.line) for f in report.findings] == [("AIG301", 6)]
        assert report.suppressed == 0

    @pytest.mark.parametrize(
        "comment",
        [
            pytest.param("  # noqa", id="bare"),
            pytest.param("  # noqa: AIG301", id="code"),
            pytest.param("  # noqa: captured-tensor", id="name"),
            pytest.param("  # NOQA: E501,aig301", id="mixed-with-other-tools"),
        ],
    )
    def test_suppressed(self, comment: str) -> None:
        report = self.report(comment)
        assert report.findings == ()
        assert report.suppressed == 1

    @pytest.mark.parametrize(
        "comment",
        [
            pytest.param("  # noqa: AIG302", id="other-code"),
            pytest.param("  # noqa: E501", id="other-tool-only"),
            pytest.param("; s = '# noqa'", id="in-a-string-on-the-line"),
        ],
    )
    def test_not_suppressed(self, comment: str) -> None:
        report = self.report(comment)
        assert [f.code for f in report.findings] == ["AIG301"]
        assert report.suppressed == 0
