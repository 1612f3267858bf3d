"""The ``sarif`` reporter: SARIF 2.1.0 that the official schema accepts and code scanning reads.

The schema is OASIS's own file, kept in ``tests/data`` (see the README there). The
golden file is rewritten with ``AIGCHECK_UPDATE_GOLDEN=1`` (see ``test_reporters.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from test_reporters import FINDINGS, check_golden, finding

from checker import __version__
from checker.api import check_source
from checker.output import docs
from checker.output.reporters import REPORTERS, ordered
from checker.output.reporters import sarif as sarif_reporter
from checker.rules import ALL_RULES, RULES_BY_CODE, Rule
from checker.spec.findings import Finding, Severity

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
# The schema declares draft-04; validate with that draft's rules, not the library's default.
VALIDATOR = jsonschema.Draft4Validator(SCHEMA)

#: The reporter fixtures, each with a fingerprint as the engine would set it.
FINGERPRINTED = [replace(f, fingerprint=f"{n:032x}") for n, f in enumerate(FINDINGS, 1)]


class GoldenTensor(Rule):
    """A registered function reads a tensor that is not an argument.

    ## What it does
    Reports a read of a captured `torch.Tensor`.

    ## Example
    ```python
    import torch

    w = torch.ones(2)

    @torch.compiler.allow_in_graph
    def f(x):
        return x * w  # AIG301
    ```
    """

    code = "AIG301"
    name = "captured-tensor"
    severity = Severity.ERROR
    summary = "A registered function reads a tensor that is not an argument."


class GoldenParse(Rule):
    """The file cannot be parsed."""

    code = "AIG900"
    name = "parse-error"
    severity = Severity.ERROR
    summary = "The file cannot be read or parsed."


class GoldenOff(Rule):
    """An info rule that is off by default."""

    code = "AIG105"
    name = "undocumented-parameter-type"
    severity = Severity.INFO
    summary = "Off by default."
    default_enabled = False


# Stand-ins for the registry, so that the golden file does not change with every edit
# of a rule's documentation; the real descriptors are tested against the rules below.
GOLDEN_RULES = [GoldenTensor, GoldenParse, GoldenOff]


def render(findings: list[Finding]) -> dict[str, Any]:
    return json.loads(sarif_reporter.render(findings))


def assert_valid(log: dict[str, Any]) -> None:
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_registry_maps_sarif() -> None:
    assert REPORTERS["sarif"] is sarif_reporter.render


def test_the_schema_is_the_official_one() -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    assert SCHEMA["id"] == sarif_reporter.SCHEMA_URI
    assert SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"


def test_golden() -> None:
    check_golden("findings.sarif", sarif_reporter.dumps(sarif_reporter.sarif_log(FINGERPRINTED, GOLDEN_RULES)))


def test_render_describes_the_registry() -> None:
    expected = sarif_reporter.dumps(sarif_reporter.sarif_log(FINGERPRINTED, ALL_RULES))
    assert sarif_reporter.render(FINGERPRINTED) == expected


class TestSchema:
    @pytest.mark.parametrize(
        "findings",
        [
            pytest.param([], id="no-findings"),
            pytest.param(FINGERPRINTED, id="fixtures"),
            pytest.param(FINDINGS, id="without-fingerprints"),
            pytest.param([finding("/abs/dir/m.py", 3, 5, end=(6, 2))], id="absolute-path-multi-line"),
            pytest.param([finding("C:\\src\\m.py", 1, 1, end=(1, 1))], id="windows-path-empty-span"),
            pytest.param([finding("d i r/\u00e9:\udcff.py", 2, 3, end=(2, 4))], id="odd-file-name"),
        ],
    )
    def test_output_is_valid_sarif(self, findings: list[Finding]) -> None:
        assert_valid(render(findings))

    def test_real_findings_of_every_rule_are_valid(self) -> None:
        rules = [rule() for rule in ALL_RULES]
        findings = []
        for rule in ALL_RULES:
            for number, source in enumerate(rule.all_examples()[0], 1):
                findings += check_source(source.encode(), f"examples/{rule.code}_{number}.py", rules=rules).findings
        assert {f.code for f in findings} >= {rule.code for rule in ALL_RULES if rule.default_enabled} - {"AIG900"}
        log = render(findings)
        assert_valid(log)
        assert len(log["runs"][0]["results"]) == len(findings)
        assert all("partialFingerprints" in result for result in log["runs"][0]["results"])

    def test_an_invalid_log_is_caught(self) -> None:
        # The validator is not vacuous: a region starting at line 0 is refused.
        log = render(FINGERPRINTED)
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
        assert list(VALIDATOR.iter_errors(log))


class TestDriver:
    def test_tool(self) -> None:
        log = render([])
        assert log["$schema"] == sarif_reporter.SCHEMA_URI
        assert log["version"] == "2.1.0"
        (run,) = log["runs"]
        driver = run["tool"]["driver"]
        assert (driver["name"], driver["version"]) == ("aigcheck", __version__)
        assert driver["informationUri"] == docs.README_URL
        assert run["results"] == []
        assert run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"]

    def test_every_implemented_rule_is_described_even_without_findings(self) -> None:
        rules = render([])["runs"][0]["tool"]["driver"]["rules"]
        assert [r["id"] for r in rules] == sorted(rule.code for rule in ALL_RULES)

    @pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.code for rule in ALL_RULES])
    def test_descriptor_comes_from_the_rule(self, rule: Any) -> None:
        (descriptor,) = [r for r in render([])["runs"][0]["tool"]["driver"]["rules"] if r["id"] == rule.code]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"] == {"text": rule.summary}
        assert descriptor["fullDescription"]["markdown"] == rule.documentation()
        assert descriptor["fullDescription"]["text"] == docs.plain_text(rule.documentation())
        assert "```" not in descriptor["fullDescription"]["text"]
        assert descriptor["help"] == descriptor["fullDescription"]
        assert descriptor["helpUri"] == f"{docs.README_URL}#{docs.anchor(rule)}"
        level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}[rule.severity]
        assert descriptor["defaultConfiguration"] == {"level": level, "enabled": rule.default_enabled}
        assert "allow_in_graph" in descriptor["properties"]["tags"]

    def test_help_uris_are_absolute_and_land_on_a_readme_heading(self) -> None:
        readme = docs.README.read_text(encoding="utf-8")
        for descriptor in render([])["runs"][0]["tool"]["driver"]["rules"]:
            url, _, fragment = descriptor["helpUri"].partition("#")
            assert re.fullmatch(r"https://[^\s#]+", url)
            assert f"\n### {descriptor['id']} {descriptor['name']}\n" in readme
            assert fragment == f"{descriptor['id']} {descriptor['name']}".lower().replace(" ", "-")


class TestResults:
    def test_results_follow_the_findings_in_stable_order(self) -> None:
        results = render(FINGERPRINTED)["runs"][0]["results"]
        assert [(r["ruleId"], r["message"]["text"]) for r in results] == [
            (f.code, f.message) for f in ordered(FINGERPRINTED)
        ]

    def test_input_order_does_not_matter(self) -> None:
        assert sarif_reporter.render(FINGERPRINTED) == sarif_reporter.render(list(reversed(FINGERPRINTED)))

    def test_rule_index_points_at_the_rule(self) -> None:
        run = render(FINGERPRINTED)["runs"][0]
        rules = run["tool"]["driver"]["rules"]
        assert all("ruleIndex" in result for result in run["results"] if result["ruleId"] in RULES_BY_CODE)
        for result in run["results"]:
            if "ruleIndex" in result:
                assert rules[result["ruleIndex"]]["id"] == result["ruleId"]

    def test_a_code_that_is_not_a_rule_has_no_rule_index(self) -> None:
        (result,) = render([finding(code="XYZ123")])["runs"][0]["results"]
        assert result["ruleId"] == "XYZ123"
        assert "ruleIndex" not in result

    @pytest.mark.parametrize(
        ("severity", "level"),
        [(Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "note")],
        ids=["error", "warning", "info-is-note"],
    )
    def test_level(self, severity: Severity, level: str) -> None:
        (result,) = render([finding(severity=severity)])["runs"][0]["results"]
        assert result["level"] == level

    def test_location_and_fingerprint(self) -> None:
        f = replace(finding("./pkg/a.py", 4, 12, end=(5, 3)), fingerprint="ab" * 16)
        (result,) = render([f])["runs"][0]["results"]
        assert result["locations"] == [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": 4, "startColumn": 12, "endLine": 5, "endColumn": 3},
                }
            }
        ]
        assert result["partialFingerprints"] == {"aigcheck/v1": "ab" * 16}

    def test_no_fingerprint_no_partial_fingerprints(self) -> None:
        (result,) = render([finding()])["runs"][0]["results"]
        assert "partialFingerprints" not in result

    @pytest.mark.parametrize(
        ("path", "location"),
        [
            pytest.param("pkg/a.py", {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"}, id="relative"),
            pytest.param("./././pkg/a.py", {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"}, id="dot-slash"),
            pytest.param("pkg\\a.py", {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"}, id="backslashes"),
            pytest.param("my dir/a b.py", {"uri": "my%20dir/a%20b.py", "uriBaseId": "%SRCROOT%"}, id="spaces"),
            pytest.param("a:b#c?.py", {"uri": "a%3Ab%23c%3F.py", "uriBaseId": "%SRCROOT%"}, id="uri-delimiters"),
            pytest.param("\u00e9.py", {"uri": "%C3%A9.py", "uriBaseId": "%SRCROOT%"}, id="non-ascii-as-utf8"),
            pytest.param("\udcff.py", {"uri": "%FF.py", "uriBaseId": "%SRCROOT%"}, id="undecodable-bytes"),
            pytest.param("<stdin>", {"uri": "%3Cstdin%3E", "uriBaseId": "%SRCROOT%"}, id="stdin"),
            pytest.param("/abs/a b.py", {"uri": "file:///abs/a%20b.py"}, id="absolute-posix"),
            pytest.param("C:\\src\\a.py", {"uri": "file:///C:/src/a.py"}, id="absolute-windows"),
            pytest.param("\\\\srv\\share\\a.py", {"uri": "file://srv/share/a.py"}, id="windows-unc"),
        ],
    )
    def test_artifact_location(self, path: str, location: dict[str, str]) -> None:
        assert sarif_reporter.artifact_location(path) == location

    def test_output_is_ascii(self) -> None:
        sarif_reporter.render([finding("\udcff.py", message="reads 'gr\u00f6\u00dfe'.")]).encode("ascii")
