"""AIG404 registration-in-compiled-region."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import RegistersInCompiledRegion


class RegistrationInCompiledRegion(Rule):
    """`allow_in_graph` is called inside a function that `torch.compile` compiles.

    ## What it does
    Reports a registration (call or decorator) that runs inside a compiled function:
    one decorated with or passed to `torch.compile` (or `torch._dynamo.optimize`), the
    `forward` of an `nn.Module` subclass (compiled whenever its module is, wherever that
    is written), or a function of the module those call, a few calls deep.

    ## Why is this bad?
    Dynamo cannot register while tracing: it graph-breaks with "Dynamically annotating
    functions inside a compiled region is not supported" (`Unsupported` under
    `fullgraph=True`). A registration made after the first compilation is not seen by
    the code already compiled either, until `torch._dynamo.reset()` (evidence:
    `evidence/dynamo/FINDINGS.md` section S5; `exp_what_is_accepted.py`).

    ## Example
    ```python
    import torch

    def helper(x):
        return x * 2

    @torch.compile
    def step(x):
        fast = torch.compiler.allow_in_graph(helper)  # AIG404
        return fast(x)
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def helper(x):
        return x * 2

    @torch.compile
    def step(x):
        return helper(x)
    ```
    """

    code = "AIG404"
    summary = "allow_in_graph is called inside a function that is compiled."

    invalid = (
        Invalid(
            """
            import torch
            from torch import nn

            def helper(x):
                return x + 1

            def prepare():
                torch.compiler.allow_in_graph(helper)  # AIG404

            class Net(nn.Module):
                def forward(self, x):
                    prepare()
                    return helper(x)

            model = torch.compile(Net())
            """,
            messages=(RegistersInCompiledRegion("torch.compiler.allow_in_graph", "prepare", compiled=15),),
        ),
        Invalid(
            """
            import torch
            from torch import nn

            def helper(x):
                return x + 1

            class Block(nn.Module):
                def forward(self, x):
                    torch.compiler.allow_in_graph(helper)  # AIG404
                    return helper(x)
            """,
            messages=(RegistersInCompiledRegion("torch.compiler.allow_in_graph", "forward", 8, "Block"),),
        ),
    )
    valid = (
        """
        import torch

        def helper(x):
            return x + 1

        def prepare():
            torch.compiler.allow_in_graph(helper)

        @torch.compile
        def step(x):
            return helper(x)

        prepare()
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for registration in facts.registrations:
            if registration.where is not None:
                continue  # registered by another module, where this rule judges the call
            compiler = facts.compiled_region(registration.scope)
            if compiler is None:
                continue
            function = registration.scope.enclosing_function()
            name = function.name if function is not None else "the compiled function"
            module_class = facts.module_forwards.get(compiler, "")
            message = RegistersInCompiledRegion(words.registration(registration), name, compiler, module_class)
            yield report(registration.site, message)
