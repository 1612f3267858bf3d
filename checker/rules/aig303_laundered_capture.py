"""AIG303 laundered-capture."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.captures.capture import Laundered, Laundering
from checker.facts.kinds.kind import Kind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import Function, LaundersCapturedTensor

#: Conversions Dynamo's fake-tensor check catches (loudly); the others are silent.
#: Conversions that need the tensor's data, which a FakeTensor does not have: compiling
#: fails loudly instead of baking a value (evidence/dynamo/FINDINGS.md section S1).
_LOUD_METHODS = frozenset({"item", "numpy"})


def _loud(how: Laundered) -> bool:
    return how.kind is Laundering.CONVERSION or (how.kind is Laundering.METHOD and how.how in _LOUD_METHODS)


class LaunderedCapture(Rule):
    """A registered function turns a captured tensor into Python data.

    ## What it does
    Reports `.tolist()`, `.numpy()`, `.item()`, `float(...)`/`int(...)`, `.shape`,
    `.size()` and other metadata reads (`.dtype`, `.device`, `.ndim`) of a tensor that
    the registered function captures instead of taking as an argument.

    ## Why is this bad?
    Going through Python data hides the capture from Dynamo's fake-tensor check.
    `torch.tensor(W.tolist())` and `x.reshape(W.shape)` compile, and under `aot_eager`
    and `inductor` the data or shape read at compile time is baked into the graph:
    later in-place updates or rebinding of `W` are silently ignored (evidence:
    `evidence/dynamo/FINDINGS.md` section S1b; `exp_captured_evasions.py`).
    `.item()`, `float(W)` and `.numpy()` on a captured tensor fail the first compiled
    call instead (section S1a, "indirect use").

    ## Example
    ```python
    import torch

    W = torch.arange(4.0)

    @torch.compiler.allow_in_graph
    def weighted(x):
        return x * torch.tensor(W.tolist())  # AIG303
    ```

    ## Use instead
    ```python
    import torch

    W = torch.arange(4.0)

    @torch.compiler.allow_in_graph
    def weighted(x, w):
        return x * w
    ```
    """

    code = "AIG303"
    summary = "A registered function converts a captured tensor to Python data (.tolist(), .item(), .shape, ...)."

    invalid = (
        Invalid(
            """
            import torch

            W2 = torch.ones(2, 2)
            gain = torch.tensor(2.0)

            @torch.compiler.allow_in_graph
            def reshaped(x):
                rows = W2.size(0)  # AIG303
                return x.reshape(W2.shape) * float(gain) + rows  # AIG303 AIG303
            """,
            messages=(
                LaundersCapturedTensor(
                    Function("reshaped"), "float(...)", "gain", "the module scope", loud=True, bound=4
                ),
            ),
        ),
    )
    valid = (
        """
        import torch

        @torch.compiler.allow_in_graph
        def from_inputs(x, w):
            return x.reshape(w.shape) * w.sum()
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for capture in facts.captures():
            if capture.inferred.kind is not Kind.TENSOR or capture.laundered is None:
                continue
            message = LaundersCapturedTensor(
                words.function(capture.function),
                words.laundered(capture.laundered),
                capture.name,
                words.source(capture),
                _loud(capture.laundered),
                capture.binding,
                words.chain(capture),
            )
            yield report(capture.node, message)
