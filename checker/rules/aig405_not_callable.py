"""AIG405 not-callable."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.facts.targets import TargetKind
from checker.rules.base import Report, Rule, report


class NotCallable(Rule):
    """The registered value is not callable.

    ## What it does
    Reports a registration of a literal (a number, string, `None`, a dict), a tensor, a
    container, an instance of a class without `__call__`, or a descriptor object: when
    `allow_in_graph` sits above `@classmethod` or `@property` in a decorator stack it
    receives an object that is not callable, and above `@staticmethod` it receives a
    staticmethod object, which it cannot register.
    Elements of a registered list or tuple are judged one by one.

    ## Why is this bad?
    `allow_in_graph` raises `AssertionError: allow_in_graph expects a callable` when the
    module is imported, or, for a staticmethod object, `TypeError: cannot create weak
    reference to 'staticmethod' object` when the class body runs (evidence:
    `shared/evidence/dynamo/FINDINGS.md` sections 0 and 5, `exp_what_is_accepted.py`;
    `evidence/dynamo/FINDINGS.md` section D1, `exp_decorator_stacks.py`).

    ## Example
    ```python
    import torch

    def fused(x):
        return x * 2

    torch.compiler.allow_in_graph([fused, "fused_v2"])  # AIG405
    ```

    ## Use instead
    ```python
    import torch

    def fused(x):
        return x * 2

    torch.compiler.allow_in_graph([fused])
    ```
    """

    code = "AIG405"
    summary = "The registered value is a literal or otherwise not callable."

    invalid = (
        """
        import torch

        SCALE = 2.0
        torch.compiler.allow_in_graph(SCALE)  # AIG405
        torch.compiler.allow_in_graph(None)  # AIG405

        class Ops:
            @torch.compiler.allow_in_graph  # AIG405
            @property
            def value(self):
                return 1

            @torch.compiler.allow_in_graph  # AIG405
            @staticmethod
            def scale(x):
                return x * 2
        """,
    )
    valid = (
        """
        import torch

        torch.compiler.allow_in_graph(lambda x: x + 1)
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[Report]:
        for target in facts.targets:
            if target.kind is TargetKind.NOT_CALLABLE:
                yield report(
                    target.node,
                    f"{target.registration.spelling}: registers {target.display}, {target.detail}; "
                    f"allow_in_graph raises '{target.error}' when this runs; ",
                    "put @staticmethod above @allow_in_graph"
                    if target.detail.startswith("a staticmethod")
                    else "register a module-level function instead",
                )
