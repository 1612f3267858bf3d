"""``# noqa`` comments: which findings are suppressed on which line."""

from __future__ import annotations

import pytest

from checker.api import FileReport, check_source
from checker.output.noqa import Directive, NoqaIndex
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
        report = check_source(self.SOURCE.format(comment=comment).encode(), "m.py", rules=rules)
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


class TestFileLevel:
    @pytest.mark.parametrize(
        "comment",
        [
            pytest.param("# aigcheck: noqa", id="bare"),
            pytest.param("#aigcheck:noqa", id="no-spaces"),
            pytest.param("# AIGCHECK: NOQA", id="upper-case"),
            pytest.param("# aigcheck: noqa: AIG301", id="code"),
            pytest.param("# aigcheck: noqa: E501, captured-tensor", id="name-among-other-codes"),
            pytest.param("x = 1  # aigcheck: noqa", id="after-code"),
        ],
    )
    def test_suppresses_on_every_line(self, comment: str) -> None:
        index = NoqaIndex.from_text(f"a = 1\n{comment}\nb = 2\n")
        for line in (1, 2, 3, 1000):
            assert index.suppresses(line, CODE, NAME)

    @pytest.mark.parametrize(
        "text",
        [
            pytest.param("# aigcheck: noqa: AIG302\n", id="other-code"),
            pytest.param("s = '# aigcheck: noqa'\n", id="in-a-string"),
            pytest.param("# flake8: noqa\n", id="another-tools-file-directive"),
            pytest.param("# aigcheck: ignore\n", id="not-noqa"),
            pytest.param("# aigcheck: noqa: AIG3\n", id="prefix-is-not-a-code"),
        ],
    )
    def test_not_suppressed(self, text: str) -> None:
        assert not NoqaIndex.from_text(text).suppresses(1, CODE, NAME)

    def test_several_directives_add_up(self) -> None:
        index = NoqaIndex.from_text("# aigcheck: noqa: AIG301\nx = 1\n# aigcheck: noqa: AIG302\n")
        assert index.file_wide == {"aig301", "aig302"}
        assert index.suppresses(2, "AIG302", "captured-mutable-state")

    def test_a_bare_one_covers_everything(self) -> None:
        assert NoqaIndex.from_text("# aigcheck: noqa: AIG301\n# aigcheck: noqa\n").suppresses(9, "AIG501", "x")

    def test_is_not_a_line_directive(self) -> None:
        assert NoqaIndex.from_text("x = 1  # aigcheck: noqa: AIG301\n").by_line == {}

    def test_directives_record_where_they_are(self) -> None:
        index = NoqaIndex.from_text("x = 1  # noqa: AIG301,E501\n# aigcheck: noqa\ny = 2  # type: int  # noqa\n")
        assert index.directives == (
            Directive(1, 8, ("AIG301", "E501")),
            Directive(2, 1, None, file_level=True),
            Directive(3, 21, None),
        )
        assert [str(d) for d in index.directives] == ["# noqa: AIG301, E501", "# aigcheck: noqa", "# noqa"]


class TestUnused:
    """``--report-unused-noqa``: comments that suppress nothing, through the engine."""

    SOURCE = "import torch\nw = torch.ones(3)\n{header}\n@torch.compiler.allow_in_graph\ndef f(x):{on_def}\n    return x * w{on_read}\n"

    def unused(self, header: str = "", on_def: str = "", on_read: str = "", rules: tuple[str, ...] = ()) -> list[str]:
        chosen = [rule() for rule in ALL_RULES if not rules or rule.code in rules]
        source = self.SOURCE.format(header=header, on_def=on_def, on_read=on_read)
        report = check_source(source.encode(), "m.py", rules=chosen, unused_noqa=True)
        assert report.internal_error is None, report.internal_error
        return [str(unused) for unused in report.unused_noqa]

    @pytest.mark.parametrize(
        ("comments", "expected"),
        [
            pytest.param({"on_read": "  # noqa: AIG301"}, [], id="used-code"),
            pytest.param({"on_read": "  # noqa: captured-tensor"}, [], id="used-name"),
            pytest.param({"on_read": "  # noqa"}, [], id="used-bare"),
            pytest.param({"on_read": "  # noqa: E501, AIG301"}, [], id="other-tools-codes-are-not-judged"),
            pytest.param({"on_def": "  # noqa: E501"}, [], id="only-other-tools-codes"),
            pytest.param(
                {"on_read": "  # noqa: AIG301, AIG302"},
                ["m.py:6:19: unused noqa: AIG302 suppresses nothing on this line ('# noqa: AIG301, AIG302')"],
                id="one-code-of-two",
            ),
            pytest.param(
                {"on_def": "  # noqa: AIG301,captured-mutable-state"},
                [
                    "m.py:5:12: unused noqa: AIG301, captured-mutable-state suppress nothing on this line "
                    "('# noqa: AIG301, captured-mutable-state')"
                ],
                id="codes-on-a-clean-line",
            ),
            pytest.param(
                {"on_def": "  # noqa"},
                ["m.py:5:12: unused noqa: '# noqa' suppresses nothing on this line"],
                id="bare-on-a-clean-line",
            ),
            pytest.param({"header": "# aigcheck: noqa"}, [], id="file-level-used"),
            pytest.param({"header": "# aigcheck: noqa: captured-tensor"}, [], id="file-level-code-used"),
            pytest.param(
                {"header": "# aigcheck: noqa: AIG501"},
                ["m.py:3:1: unused noqa: AIG501 suppresses nothing in this file ('# aigcheck: noqa: AIG501')"],
                id="file-level-code-unused",
            ),
            pytest.param(
                {"header": "# aigcheck: noqa: AIG301", "on_read": "  # noqa: AIG301"},
                [],
                id="line-and-file-both-count-as-used",
            ),
        ],
    )
    def test_reported(self, comments: dict[str, str], expected: list[str]) -> None:
        assert self.unused(**comments) == expected

    def test_a_bare_file_level_comment_in_a_clean_file(self) -> None:
        assert self.unused(header="# aigcheck: noqa", rules=("AIG501",)) == [
            "m.py:3:1: unused noqa: '# aigcheck: noqa' suppresses nothing in this file"
        ]

    def test_codes_of_rules_that_did_not_run_are_not_judged(self) -> None:
        assert self.unused(on_def="  # noqa: AIG302", rules=("AIG301",)) == []

    def test_nothing_is_judged_when_no_rule_ran(self) -> None:
        report = check_source(
            self.SOURCE.format(header="", on_def="  # noqa", on_read="").encode(), "m.py", rules=[], unused_noqa=True
        )
        assert report.unused_noqa == ()

    def test_only_on_request(self) -> None:
        rules = [rule() for rule in ALL_RULES]
        report = check_source(
            self.SOURCE.format(header="", on_def="  # noqa", on_read="").encode(), "m.py", rules=rules
        )
        assert report.unused_noqa == ()
