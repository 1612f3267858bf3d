"""AIG402 ineffective-registration."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import MethodUse, Target, TargetKind
from checker.rules import _wording as words
from checker.rules.base import Report, Rule, report


def _why(target: Target) -> str | tuple[str | cst.CSTNode, ...] | None:
    """Why torch will not honour this registration (message parts), or None when it will."""
    kind = target.kind
    if kind is TargetKind.BOUND_METHOD and target.method_use is MethodUse.DISCARDED:
        return (
            f"registers the bound method {target.display}, a new object each time it is looked up; "
            f"calls of {target.display}(...) are traced as usual. Keep the registered object "
            f"(self._fn = allow_in_graph(...)) and call through it, or register a module-level function"
        )
    if kind is TargetKind.BOUND_METHOD and target.method_use is MethodUse.BYPASSED:
        return (
            f"keeps the registered bound method {target.display}, but the class also calls {target.display}(...) "
            "(line ",
            target.related,  # type: ignore[return-value]
            "), which looks the method up afresh and is traced as usual; call the kept object instead, or assign "
            "it back to the method's own name (self.meth = allow_in_graph(self.meth))",
        )
    if kind is TargetKind.METHOD:
        return (
            f"registers {target.display}, a method called through instances or its class; each lookup makes a "
            "new bound method, so the body is traced as usual. Register a module-level function "
            "(or a @staticmethod with allow_in_graph applied beneath it) instead"
        )
    if kind is TargetKind.CLASSMETHOD:
        return (
            f"registers the classmethod {target.display}; each lookup makes a new bound method, so the body is "
            "traced as usual. Register a module-level function instead"
        )
    if kind is TargetKind.PROPERTY:
        return (
            f"registers the getter of property {target.display}; Dynamo cannot pass 'self' to it and gives up on "
            "the whole calling frame (WON'T CONVERT), which then runs uncompiled without a warning. Register a "
            "module-level function that takes the tensors it needs"
        )
    if kind is TargetKind.PARTIAL:
        return (
            f"registers a functools.partial ({target.display}); Dynamo inlines partials, so the registration is "
            "ignored. Register the underlying function and pass the bound arguments explicitly"
        )
    if kind is TargetKind.MODULE_INSTANCE:
        instance = target.value
        assert instance is not None  # both makers of a module instance's target give what inference says
        return (
            f"registers {target.display}, an nn.Module instance ({words.inferred(instance)}); Dynamo traces modules as usual, "
            "so the registration is ignored. Register a function that takes the tensors it needs as arguments"
        )
    if kind is TargetKind.MODULE_CLASS:
        return (
            f"registers the nn.Module subclass {target.display}; only constructing it is affected, and its "
            "forward is traced as usual. Register the function its forward calls instead"
        )
    if kind is TargetKind.UNHASHABLE_INSTANCE:
        return (
            f"registers {target.display}, an instance of {target.instance_of}, which is unhashable (__eq__ without __hash__, or a "
            "non-frozen dataclass); Dynamo's lookup skips unhashable callables, so the registration is ignored"
        )
    return None


class IneffectiveRegistration(Rule):
    """The registration is silently ignored: torch traces the target as usual.

    ## What it does
    Reports a registration whose target Dynamo will not recognise at the call: a bound
    method registered but not kept (`allow_in_graph(obj.meth)` as a statement), or kept
    (`self._f = allow_in_graph(self.meth)`) while the class still calls `self.meth(...)`,
    a plain
    method decorated in a class body or registered as `Class.meth`, a classmethod, a
    property getter (`@property` above `@allow_in_graph`), a `functools.partial`, an `nn.Module` instance, an `nn.Module` subclass (only its
    construction is affected), or an instance of an unhashable callable class.

    ## Why is this bad?
    `allow_in_graph` registers the `id()` of the object it is given. These targets are
    looked up as other objects at the call (a new bound method on every attribute
    access), or skipped (`lookup_callable` requires a hashable callable), so Dynamo
    traces the body as if the registration did not exist: the opacity the author wanted
    is silently lost. A registered property getter is worse: Dynamo abandons the whole
    calling frame (evidence: `evidence/dynamo/FINDINGS.md` section S5,
    `exp_what_is_accepted.py`; `evidence/dynamo/FINDINGS.md` section D1,
    `exp_decorator_stacks.py`; an `nn.Module` subclass: section D10,
    `exp_module_class_registration.py`).

    ## Example
    ```python
    import functools
    import torch

    class Model(torch.nn.Module):
        @torch.compiler.allow_in_graph  # AIG402
        def fused(self, x):
            return x * 2

    def scale(x, k):
        return x * k

    double = torch.compiler.allow_in_graph(functools.partial(scale, k=2.0))  # AIG402
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def fused(x):
        return x * 2

    class Model(torch.nn.Module):
        def forward(self, x):
            return fused(x)
    ```
    """

    code = "AIG402"
    summary = "The registration is silently ignored (bound method, method, classmethod, partial, nn.Module, ...)."

    invalid = (
        """
        import dataclasses
        import torch
        from torch import nn

        @torch.compiler.allow_in_graph  # AIG402
        class Block(nn.Module):
            def forward(self, x):
                return x

        @dataclasses.dataclass
        class Op:
            k: float

            def __call__(self, x):
                return x * self.k

        class Holder:
            def __init__(self):
                self.linear = nn.Linear(4, 4)
                torch.compiler.allow_in_graph(self.linear)  # AIG402
                torch.compiler.allow_in_graph(self.step)  # AIG402

            def step(self, x):
                return x + 1

            @classmethod
            def build(cls, x):
                return x

            @property
            @torch.compiler.allow_in_graph  # AIG402
            def size(self):
                return 4

        class Gated:
            def __init__(self):
                self._gate = torch.compiler.allow_in_graph(self.gate)  # AIG402

            def gate(self, x):
                return x * 2

            def forward(self, x):
                return self.gate(x)

        torch.compiler.allow_in_graph(Op(2.0))  # AIG402
        torch.compiler.allow_in_graph(Holder.build)  # AIG402
        torch.compiler.allow_in_graph(Holder.step)  # AIG402
        """,
    )
    valid = (
        """
        import torch

        class Holder:
            def __init__(self):
                self._step = torch.compiler.allow_in_graph(self.step)
                self.other = torch.compiler.allow_in_graph(self.other)

            def forward(self, x):
                return self._step(x) + self.other(x)

            def other(self, x):
                return x - 1

            def step(self, x):
                return x + 1

            @staticmethod
            @torch.compiler.allow_in_graph
            def fused(x):
                return x * 2
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[Report]:
        for target in facts.targets:
            why = _why(target)
            if why is None:
                continue
            parts = (why,) if isinstance(why, str) else why
            yield report(target.node, f"{words.registration(target.registration)}: ", *parts)
