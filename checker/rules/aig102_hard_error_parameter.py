"""AIG102 hard-error-parameter."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._parameters import judged_parameters
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.contract import Verdict
from checker.spec.messages import Function, ParameterHardError


class HardErrorParameter(Rule):
    """A parameter of a registered function is annotated `np.ndarray`.

    ## What it does
    Reports a parameter of a registered function whose annotation admits a numpy array
    (`np.ndarray`, `numpy.typing.NDArray[...]`, also inside `Optional`, unions and
    containers).

    ## Why is this bad?
    Dynamo converts an ndarray argument to a tensor before the call, so the registered
    function receives a FakeTensor where it expects an array, and compiling fails hard
    on every backend: `TorchRuntimeError ... got TypeError('expected np.ndarray (got
    FakeTensor)')`, with no graph-break fallback (evidence:
    `evidence/dynamo/FINDINGS.md` section S2; `exp_input_types.py`).

    ## Example
    ```python
    import numpy as np
    import torch

    @torch.compiler.allow_in_graph
    def lookup(x: torch.Tensor, table: np.ndarray):  # AIG102
        return x * torch.from_numpy(table)
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def lookup(x: torch.Tensor, table: torch.Tensor):
        return x * table
    ```
    """

    code = "AIG102"
    summary = "A parameter is annotated np.ndarray, which fails compilation."

    invalid = (
        Invalid(
            """
            from typing import Optional

            import numpy
            import numpy.typing as npt
            import torch

            @torch.compiler.allow_in_graph
            def blend(x: torch.Tensor, a: Optional[numpy.ndarray], b: "npt.NDArray[numpy.float32]"):  # AIG102 AIG102
                return x
            """,
            messages=(
                ParameterHardError(
                    Function("blend"), "b", "npt.NDArray", "TorchRuntimeError: expected np.ndarray (got FakeTensor)"
                ),
            ),
        ),
    )
    valid = (
        """
        import torch

        def host_side(table: "np.ndarray"):  # not registered
            return table
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, param, judgement in judged_parameters(facts, Verdict.HARD_ERROR):
            admits = words.member(judgement)
            yield report(param, ParameterHardError(function, param.name.value, admits, judgement.entry.note))
