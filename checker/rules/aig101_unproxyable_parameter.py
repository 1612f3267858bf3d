"""AIG101 unproxyable-parameter."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._parameters import judged_parameters
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.contract import Verdict
from checker.spec.messages import Function, ParameterUnproxyable


class UnproxyableParameter(Rule):
    """A parameter of a registered function is annotated with a type Dynamo cannot proxy.

    ## What it does
    Reports a parameter of a registered function (or of an `autograd.Function`'s
    `forward`/`backward` after `ctx`) whose annotation admits a type that graph-breaks:
    an `nn.Module`, a `Callable` or function, a plain class or non-frozen dataclass of
    the project, or a container of those. Annotations are resolved through imports and
    type aliases (those other project modules define too, imported by name, re-exported
    or read through their module: `types.Act`), string annotations,
    `Optional`/`Union`/`X | Y`, `list[...]`, `tuple[...]` and `Sequence[...]`; types are
    judged with `checker/spec/contract.py`. An alias is any spelling of one: `A = ...`,
    `A: TypeAlias = ...`, `type A = ...` (in the module itself), an alias of an alias
    (`A2 = Optional[A]`, `A2 = A`), and the one bound under `if TYPE_CHECKING:` where
    the other branch binds a stand-in (`else: A = object`).

    ## Why is this bad?
    Dynamo cannot turn such an argument into an FX proxy: it graph-breaks with `Failed
    to convert args/kwargs to proxy` (`Unsupported` under `fullgraph=True`) and then
    traces the registered function's body like any other, so the opacity the
    registration was for is silently lost (evidence: `evidence/dynamo/FINDINGS.md`
    sections S2 and S10a; `exp_input_types.py`, `exp_graph_break_fallback.py`).

    ## Example
    ```python
    import torch
    from torch import nn

    @torch.compiler.allow_in_graph
    def project(x: torch.Tensor, layer: nn.Linear):  # AIG101
        return layer(x)
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def project(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor):
        return torch.nn.functional.linear(x, weight, bias)
    ```
    """

    code = "AIG101"
    summary = "A parameter is annotated with a type that graph-breaks (nn.Module, Callable, plain class, ...)."

    invalid = (
        Invalid(
            """
            from dataclasses import dataclass
            from typing import Callable, Optional

            import torch

            @dataclass
            class Options:
                scale: float

            class Plan:
                pass

            @torch.compiler.allow_in_graph
            def run(
                x: torch.Tensor,
                opts: Options,  # AIG101
                plans: "list[Plan]",  # AIG101
                hook: Optional[Callable[[torch.Tensor], torch.Tensor]] = None,  # AIG101
            ):
                return x
            """,
            messages=(
                ParameterUnproxyable(
                    Function("run"),
                    "opts",
                    "Options (dataclass (not frozen))",
                    "Failed to convert args/kwargs to proxy",
                ),
            ),
        ),
        """
        from typing import Callable, Optional, Union

        import torch

        Activation = Callable[[torch.Tensor], torch.Tensor]
        MaybeActivation = Optional[Activation]

        @torch.compiler.allow_in_graph
        def act(
            x: torch.Tensor,
            fn: MaybeActivation = None,  # AIG101
            other: Union[torch.Tensor, "Activation"] = None,  # AIG101
        ):
            return x
        """,
        """
        from typing import TYPE_CHECKING, Callable, Optional

        import torch
        from typing_extensions import TypeAlias

        class Plan:
            pass

        if TYPE_CHECKING:
            Hook = Optional[Callable[[torch.Tensor], torch.Tensor]]
        else:
            Hook = object
        Hooks: TypeAlias = Hook
        MaybePlan = Plan | None

        @torch.compiler.allow_in_graph
        def planned(x: torch.Tensor, hook: Hooks, plan: MaybePlan):  # AIG101 AIG101
            return x
        """,
    )
    valid = (
        """
        from typing import Optional, Sequence

        import torch
        from torch import Tensor

        @torch.compiler.allow_in_graph
        def run(x: Tensor, ys: Sequence[Optional[Tensor]], k: int, eps: float = 1e-5, dtype: torch.dtype = None):
            return x
        """,
        """
        from typing import TYPE_CHECKING, Optional

        import torch

        if TYPE_CHECKING:
            Scale = Optional[float]
        else:
            Scale = object
        MaybeTensor = torch.Tensor | None

        @torch.compiler.allow_in_graph
        def scaled(x: torch.Tensor, scale: Scale, bias: MaybeTensor):
            return x
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, param, judgement in judged_parameters(facts, Verdict.GRAPH_BREAK):
            admits = words.member(judgement)
            yield report(param, ParameterUnproxyable(function, param.name.value, admits, judgement.entry.note))
