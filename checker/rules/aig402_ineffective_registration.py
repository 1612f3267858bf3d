"""AIG402 ineffective-registration."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import MethodUse, Target, TargetKind
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import Ignored, RegistrationIgnored

#: What torch does not honour, by the kind of target (a bound method by its use, apart).
_IGNORED = {
    TargetKind.METHOD: Ignored.METHOD,
    TargetKind.CLASSMETHOD: Ignored.CLASSMETHOD,
    TargetKind.PROPERTY: Ignored.PROPERTY,
    TargetKind.PARTIAL: Ignored.PARTIAL,
    TargetKind.MODULE_INSTANCE: Ignored.MODULE_INSTANCE,
    TargetKind.MODULE_CLASS: Ignored.MODULE_CLASS,
    TargetKind.UNHASHABLE_INSTANCE: Ignored.UNHASHABLE_INSTANCE,
}
_BOUND_METHOD = {MethodUse.DISCARDED: Ignored.DISCARDED_BOUND_METHOD, MethodUse.BYPASSED: Ignored.BYPASSED_BOUND_METHOD}


def _why(target: Target) -> RegistrationIgnored[cst.CSTNode] | None:
    """Why torch will not honour this registration, or None when it will."""
    if target.kind is TargetKind.BOUND_METHOD:
        ignored = _BOUND_METHOD.get(target.method_use) if target.method_use is not None else None
    else:
        ignored = _IGNORED.get(target.kind)
    if ignored is None:
        return None
    detail = ""
    if ignored is Ignored.MODULE_INSTANCE:
        assert target.value is not None  # both makers of a module instance's target give what inference says
        detail = words.inferred(target.value)
    elif ignored is Ignored.UNHASHABLE_INSTANCE:
        detail = target.instance_of
    bypass = target.related if ignored is Ignored.BYPASSED_BOUND_METHOD else None
    return RegistrationIgnored(words.registration(target.registration), target.display, ignored, detail, bypass)


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
        Invalid(
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
            messages=(
                RegistrationIgnored(
                    "torch.compiler.allow_in_graph",
                    "self.linear",
                    Ignored.MODULE_INSTANCE,
                    detail="torch.nn.Linear(...)",
                ),
                RegistrationIgnored(
                    "torch.compiler.allow_in_graph", "self.gate", Ignored.BYPASSED_BOUND_METHOD, bypass=43
                ),
            ),
        ),
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

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for target in facts.targets:
            message = _why(target)
            if message is not None:
                yield report(target.node, message)
