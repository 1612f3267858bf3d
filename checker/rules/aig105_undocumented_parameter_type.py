"""AIG105 undocumented-parameter-type."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._parameters import judged_parameters
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.contract import Verdict
from checker.spec.messages import Function, ParameterUndocumented


class UndocumentedParameterType(Rule):
    """A parameter type works in torch 2.13 but is outside the documented contract.

    ## What it does
    Off unless `doc-strict` is set (or the rule is selected explicitly). Reports a
    parameter of a registered function annotated with a type that works in practice
    but that the documentation does not promise: `str`, `dict`, an `Enum`, `slice`, a
    frozen dataclass, a `NamedTuple`, `torch.Size`.

    ## Why is this bad?
    Nothing breaks today (evidence: `evidence/dynamo/FINDINGS.md` section S2,
    "works in practice"; `exp_input_types.py`), but the contract only guarantees
    tensors, `int`, `bool`, `float`, `None`, lists and tuples of those, `torch.dtype`
    and `torch.device`. Teams that want to stay within the documented contract across
    torch upgrades turn this on.

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def pad(x: torch.Tensor, mode: str):  # AIG105
        return torch.nn.functional.pad(x, (1, 1), mode=mode)
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def pad_reflect(x: torch.Tensor):
        return torch.nn.functional.pad(x, (1, 1), mode="reflect")
    ```
    """

    code = "AIG105"
    summary = "A parameter type works but is undocumented (str, dict, Enum, ...); only with doc-strict."

    invalid = (
        Invalid(
            """
            import enum

            import torch

            class Mode(enum.Enum):
                REFLECT = "reflect"

            @torch.compiler.allow_in_graph
            def pad(x: torch.Tensor, mode: Mode):  # AIG105
                return torch.nn.functional.pad(x, (1, 1), mode=mode.value)
            """,
            messages=(ParameterUndocumented(Function("pad"), "mode", "Mode (Enum)"),),
        ),
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, param, judgement in judged_parameters(facts, Verdict.WORKS):
            yield report(param, ParameterUndocumented(function, param.name.value, words.member(judgement)))
