"""AIG502 data-dependent-python."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.captures.bodies import EventKind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._events import events_of
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import DecidesOnData, Function


class DataDependentPython(Rule):
    """A registered function makes Python decisions on tensor values.

    ## What it does
    Reports, inside a registered function, Python control flow on a tensor value
    (`if`, `while`, `assert`, a conditional expression, and the truth tests of `and`,
    `or` and `not`), `bool()`, `int()` and `float()` of a tensor, and `.item()` or
    `.tolist()` of an argument or local tensor, or of a tensor computed from one
    (`torch.quantile(x.abs(), q).item()`, `(x @ w).item()`; not one built from
    constants alone, `torch.tensor(0.5).item()`). An expression counts as a tensor when
    inference says so, when the body calls a tensor-only method on a parameter or on an
    expression of one (`x.sum() > 0`, `(x > 0).all()`, `x.max()`), when a tensor's
    method returns one, or when it is a local that every assignment gives a tensor
    (`m = x.max(); x[: int(m)]`); a bare parameter of unknown type does not (`if eps > 0`
    is fine). Shapes, sizes and dtypes (`x.shape[0] > 4`, `x.dim()`, `len(x)`,
    `x.numel()`, `x.dtype == ...`) are not data, and `t is None` and `isinstance` are
    decided without the data: none of them is reported.

    ## Why is this bad?
    Dynamo's fake-tensor call cannot decide a branch on data: it graph-breaks with
    `Data dependent operator` / `Data-dependent branching` and traces the body itself,
    losing the registration, or fails outright under `fullgraph=True` (`Could not guard
    on data-dependent expression`, `PendingUnbackedSymbolNotFound`) (evidence:
    `evidence/dynamo/FINDINGS.md` sections S3, S4 and S10b;
    `exp_body_behaviours.py`, `exp_output_types.py`).

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def relu_if_positive(x):
        if x.sum() > 0:  # AIG502
            return x.relu()
        return x
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def relu_if_positive(x):
        return torch.where(x.sum() > 0, x.relu(), x)
    ```
    """

    code = "AIG502"
    summary = "Python control flow on tensor values, bool(t), .item()/.tolist() of inputs in the body."

    invalid = (
        Invalid(
            """
            import torch

            @torch.compiler.allow_in_graph
            def clip(x: torch.Tensor, limit):
                while x.abs().max() > limit:  # AIG502
                    x = x / 2
                assert bool(x.isfinite().all())  # AIG502
                scale = x.norm().item()  # AIG502
                return x * (2 if x.mean() > 0 else 1), scale  # AIG502

            @torch.compiler.allow_in_graph
            def total(x: torch.Tensor):
                return x * 2, float(x.sum()), int(x)  # AIG502 AIG502
            """,
            messages=(DecidesOnData(Function("clip"), "converts a tensor to a Python bool with bool(...)"),),
        ),
        Invalid(
            """
            import torch

            @torch.compiler.allow_in_graph
            def clip_to_quantile(x: torch.Tensor, q: float):
                bound = torch.quantile(x.abs(), q).item()  # AIG502
                return x.clamp(-bound, bound)

            @torch.compiler.allow_in_graph
            def weighted(x, w):
                return x * (x.abs() * w).sum().tolist()  # AIG502

            @torch.compiler.allow_in_graph
            def chained(x: torch.Tensor):
                return x * torch.nn.functional.softmax(x, dim=-1).max().item()  # AIG502

            @torch.compiler.allow_in_graph
            def through_locals(x):
                total = x.abs().sum()
                peak = x.abs().max()
                if total > 0:  # AIG502
                    return x * bool(total)  # AIG502
                return x * int(peak)  # AIG502
            """,
            messages=(DecidesOnData(Function("clip_to_quantile"), "reads tensor data into Python with .item()"),),
        ),
        Invalid(
            """
            import torch

            @torch.compiler.allow_in_graph
            def trimmed(x, mask):
                m = x.max()
                keep = bool((x > 0).all())  # AIG502
                flag = x.any() and mask  # AIG502
                empty = not x.sum()  # AIG502
                if empty or not keep:  # Python bools by now: decided above
                    return x
                return x[: int(m)] * flag  # AIG502
            """,
            messages=(DecidesOnData(Function("trimmed"), "branches on a tensor value in 'and'"),),
        ),
    )
    valid = (
        """
        import torch

        @torch.compiler.allow_in_graph
        def shaped(x, eps, training: bool):
            if x.shape[0] > 4 and eps > 0 and training:
                x = x[:4]
            return x if x.dim() == 2 else x.flatten()
        """,
        """
        import torch

        @torch.compiler.allow_in_graph
        def halved(x, q):
            # a tensor of constants, and one of a parameter whose type is unknown
            return x * torch.tensor(0.5).item() + torch.quantile(x, q).item()
        """,
        """
        import torch

        @torch.compiler.allow_in_graph
        def maybe_scaled(x: torch.Tensor, scale=None):
            total = x.sum()
            if x is None or total is None or scale is None:  # identity, not data
                return x
            return x * scale
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, event in events_of(facts, EventKind.DATA_DEPENDENT):
            yield report(event.node, DecidesOnData(function, words.event(event)))
