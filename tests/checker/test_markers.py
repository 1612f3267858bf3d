"""Markers: the findings a line expects, written in its comment."""

from __future__ import annotations

from checker.spec.markers import expected


def test_codes_in_a_comment_are_expected_findings() -> None:
    assert expected("x = W * 2  # AIG301 AIG301\ny = 1  # AIG302\n") == {(1, "AIG301"): 2, (2, "AIG302"): 1}


def test_suppressions_name_codes_without_expecting_them() -> None:
    source = "# aigcheck: noqa: AIG301\nx = W  # noqa: AIG301\ny = 2  # NOQA AIG302\n"
    assert expected(source) == {}
