"""The message types: one per sentence, for every code of the table, standard library only."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from checker.spec.catalog import BY_CODE
from checker.spec.links import Place
from checker.spec.messages import (
    MESSAGES,
    Call,
    Function,
    Ignored,
    MarkersConflict,
    ReadsCapturedTensor,
    ReadsChangingState,
    RegistrationIgnored,
    Target,
    TargetNotHonoured,
    cite,
)


def test_every_code_of_the_table_has_a_message_type() -> None:
    assert sorted(MESSAGES) == sorted(BY_CODE)


@pytest.mark.parametrize("message", [t for types in MESSAGES.values() for t in types], ids=lambda t: t.__name__)
def test_a_message_type_is_frozen_data_with_its_code(message: type) -> None:
    assert dataclasses.is_dataclass(message)
    assert message.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert message.code in BY_CODE  # type: ignore[attr-defined]
    assert message.__doc__ and message.code in message.__doc__  # type: ignore[attr-defined]


def test_the_messages_import_no_analysis() -> None:
    """The runtime guard imports them: no libcst, no torch, no rule."""
    code = "import sys, checker.spec.messages; print(sorted(m for m in sys.modules if m.startswith(('libcst', 'torch', 'checker.rules'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_cited_line_is_a_line_here_or_a_place_elsewhere() -> None:
    assert cite(7) == "line 7"
    assert cite(Place("helpers.py", 4)) == "helpers.py:4"


def test_a_line_not_numbered_yet_cannot_be_worded() -> None:
    """A rule holds a syntax node where it cites a line; wording it before the engine
    numbers it would print the node."""
    message = ReadsCapturedTensor(Function("f"), "tensor", "W", "the module scope", bound=object())
    with pytest.raises(TypeError, match="numbered"):
        message.text()


def test_a_function_registered_elsewhere_says_where() -> None:
    assert str(Function("scaled")) == "scaled"
    assert str(Function("scaled", Place("pkg/ops.py", 3))) == "scaled (registered at pkg/ops.py:3)"


def test_a_capture_through_helpers_words_the_chain() -> None:
    message = ReadsCapturedTensor(
        Function("embed"),
        "tensor",
        "TABLE",
        "the module scope of helpers.py (line 2)",
        chain=(Call("ping", 9), Call("lookup", Place("helpers.py", 5), defined=Place("helpers.py", 1))),
    )
    assert message.text().startswith(
        "embed: calls ping() (line 9), which calls lookup() (helpers.py:5), which is defined in helpers.py:1 and "
        "reads tensor 'TABLE' from the module scope of helpers.py (line 2); the contract says"
    )


def test_state_changed_in_another_module_cites_its_place() -> None:
    message = ReadsChangingState(
        Function("f"), "", "SCALE", "the module scope", "and it is assigned from another module", Place("set.py", 3)
    )
    assert "reads 'SCALE' from the module scope, and it is assigned from another module (set.py:3); " in message.text()


def test_the_runtime_guard_words_what_it_saw() -> None:
    """Without a function (the guard's report names it) and with the value as seen at run time."""
    message = ReadsCapturedTensor(None, "tensor", "w", "a closure cell", saw="Tensor(shape=(4,), dtype=float32)")
    assert message.text().startswith("reads tensor 'w' from a closure cell (Tensor(shape=(4,), dtype=float32)); ")


@pytest.mark.parametrize("ignored", list(Ignored), ids=lambda ignored: ignored.value)
def test_every_ignored_registration_is_worded(ignored: Ignored) -> None:
    text = RegistrationIgnored("torch.compiler.allow_in_graph", "obj.meth", ignored, "Op", bypass=12).text()
    assert text.startswith("torch.compiler.allow_in_graph: ") and "obj.meth" in text
    assert ("(line 12)" in text) is (ignored is Ignored.BYPASSED_BOUND_METHOD)


def test_a_marker_in_another_module_is_cited_there() -> None:
    message = MarkersConflict("register", "fused", "torch.compiler.disable", Place("pkg/ops.py", 8))
    assert "fused is also marked torch.compiler.disable (pkg/ops.py:8); " in message.text()


@pytest.mark.parametrize("target", list(Target), ids=lambda target: target.value)
def test_every_target_the_guard_sees_unhonoured_is_worded(target: Target) -> None:
    text = TargetNotHonoured(target, "Block").text()
    assert text.startswith("the target is ") and text.endswith("call it with the values it needs")
    assert ("Block" in text) is (target is Target.MODULE_CLASS)


def test_rules_join_no_sentences() -> None:
    """A rule builds its message through its type: no f-string phrase in a rule module (the
    words of facts live in ``checker/rules/_wording.py``, the sentences in the message types)."""
    rules = Path(__file__).resolve().parents[2] / "checker" / "rules"
    phrases = []
    for path in sorted(rules.glob("aig*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
                if " " in text:
                    phrases.append(f"{path.name}:{node.lineno}: {text!r}")
    assert phrases == []
