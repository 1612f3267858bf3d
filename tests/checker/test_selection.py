"""Rule selection: ``--select`` / ``--ignore`` tokens resolved against the registry."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from checker.configuration.selection import (
    DOC_STRICT_CODES,
    Catalogue,
    Layer,
    SelectionError,
    resolve_selection,
    select_rules,
    split_tokens,
)
from checker.rules import ALL_RULES, PLANNED, RULES_BY_CODE, Rule
from checker.spec.findings import Severity


def _rule(code: str, name: str, default_enabled: bool = True) -> type[Rule]:
    """A stand-in rule: selection depends on metadata only, not on what rules check."""

    def check(self: Rule, facts: object) -> Iterator[object]:
        return iter(())

    attributes = {"code": code, "name": name, "severity": Severity.ERROR, "summary": "s", "check": check}
    return type(f"Rule{code}", (Rule,), {**attributes, "default_enabled": default_enabled})


RULES = (
    _rule("AIG900", "parse-error"),
    _rule("AIG301", "captured-tensor"),
    _rule("AIG302", "captured-mutable-state"),
    _rule("AIG401", "recreated-closure"),
)
PLANNED_HERE = {"AIG201": "unproxyable-return", "AIG202": "baked-scalar-return", "AIG407": "private-api"}


def codes(select: list[str] | None = None, ignore: tuple[str, ...] = ()) -> list[str]:
    return [rule.code for rule in select_rules(select, list(ignore), RULES, PLANNED_HERE).rules]


def test_default_is_every_implemented_rule_in_code_order() -> None:
    assert codes() == ["AIG301", "AIG302", "AIG401", "AIG900"]


def test_rules_are_fresh_instances_of_the_registered_classes() -> None:
    selection = select_rules(None, (), RULES, PLANNED_HERE)
    assert sorted(type(rule).__name__ for rule in selection.rules) == sorted(rule.__name__ for rule in RULES)
    assert all(isinstance(rule, Rule) for rule in selection.rules)


@pytest.mark.parametrize(
    ("select", "expected"),
    [
        pytest.param(["AIG301"], ["AIG301"], id="code"),
        pytest.param(["aig301"], ["AIG301"], id="code-lower-case"),
        pytest.param(["captured-tensor"], ["AIG301"], id="name"),
        pytest.param(["Captured-Tensor"], ["AIG301"], id="name-mixed-case"),
        pytest.param(["AIG3"], ["AIG301", "AIG302"], id="family-prefix"),
        pytest.param(["AIG30"], ["AIG301", "AIG302"], id="longer-prefix"),
        pytest.param(["aig"], ["AIG301", "AIG302", "AIG401", "AIG900"], id="everything-prefix"),
        pytest.param(["AIG301,AIG401"], ["AIG301", "AIG401"], id="comma-separated"),
        pytest.param([" AIG301 , recreated-closure ,"], ["AIG301", "AIG401"], id="spaces-and-trailing-comma"),
        pytest.param(["AIG301", "AIG900"], ["AIG301", "AIG900"], id="repeated-option"),
        pytest.param(["AIG301", "captured-tensor", "AIG3"], ["AIG301", "AIG302"], id="overlapping-tokens"),
    ],
)
def test_select(select: list[str], expected: list[str]) -> None:
    assert codes(select) == expected


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        pytest.param(None, ("AIG301",), ["AIG302", "AIG401", "AIG900"], id="ignore-code-from-default"),
        pytest.param(None, ("captured-mutable-state",), ["AIG301", "AIG401", "AIG900"], id="ignore-name"),
        pytest.param(None, ("AIG3,AIG9",), ["AIG401"], id="ignore-prefixes"),
        pytest.param(["AIG3"], ("AIG302",), ["AIG301"], id="ignore-narrows-a-family"),
        pytest.param(["AIG301"], ("AIG3",), [], id="ignore-wins-over-a-more-specific-select"),
        pytest.param(None, ("AIG201",), ["AIG301", "AIG302", "AIG401", "AIG900"], id="ignore-planned-code"),
    ],
)
def test_ignore(select: list[str] | None, ignore: tuple[str, ...], expected: list[str]) -> None:
    assert codes(select, ignore) == expected


@pytest.mark.parametrize(
    ("option", "token"),
    [
        pytest.param("--select", "AIG999", id="select-unknown-code"),
        pytest.param("--select", "captured-tensors", id="select-misspelt-name"),
        pytest.param("--select", "AIG7", id="select-prefix-matching-nothing"),
        pytest.param("--select", "AIG3x", id="select-not-a-prefix"),
        pytest.param("--select", "A", id="select-partial-letters"),
        pytest.param("--ignore", "E501", id="ignore-other-tools-code"),
    ],
)
def test_unknown_tokens_are_usage_errors_listing_the_valid_rules(option: str, token: str) -> None:
    select = [token] if option == "--select" else None
    ignore = (token,) if option == "--ignore" else ()
    with pytest.raises(SelectionError) as raised:
        select_rules(select, ignore, RULES, PLANNED_HERE)
    message = str(raised.value)
    assert message.startswith(f"{option}: unknown rule '{token}'; ")
    for code, name in [("AIG301", "captured-tensor"), ("AIG900", "parse-error")]:
        assert f"{code} ({name})" in message
    assert "AIG201 (unproxyable-return, planned)" in message


def test_an_empty_select_is_an_error_not_a_silent_no_op() -> None:
    with pytest.raises(SelectionError, match="--select was given no codes"):
        select_rules([" , "], (), RULES, PLANNED_HERE)


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("AIG201", id="planned-code"),
        pytest.param("unproxyable-return", id="planned-name"),
        pytest.param("AIG2", id="prefix-of-planned-codes-only"),
    ],
)
def test_planned_rules_are_valid_but_select_nothing_and_say_so(token: str) -> None:
    selection = select_rules([token], (), RULES, PLANNED_HERE)
    assert selection.rules == ()
    assert len(selection.notes) == 1
    assert selection.notes[0].startswith(f"--select {token} names only planned rules (AIG201")
    assert "not implemented yet" in selection.notes[0]


def test_a_prefix_spanning_implemented_and_planned_codes_needs_no_note() -> None:
    selection = select_rules(["AIG4"], (), RULES, PLANNED_HERE)
    assert [rule.code for rule in selection.rules] == ["AIG401"]
    assert selection.notes == ()


def test_a_planned_code_that_is_implemented_counts_as_implemented() -> None:
    selection = select_rules(["AIG301"], (), RULES, {"AIG301": "captured-tensor"})
    assert [rule.code for rule in selection.rules] == ["AIG301"]
    assert selection.notes == ()


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        pytest.param("AIG301", "AIG301", id="code"),
        pytest.param("aig301", "AIG301", id="code-lower-case"),
        pytest.param("captured-tensor", "AIG301", id="name"),
        pytest.param("PRIVATE-API", "AIG407", id="planned-name-upper-case"),
        pytest.param("AIG3", None, id="prefix-is-not-a-rule"),
        pytest.param("nothing", None, id="unknown"),
    ],
)
def test_catalogue_lookup(token: str, expected: str | None) -> None:
    assert Catalogue(RULES, PLANNED_HERE).lookup(token) == expected


def test_split_tokens() -> None:
    assert split_tokens(["a,b", " c ", "", ",d,,"]) == ["a", "b", "c", "d"]


def test_the_real_registry_default_runs_every_rule_on_by_default() -> None:
    selection = select_rules()
    assert [rule.code for rule in selection.rules] == sorted(rule.code for rule in ALL_RULES if rule.default_enabled)
    assert selection.notes == ()


def test_the_real_registry_keeps_aig105_for_doc_strict() -> None:
    assert "AIG105" not in [rule.code for rule in select_rules().rules]
    assert "AIG105" in [rule.code for rule in select_rules(doc_strict=True).rules]
    assert all(RULES_BY_CODE[code].default_enabled is False for code in DOC_STRICT_CODES)


def test_every_real_code_and_name_selects_itself() -> None:
    for rule in ALL_RULES:
        assert [r.code for r in select_rules([rule.code]).rules] == [rule.code]
        assert [r.code for r in select_rules([rule.name.upper()]).rules] == [rule.code]
    for code in PLANNED:
        assert select_rules([code]).rules == () or code in {rule.code for rule in ALL_RULES}


@pytest.mark.parametrize(
    ("select", "extend", "ignore", "expected"),
    [
        pytest.param(None, ["AIG401"], (), ["AIG301", "AIG302", "AIG401", "AIG900"], id="extend-the-default"),
        pytest.param(["AIG301"], ["AIG401"], (), ["AIG301", "AIG401"], id="extend-a-select"),
        pytest.param(["AIG301"], ["AIG3"], ("AIG302",), ["AIG301"], id="ignore-wins-over-extend"),
        pytest.param(["AIG9"], ["AIG201"], (), ["AIG900"], id="extend-with-a-planned-code"),
    ],
)
def test_extend_select(
    select: list[str] | None, extend: list[str], ignore: tuple[str, ...], expected: list[str]
) -> None:
    selection = select_rules(select, ignore, RULES, PLANNED_HERE, extend_select=extend)
    assert [rule.code for rule in selection.rules] == expected


def layered(*layers: Layer, doc_strict: bool = False) -> list[str]:
    return [rule.code for rule in resolve_selection(layers, RULES, PLANNED_HERE, doc_strict=doc_strict).rules]


CONFIG = "pyproject.toml: [tool.aigcheck] "


@pytest.mark.parametrize(
    ("config", "cli", "expected"),
    [
        pytest.param(Layer(["AIG3"], origin=CONFIG), Layer(), ["AIG301", "AIG302"], id="config-alone"),
        pytest.param(Layer(["AIG3"], origin=CONFIG), Layer(["AIG401"]), ["AIG401"], id="cli-select-replaces"),
        pytest.param(
            Layer(["AIG3"], ["AIG900"], ["AIG302"], origin=CONFIG),
            Layer(["AIG3"]),
            ["AIG301", "AIG302"],
            id="cli-select-discards-config-extend-and-ignore",
        ),
        pytest.param(Layer(["AIG3"], origin=CONFIG), Layer(ignore=["AIG302"]), ["AIG301"], id="cli-ignore-narrows"),
        pytest.param(
            Layer(ignore=["AIG3"], origin=CONFIG),
            Layer(extend_select=["AIG301"]),
            ["AIG301", "AIG401", "AIG900"],
            id="cli-extend-brings-back-a-config-ignore",
        ),
        pytest.param(Layer(["AIG4"], origin=CONFIG), Layer(extend_select=["AIG9"]), ["AIG401", "AIG900"], id="adds"),
    ],
)
def test_layers_apply_in_order(config: Layer, cli: Layer, expected: list[str]) -> None:
    assert layered(config, cli) == expected


def test_messages_name_the_layer() -> None:
    with pytest.raises(SelectionError, match=r"^pyproject.toml: \[tool.aigcheck\] ignore: unknown rule 'E501'"):
        layered(Layer(ignore=["E501"], origin=CONFIG))
    with pytest.raises(SelectionError, match=r"^--extend-select: unknown rule 'nope'"):
        layered(Layer(extend_select=["nope"]))
    selection = resolve_selection([Layer(["AIG201"], origin=CONFIG)], RULES, PLANNED_HERE)
    assert selection.notes[0].startswith(f"{CONFIG}select AIG201 names only planned rules")


class TestOffByDefault:
    """AIG105 stands for a doc-strict rule, AIG106 for one that only an exact select runs."""

    RULES = (*RULES, _rule("AIG105", "undocumented-parameter-type", False), _rule("AIG106", "opt-in", False))

    def codes(
        self, select: list[str] | None = None, ignore: tuple[str, ...] = (), doc_strict: bool = False
    ) -> list[str]:
        selection = select_rules(select, ignore, self.RULES, PLANNED_HERE, doc_strict=doc_strict)
        return [rule.code for rule in selection.rules]

    @pytest.mark.parametrize(
        ("select", "doc_strict", "expected"),
        [
            pytest.param(None, False, ["AIG301", "AIG302", "AIG401", "AIG900"], id="not-in-the-default"),
            pytest.param(None, True, ["AIG105", "AIG301", "AIG302", "AIG401", "AIG900"], id="doc-strict-default"),
            pytest.param(["AIG105"], False, ["AIG105"], id="exact-code"),
            pytest.param(["opt-in"], False, ["AIG106"], id="exact-name"),
            pytest.param(["AIG1"], True, ["AIG105"], id="doc-strict-prefix"),
            pytest.param(["AIG"], True, ["AIG105", "AIG301", "AIG302", "AIG401", "AIG900"], id="doc-strict-everything"),
            pytest.param(["AIG", "AIG106"], False, ["AIG106", "AIG301", "AIG302", "AIG401", "AIG900"], id="plus-exact"),
        ],
    )
    def test_selected(self, select: list[str] | None, doc_strict: bool, expected: list[str]) -> None:
        assert self.codes(select, doc_strict=doc_strict) == expected

    @pytest.mark.parametrize(
        ("token", "note"),
        [
            pytest.param(
                "AIG1",
                "--select AIG1 matches only rules that are off by default (AIG105, AIG106); name them exactly to run them",
                id="opt-in-rules",
            ),
            pytest.param(
                "AIG105",
                None,
                id="exact-code-needs-no-note",
            ),
        ],
    )
    def test_a_prefix_does_not_select_them_and_says_so(self, token: str, note: str | None) -> None:
        selection = select_rules([token], (), self.RULES, PLANNED_HERE)
        assert selection.notes == ((note,) if note else ())

    def test_the_note_suggests_doc_strict_when_that_would_do(self) -> None:
        rules = (*RULES, _rule("AIG105", "undocumented-parameter-type", False))
        selection = select_rules(["AIG1"], (), rules, PLANNED_HERE)
        assert selection.rules == ()
        assert selection.notes == (
            "--select AIG1 matches only rules that are off by default (AIG105); "
            "name them exactly or set doc-strict to run them",
        )

    def test_a_prefix_ignores_them(self) -> None:
        assert self.codes(["AIG105", "AIG106", "AIG301"], ("AIG1",)) == ["AIG301"]
