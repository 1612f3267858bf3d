"""AIG405 not-callable."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.facts.registrations.targets import Target, TargetKind, Uncallable
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import RegistersNotCallable
from checker.spec.messages import Uncallable as Registered


class NotCallable(Rule):
    """The registered value is not callable.

    ## What it does
    Reports a registration of a literal (a number, string, `None`, a dict), a tensor, a
    container, an instance of a class without `__call__`, or a descriptor object: when
    `allow_in_graph` sits above `@classmethod` or `@property` in a decorator stack it
    receives an object that is not callable, and above `@staticmethod` it receives a
    staticmethod object, which it cannot register.
    Elements of a registered list or tuple are judged one by one, whatever builds it
    (`list(...)`, `tuple(...)`, `sorted(...)`); a set, a dict view (`d.values()`), a
    generator or another iterator is reported, since `allow_in_graph` iterates only a
    list or a tuple (iterating a dict gives its keys: `list(d)` registers strings).

    ## Why is this bad?
    `allow_in_graph` raises `AssertionError: allow_in_graph expects a callable` when the
    module is imported, or, for a staticmethod object, `TypeError: cannot create weak
    reference to 'staticmethod' object` when the class body runs (evidence:
    `evidence/dynamo/FINDINGS.md` sections S0 and S5, `exp_what_is_accepted.py`;
    `evidence/dynamo/FINDINGS.md` section D1, `exp_decorator_stacks.py`; collections:
    section D19, `exp_registration_forms.py`).

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
        Invalid(
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
            messages=(
                RegistersNotCallable("torch.compiler.allow_in_graph", "Ops.value", Registered.PROPERTY_OBJECT),
                RegistersNotCallable("torch.compiler.allow_in_graph", "None", Registered.VALUE, "None"),
            ),
        ),
        Invalid(
            """
            import torch

            def fused(x):
                return x * 2

            OPS = {"fused": fused}
            torch.compiler.allow_in_graph(OPS.values())  # AIG405
            torch.compiler.allow_in_graph(op for op in [fused])  # AIG405
            torch.compiler.allow_in_graph({fused})  # AIG405
            torch.compiler.allow_in_graph(list(OPS))  # AIG405
            """,
            messages=(
                RegistersNotCallable(
                    "torch.compiler.allow_in_graph", "OPS.values(...)", Registered.COLLECTION, "a dict view"
                ),
            ),
        ),
    )
    valid = (
        """
        import torch

        torch.compiler.allow_in_graph(lambda x: x + 1)
        """,
        """
        import torch

        def fused(x):
            return x * 2

        OPS = {"fused": fused}
        FNS = [fused]
        torch.compiler.allow_in_graph(list(OPS.values()))
        torch.compiler.allow_in_graph(list([fused]))
        torch.compiler.allow_in_graph(tuple(FNS))
        torch.compiler.allow_in_graph(sorted(FNS, key=id))

        def register_all(fns):
            torch.compiler.allow_in_graph(list(fns))
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for target in facts.targets:
            if target.kind is TargetKind.NOT_CALLABLE:
                assert target.not_callable is not None  # a NOT_CALLABLE target says what it is
                registered = _REGISTERED[target.not_callable]
                registration = words.registration(target.registration)
                message = RegistersNotCallable(registration, target.display, registered, _detail(target))
                yield report(target.node, message)


#: The facts' kinds of uncallable target, as the message names them.
_REGISTERED = {
    Uncallable.NO_CALL: Registered.INSTANCE,
    Uncallable.VALUE: Registered.VALUE,
    Uncallable.COLLECTION: Registered.COLLECTION,
    Uncallable.CLASSMETHOD_OBJECT: Registered.CLASSMETHOD_OBJECT,
    Uncallable.PROPERTY_OBJECT: Registered.PROPERTY_OBJECT,
    Uncallable.STATICMETHOD_OBJECT: Registered.STATICMETHOD_OBJECT,
}


def _detail(target: Target) -> str:
    """The instance's class, or how the registered value is named."""
    if target.not_callable is Uncallable.NO_CALL:
        return target.instance_of
    if target.not_callable is Uncallable.VALUE:
        assert target.value is not None
        return words.value(target.value)
    if target.not_callable is Uncallable.COLLECTION:
        assert target.value is not None
        return target.value.subject
    return ""
