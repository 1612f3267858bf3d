"""AIG201 unproxyable-return."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._results import registered_classes, return_annotations, returned
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec import contract
from checker.spec.contract import Verdict
from checker.spec.messages import AnnotatedUnproxyableResult, ConstructsUnproxyable, Function, ReturnsUnproxyable


class UnproxyableReturn(Rule):
    """A registered function returns a value Dynamo cannot put in the graph.

    ## What it does
    Reports a registered function whose return annotation admits, or whose `return`
    statement returns, a `dict`, `set`, `str`, `bool`, `int` (at the top level),
    `torch.dtype`, function or closure, or an instance of a plain class or non-frozen
    dataclass of the project; and the registration of such a class (or a dataclass of
    any kind), whose construction in compiled code is then a graph call returning that
    object. Tensors (traceable tensor subclasses included), `None`, lists and tuples,
    named tuples and `torch.Size` are fine; Python floats are AIG202's business, tensor
    subclasses without the flatten protocol AIG203's; a class whose bases leave the
    project is not judged.

    ## Why is this bad?
    Dynamo accepts only tensors, `None`, lists/tuples/named tuples, `torch.Size` and
    symbolic numbers as the result of a graph call. Anything else graph-breaks with
    `torch.* op returned non-Tensor` (`Unsupported` under `fullgraph=True`), and the
    body is then traced like ordinary code, so the registration is lost (evidence:
    `evidence/dynamo/FINDINGS.md` section S3; `exp_output_types.py`; a registered
    class: `evidence/dynamo/FINDINGS.md` section D11, `exp_class_registration.py`, on
    torch 2.13.0 and 2.14.1).

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def stats(x) -> dict:  # AIG201
        return {"mean": x.mean(), "std": x.std()}  # AIG201
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def stats(x) -> tuple[torch.Tensor, torch.Tensor]:
        return x.mean(), x.std()
    ```
    """

    code = "AIG201"
    summary = "The return annotation or a returned value is a dict, set, str, bool, dtype, object or function."

    invalid = (
        Invalid(
            """
            import torch

            class Result:
                pass

            @torch.compiler.allow_in_graph
            def check(x) -> "bool":  # AIG201
                return x.shape[0] > 2  # AIG201

            @torch.compiler.allow_in_graph
            def wrap(x):
                if x.dim() == 1:
                    return Result()  # AIG201
                return x.dtype  # AIG201

            @torch.compiler.allow_in_graph
            def make_act(x):
                def act(t):
                    return t * 2
                return act  # AIG201
            """,
            messages=(ReturnsUnproxyable(Function("wrap"), "a Result object"),),
        ),
        Invalid(
            """
            import dataclasses

            import torch

            @dataclasses.dataclass(frozen=True)
            class Stats:
                mean: torch.Tensor

            torch.compiler.allow_in_graph(Stats)  # AIG201
            """,
            messages=(ConstructsUnproxyable("torch.compiler.allow_in_graph", "Stats", "frozen dataclass"),),
        ),
    )
    valid = (
        """
        import torch
        from external_lib import ConfigBase

        class Options(ConfigBase):
            pass

        @torch.compiler.allow_in_graph
        def configure(x) -> Options:
            return Options(x)  # the base is unknown, so is what Dynamo makes of it

        torch.compiler.allow_in_graph(Options)
        """,
        """
        from typing import NamedTuple, Optional

        import torch

        class Pair(NamedTuple):
            a: torch.Tensor
            b: torch.Tensor

        @torch.compiler.allow_in_graph
        def split(x) -> Pair:
            return Pair(x, x * 2)

        torch.compiler.allow_in_graph(Pair)  # constructing a NamedTuple in the graph works

        @torch.compiler.allow_in_graph
        def maybe(x) -> Optional[list[torch.Tensor]]:
            if x.numel() == 0:
                return None
            return [x, x.size()]
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for body, annotation, judgement in return_annotations(facts):
            if judgement.verdict is Verdict.GRAPH_BREAK:
                message = AnnotatedUnproxyableResult(words.function(body), words.member(judgement))
                yield report(annotation, message)
        for function, _, value, scope in returned(facts):
            found = facts.values.type_of(value, scope)
            if found is None:
                continue
            if found.user_class is not None:
                verdict = contract.user_class(found.user_class, result=True).verdict
            else:
                verdict = contract.result(found.qualified).verdict
            if verdict is Verdict.GRAPH_BREAK:
                yield report(value, ReturnsUnproxyable(function, words.value_type(found)))
        for target, model in registered_classes(facts):
            if contract.constructed(model.category).verdict is Verdict.GRAPH_BREAK:
                registration = words.registration(target.registration)
                yield report(target.node, ConstructsUnproxyable(registration, model.name, model.category.value))
