"""AIG203 untraceable-tensor-subclass."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._results import registered_classes, return_annotations, returned
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.contract import UserClass
from checker.spec.messages import (
    AnnotatedUntraceableSubclass,
    ConstructsUntraceableSubclass,
    Function,
    ReturnsUntraceableSubclass,
)


class UntraceableTensorSubclass(Rule):
    """A registered function makes a tensor subclass that Dynamo cannot trace.

    ## What it does
    Reports a registered function whose return annotation admits, or whose `return`
    returns, an instance of a tensor subclass of the project (a class deriving from
    `torch.Tensor` or `nn.Parameter`, directly or through other classes of the project)
    that does not implement `__tensor_flatten__` and `__tensor_unflatten__`, itself or
    through a base; and the registration of such a class, whose construction in compiled
    code is then a call of the graph. A subclass that implements the protocol is a tensor
    and is fine; a class whose bases leave the project is not judged.

    ## Why is this bad?
    Dynamo runs the registered call on FakeTensors while compiling. A traceable wrapper
    subclass (`_make_wrapper_subclass`, `__torch_dispatch__`, the flatten protocol) comes
    out of that as one graph node on every backend; a subclass without the protocol makes
    the first compiled call fail, on `eager`, `aot_eager` and `inductor` alike, with
    `Creating a new Tensor subclass ... already associated to a python object of type
    FakeTensor` (evidence: `evidence/dynamo/FINDINGS.md` section S11,
    `exp_tensor_subclass_results.py`; a registered class: `evidence/dynamo/FINDINGS.md`
    section D11, `exp_class_registration.py`; torch 2.13.0 and 2.14.1).

    ## Example
    ```python
    import torch

    class Scaled(torch.Tensor):
        pass

    @torch.compiler.allow_in_graph
    def mark(x) -> Scaled:  # AIG203
        return x.as_subclass(Scaled)  # AIG203
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def mark(x) -> torch.Tensor:
        return x * 1

    def marked(x):
        return mark(x).as_subclass(torch.Tensor)
    ```
    """

    code = "AIG203"
    summary = "Returns (or registers) a tensor subclass without __tensor_flatten__/__tensor_unflatten__."

    invalid = (
        Invalid(
            """
            import torch

            class Base(torch.Tensor):
                pass

            class Quantized(Base):
                def dequantize(self):
                    return self * 2

            @torch.compiler.allow_in_graph  # AIG203
            class Marked(torch.Tensor):
                pass

            @torch.compiler.allow_in_graph
            def quantize(x):
                return Quantized(x)  # AIG203
            """,
            messages=(
                ConstructsUntraceableSubclass("torch.compiler.allow_in_graph", "Marked"),
                ReturnsUntraceableSubclass(Function("quantize"), "a Quantized object"),
            ),
        ),
    )
    valid = (
        """
        import torch
        from torch.utils._pytree import tree_map

        class Traceable(torch.Tensor):
            @staticmethod
            def __new__(cls, data):
                return torch.Tensor._make_wrapper_subclass(cls, data.shape, dtype=data.dtype)

            def __init__(self, data):
                self.data_ = data

            def __tensor_flatten__(self):
                return ["data_"], None

            @staticmethod
            def __tensor_unflatten__(inner, meta, outer_size, outer_stride):
                return Traceable(inner["data_"])

        class Derived(Traceable):
            pass

        @torch.compiler.allow_in_graph
        def wrap(x) -> "Derived":
            return Derived(x * 2)
        """,
        """
        import torch
        from external_lib import BaseTensor

        class Quantized(BaseTensor):
            pass

        @torch.compiler.allow_in_graph
        def quantize(x) -> Quantized:
            return Quantized(x)  # the base is unknown: so is whether it traces
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for body, annotation, judgement in return_annotations(facts):
            if judgement.category is UserClass.BARE_SUBCLASS:
                yield report(annotation, AnnotatedUntraceableSubclass(words.function(body), judgement.spelled))
        for function, _, value, scope in returned(facts):
            found = facts.values.type_of(value, scope)
            if found is not None and found.user_class is UserClass.BARE_SUBCLASS:
                yield report(value, ReturnsUntraceableSubclass(function, words.value_type(found)))
        for target, model in registered_classes(facts):
            if model.category is UserClass.BARE_SUBCLASS:
                registration = words.registration(target.registration)
                yield report(target.node, ConstructsUntraceableSubclass(registration, model.name))
