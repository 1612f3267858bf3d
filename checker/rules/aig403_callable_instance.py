"""AIG403 callable-instance."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import TargetKind
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import RegistersCallableInstance


class CallableInstance(Rule):
    """The registered object is an instance of a class with `__call__`.

    ## What it does
    Reports a registration of an object whose class (defined in the checked module)
    defines `__call__`, is hashable, and gives its instances no `__name__`, and of a
    `torch.library.custom_op` object (a `CustomOpDef`, which has no `__name__` either).
    Unhashable callable instances are ignored by Dynamo instead and are reported by
    AIG402; an instance with a `__name__` (set in `__init__` or on the class) is put in
    the graph correctly and is not reported.

    ## Why is this bad?
    Dynamo accepts the registration, then fails at the first compiled call with
    `InternalTorchDynamoError: AttributeError: '...' object has no attribute
    '__name__'`, an internal error that does not point at the registration (evidence:
    `evidence/dynamo/FINDINGS.md` section S5; `exp_what_is_accepted.py`; the
    `__name__` fix: `evidence/dynamo/exp_named_callable_instance.py`; a custom op object,
    registered by a call or with the decorators stacked, fails the same way on every
    backend: section D19, `exp_registration_forms.py`). A custom op needs no registration:
    Dynamo puts its calls in the graph as they are.

    ## Example
    ```python
    import torch

    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k

    scale = torch.compiler.allow_in_graph(Scale(2.0))  # AIG403
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scale(x, k: float):
        return x * k
    ```
    """

    code = "AIG403"
    summary = "The registered object is an instance of a class with __call__."

    invalid = (
        Invalid(
            """
            import torch

            class Op:
                def __call__(self, x):
                    return x + 1

            op = Op()
            torch._dynamo.allow_in_graph([op])  # AIG403 AIG407
            """,
            messages=(RegistersCallableInstance("torch._dynamo.allow_in_graph", "op", "Op"),),
        ),
        Invalid(
            """
            import torch

            @torch.library.custom_op("mylib::scale", mutates_args=())
            def scale(x: torch.Tensor) -> torch.Tensor:
                return x * 2

            torch.compiler.allow_in_graph(scale)  # AIG403

            @torch.compiler.allow_in_graph  # AIG403
            @torch.library.custom_op("mylib::shift", mutates_args=())
            def shift(x: torch.Tensor) -> torch.Tensor:
                return x + 1
            """,
            messages=(RegistersCallableInstance("torch.compiler.allow_in_graph", "scale", "CustomOpDef"),),
        ),
    )
    valid = (
        """
        import torch

        class NamedOp:
            def __init__(self, name):
                self.__name__ = name

            def __call__(self, x):
                return x + 1

        torch.compiler.allow_in_graph(NamedOp("add_one"))
        """,
        """
        import torch

        class Op:
            @staticmethod
            def apply(x):
                return x + 1

        torch.compiler.allow_in_graph(Op.apply)
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for target in facts.targets:
            if target.kind is TargetKind.CALLABLE_INSTANCE:
                registration = words.registration(target.registration)
                message = RegistersCallableInstance(registration, target.display, target.instance_of)
                yield report(target.node, message)
