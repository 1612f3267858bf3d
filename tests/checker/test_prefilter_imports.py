"""``Prefilter.imports``: a file is a candidate when an import names a function the project
registers. The substring shortcut taken for a few names must answer as the import scan does."""

import pytest

from checker.reading.source import Prefilter

NAMES = ("fused_op", "scale")
#: More names than are searched one by one: the import scan alone answers.
MANY = (*NAMES, *(f"absent_{i}" for i in range(12)))

CASES = [
    (b"from pkg.ops import fused_op\n", True),
    (b"from pkg.ops import (\n    other,\n    fused_op,\n)\n", True),
    (b"import pkg.scale as s\n", True),
    (b"from pkg.ops import fused_op_v2\n", False),  # a longer name is another name
    (b"x = fused_op(1)\nimport os\n", False),  # spelled, but no import names it
    (b"import os\n", False),
    (b"", False),
    (b"'''import fused_op'''\n", True),  # generous: a match in a string counts too
]


@pytest.mark.parametrize(("data", "expected"), CASES)
@pytest.mark.parametrize("names", [NAMES, MANY], ids=["few", "many"])
def test_an_import_of_a_registered_name_makes_a_candidate(data: bytes, expected: bool, names: tuple[str, ...]) -> None:
    assert Prefilter(imported=names).imports(data) is expected


def test_no_imported_names_no_candidate() -> None:
    assert Prefilter().imports(b"from pkg.ops import fused_op\n") is False
