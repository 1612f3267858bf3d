"""Baselines: written from one run, they hide those findings (by fingerprint) in later runs."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from test_reporters import finding

from checker.api import check_source, default_rules
from checker.command.baseline import Baseline, BaselineError, load_baseline, write_baseline
from checker.spec.findings import Finding

RULES = default_rules()

LEGACY = """import torch

W = torch.ones(4)
B = torch.zeros(4)

@torch.compiler.allow_in_graph
def affine(x):
    return x * W + B
"""


def check(source: str, path: str = "legacy.py") -> list[Finding]:
    report = check_source(source.encode(), path, rules=RULES)
    assert report.internal_error is None, report.internal_error
    return list(report.findings)


def fingerprinted(*fingerprints: str) -> list[Finding]:
    return [replace(finding(line=n), fingerprint=fp) for n, fp in enumerate(fingerprints, 1)]


class TestAdoption:
    """A legacy file adopts the baseline; only what is added later is reported."""

    def test_hidden_after_lines_are_inserted_and_new_violation_reported(self, tmp_path: Path) -> None:
        baseline_file = tmp_path / "aigcheck-baseline.json"
        before = check(LEGACY)
        assert [f.code for f in before] == ["AIG301", "AIG301"]
        write_baseline(baseline_file, before)
        baseline = load_baseline(baseline_file)

        assert baseline.split(check(LEGACY)) == ([], before)

        edited = LEGACY.replace("import torch\n", "import torch\nimport math\n\n# weights\n")
        edited = edited.replace("def affine(x):\n", "def affine(x):\n    # scaled\n")
        after = check(edited)
        assert [f.line for f in after] != [f.line for f in before]
        new, known = baseline.split(after)
        assert new == [] and len(known) == 2

        added = edited + "\n\n@torch.compiler.allow_in_graph\ndef shift(x):\n    return x + B\n"
        new, known = baseline.split(check(added))
        assert [(f.code, f.line) for f in new] == [("AIG301", added.splitlines().index("    return x + B") + 1)]
        assert len(known) == 2

    def test_editing_a_known_line_makes_its_findings_new(self, tmp_path: Path) -> None:
        write_baseline(tmp_path / "b.json", check(LEGACY))
        edited = LEGACY.replace("return x * W + B", "return x * W + B + x * W")
        new, known = load_baseline(tmp_path / "b.json").split(check(edited))
        # The fingerprint hashes the offending line's text: a changed line is reviewed again.
        assert len(new) == 3 and known == []

    def test_the_same_file_under_another_path_is_not_known(self, tmp_path: Path) -> None:
        write_baseline(tmp_path / "b.json", check(LEGACY))
        new, known = load_baseline(tmp_path / "b.json").split(check(LEGACY, "moved.py"))
        assert len(new) == 2 and known == []


class TestSplit:
    def test_matching_is_a_multiset(self) -> None:
        baseline = _baseline_of("a", "a", "b")
        findings = fingerprinted("a", "a", "a", "b", "c")
        new, known = baseline.split(findings)
        assert [f.fingerprint for f in known] == ["a", "a", "b"]
        assert [f.fingerprint for f in new] == ["a", "c"]

    def test_split_keeps_input_order_and_does_not_consume_the_baseline(self) -> None:
        baseline = _baseline_of("b")
        findings = fingerprinted("c", "b", "a")
        assert baseline.split(findings) == ([findings[0], findings[2]], [findings[1]])
        assert baseline.split(findings) == ([findings[0], findings[2]], [findings[1]])

    def test_a_finding_without_fingerprint_is_always_new(self) -> None:
        assert _baseline_of("x").split([finding()]) == ([finding()], [])

    def test_empty_baseline_hides_nothing(self) -> None:
        findings = fingerprinted("a")
        assert Baseline().split(findings) == (findings, [])
        assert len(Baseline()) == 0


def _baseline_of(*fingerprints: str) -> Baseline:
    return Baseline(Counter(fingerprints))


class TestFile:
    def test_format(self, tmp_path: Path) -> None:
        path = tmp_path / "b.json"
        findings = [
            replace(finding("pkg/b.py", 9, message="second."), fingerprint="f2"),
            replace(finding("pkg/a.py", 3, message="first."), fingerprint="f1"),
        ]
        write_baseline(path, findings)
        text = path.read_text(encoding="utf-8")
        assert text.endswith("}\n")
        assert json.loads(text) == {
            "version": 1,
            "tool": "aigcheck",
            "findings": [
                {"fingerprint": "f1", "code": "AIG301", "path": "pkg/a.py", "line": 3, "message": "first."},
                {"fingerprint": "f2", "code": "AIG301", "path": "pkg/b.py", "line": 9, "message": "second."},
            ],
        }

    def test_writing_is_deterministic(self, tmp_path: Path) -> None:
        findings = fingerprinted("a", "b", "c")
        write_baseline(tmp_path / "1.json", findings)
        write_baseline(tmp_path / "2.json", list(reversed(findings)))
        assert (tmp_path / "1.json").read_bytes() == (tmp_path / "2.json").read_bytes()

    def test_round_trip(self, tmp_path: Path) -> None:
        findings = fingerprinted("a", "a", "b")
        write_baseline(tmp_path / "b.json", findings)
        baseline = load_baseline(tmp_path / "b.json")
        assert len(baseline) == 3
        assert baseline.split(findings) == ([], findings)

    def test_an_empty_run_writes_an_empty_baseline(self, tmp_path: Path) -> None:
        write_baseline(tmp_path / "b.json", [])
        assert len(load_baseline(tmp_path / "b.json")) == 0

    def test_paths_that_are_not_valid_unicode_round_trip(self, tmp_path: Path) -> None:
        findings = [replace(finding("\udcff.py"), fingerprint="a")]
        write_baseline(tmp_path / "b.json", findings)
        (tmp_path / "b.json").read_text(encoding="ascii")
        assert load_baseline(tmp_path / "b.json").split(findings) == ([], findings)

    def test_a_finding_without_fingerprint_cannot_be_written(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="pkg/a.py:1: AIG301 has no fingerprint"):
            write_baseline(tmp_path / "b.json", [finding()])
        assert not (tmp_path / "b.json").exists()


class TestLoadErrors:
    def test_missing_file(self, tmp_path: Path) -> None:
        with pytest.raises(
            BaselineError, match=r"baseline .*nope\.json: no such file \(create it with --write-baseline\)"
        ):
            load_baseline(tmp_path / "nope.json")

    def test_a_directory(self, tmp_path: Path) -> None:
        with pytest.raises(BaselineError, match="cannot read it"):
            load_baseline(tmp_path)

    def test_not_utf8(self, tmp_path: Path) -> None:
        (tmp_path / "b.json").write_bytes(b"\xff\xfe{}")
        with pytest.raises(BaselineError, match="cannot read it"):
            load_baseline(tmp_path / "b.json")

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            pytest.param("", "not valid JSON", id="empty"),
            pytest.param("{'version': 1}", "not valid JSON", id="not-json"),
            pytest.param("[]", "not an aigcheck baseline", id="an-array"),
            pytest.param('{"version": 1, "findings": []}', "not an aigcheck baseline", id="no-tool"),
            pytest.param('{"version": 1, "tool": "ruff", "findings": []}', "not an aigcheck baseline", id="other-tool"),
            pytest.param('{"tool": "aigcheck", "findings": []}', "not an aigcheck baseline", id="no-version"),
            pytest.param(
                '{"version": 2, "tool": "aigcheck", "findings": []}',
                "version 2 is not supported (this aigcheck reads version 1)",
                id="newer-version",
            ),
            pytest.param('{"version": true, "tool": "aigcheck", "findings": []}', "version True", id="bool-version"),
            pytest.param('{"version": 1, "tool": "aigcheck"}', "'findings' must be a list", id="no-findings"),
            pytest.param('{"version": 1, "tool": "aigcheck", "findings": {}}', "'findings' must be a list", id="dict"),
            pytest.param(
                '{"version": 1, "tool": "aigcheck", "findings": [{"fingerprint": "a"}, {"code": "AIG301"}]}',
                "finding 2 has no 'fingerprint' string",
                id="entry-without-fingerprint",
            ),
            pytest.param(
                '{"version": 1, "tool": "aigcheck", "findings": [{"fingerprint": 7}]}',
                "finding 1 has no 'fingerprint' string",
                id="fingerprint-not-a-string",
            ),
            pytest.param(
                '{"version": 1, "tool": "aigcheck", "findings": ["abc"]}',
                "finding 1 has no 'fingerprint' string",
                id="entry-not-an-object",
            ),
        ],
    )
    def test_invalid_content(self, tmp_path: Path, content: str, message: str) -> None:
        path = tmp_path / "b.json"
        path.write_text(content, encoding="utf-8")
        with pytest.raises(BaselineError) as raised:
            load_baseline(path)
        assert str(raised.value).startswith(f"baseline {path}: ")
        assert message in str(raised.value)
