"""AIG503 needs-custom-op."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.captures.bodies import EventKind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules._events import events_of
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import Function, ReadsHostMemory


class NeedsCustomOp(Rule):
    """A registered function reads tensor memory on the host: that needs a custom op.

    ## What it does
    Reports, inside a registered function, `.numpy()` and `.data_ptr()` on an argument
    or local tensor, and calls into numpy, scipy, cupy or ctypes that take a tensor.
    (The same on a captured tensor is reported by AIG303.)

    ## Why is this bad?
    `allow_in_graph` does not stop AOTAutograd and Inductor from tracing the body with
    FakeTensors and FunctionalTensors, which have no data: compiling fails with
    `.numpy() is not supported for tensor subclasses` or `Cannot access data pointer
    of Tensor (e.g. FakeTensor, FunctionalTensor)` on every backend (evidence:
    `evidence/dynamo/FINDINGS.md` sections S0.5 and S4;
    `exp_body_behaviours.py`). Code that must see real data belongs in a
    `torch.library.custom_op` with a fake (meta) implementation.

    ## Example
    ```python
    import numpy as np
    import torch

    @torch.compiler.allow_in_graph
    def host_sin(x):
        return torch.from_numpy(np.sin(x.numpy()))  # AIG503
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    @torch.library.custom_op("mylib::host_sin", mutates_args=())
    def host_sin(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.sin(x.numpy()))

    @host_sin.register_fake
    def _(x):
        return torch.empty_like(x)
    ```
    """

    code = "AIG503"
    summary = ".numpy(), .data_ptr(), numpy/scipy/cupy/ctypes calls on tensors: use torch.library.custom_op."

    invalid = (
        Invalid(
            """
            import ctypes

            import scipy.special
            import torch

            @torch.compiler.allow_in_graph
            def kernel(x: torch.Tensor, out: torch.Tensor):
                lib = ctypes.CDLL("libkernel.so")
                lib.run(ctypes.c_void_p(x.data_ptr()), out.data_ptr())  # AIG503 AIG503
                return torch.as_tensor(scipy.special.erf(x))  # AIG503
            """,
            messages=(ReadsHostMemory(Function("kernel"), "calls scipy.special.erf() on a tensor"),),
        ),
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for function, event in events_of(facts, EventKind.HOST_ACCESS):
            yield report(event.node, ReadsHostMemory(function, words.event(event)))
