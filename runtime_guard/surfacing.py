"""In raise mode, a violation found while Dynamo traces a call reaches the user as the
``ContractViolation`` itself (evidence/dynamo/FINDINGS.md D18).

Dynamo wraps what is raised while it traces: an exception from its fake call of a
registered function becomes ``TorchRuntimeError`` ("RuntimeError when making fake tensor
call", which keeps only the text of ours), and one raised while it traces bytecode (the
wrapper's own frame, checked through ``comptime``) becomes ``InternalTorchDynamoError``.
One kind it lets through as it is: ``Unsupported``, its graph break. So a violation found
while tracing is raised as a :class:`GraphBreakingViolation`, a ``ContractViolation`` that
is also an ``Unsupported``:

- Dynamo graph-breaks at the call and makes it eagerly. That call is checked again (the
  registration is given one more checked call) and raises the plain ``ContractViolation``
  from the user's code, outside Dynamo. Dynamo would compile the wrapper's frame when it
  runs there (and trace the body, unchecked, as it does for a call it cannot put in the
  graph), so the wrapper's code is marked for Dynamo to skip, with all it calls: in raise
  mode, once a violation was raised, the function's calls that graph-break run eagerly.
- With ``fullgraph=True`` a graph break is an error, and Dynamo raises the ``Unsupported``
  as it is: the user gets the ``GraphBreakingViolation``, a ``ContractViolation``.
- Found in the wrapper's own frame, it makes Dynamo skip that frame, which then runs
  eagerly and is checked there.

Only raise mode: in warn mode the guard changes nothing Dynamo does, and a compile that
fails without the guard (a captured tensor meeting fake tensors) fails as it does in torch.

The ``aigcheck`` backend raises from inside Dynamo's call of a backend, which wraps what
it raises in ``BackendCompilerFailed`` except a ``ShortenTraceback``; it raises a
:class:`BackendViolation`, a ``ContractViolation`` that is also one, and Dynamo hands
that to the user as it is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
import torch._guards
from torch._dynamo.eval_frame import set_code_exec_strategy
from torch._dynamo.exc import ShortenTraceback, Unsupported
from torch._dynamo.types import FrameAction, FrameExecStrategy

from runtime_guard.errors import ContractViolation, Violation
from runtime_guard.modes import Strict
from runtime_guard.registry import Registration

_is_compiling = torch.compiler.is_compiling
_tracing_context = torch._guards.TracingContext.try_get


class GraphBreakingViolation(ContractViolation, Unsupported):
    """A :class:`ContractViolation` raised while Dynamo traces, which Dynamo takes for a
    graph break (see the module docstring). ``skip_frame``: skip the frame being traced."""

    def __init__(self, violation: Violation, torch_error: str | None = None, skip_frame: bool = False) -> None:
        super().__init__(violation, torch_error)  # Unsupported.__init__ runs with the message
        self.skip_frame = skip_frame
        self.gb_type = "allow_in_graph contract violation"


@contextlib.contextmanager
def surfaced(registration: Registration, whole_frame: bool = False) -> Iterator[None]:
    """Raise a ContractViolation of ``registration`` raised in the block, while Dynamo traces
    in this thread and in raise mode, as a :class:`GraphBreakingViolation`; ``whole_frame``:
    the block runs while Dynamo traces the wrapper's own frame, which is to be skipped."""
    try:
        yield
    except GraphBreakingViolation:
        raise
    except ContractViolation as error:
        if registration.mode is not Strict.RAISE or not (_is_compiling() and _tracing_context() is not None):
            raise
        registration.traced_calls_left = max(registration.traced_calls_left, 1)  # the eager call raises it
        wrapper = registration.wrapper
        if wrapper is not None and not whole_frame:
            set_code_exec_strategy(wrapper.__code__, FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP))
        breaking = GraphBreakingViolation(error.violation, error.torch_error, skip_frame=whole_frame)
        breaking.__notes__ = list(getattr(error, "__notes__", ()))
        raise breaking from error.__cause__


class _Shortened(ShortenTraceback):
    """``ShortenTraceback`` with no frame to shorten the traceback to: the user's frames stay."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args, first_useful_frame=None)


class BackendViolation(ContractViolation, _Shortened):
    """A :class:`ContractViolation` the ``aigcheck`` backend raises, which Dynamo does not wrap."""


def through_backend(error: ContractViolation) -> BackendViolation:
    """``error`` as the ``aigcheck`` backend raises it."""
    if isinstance(error, BackendViolation):
        return error
    passed = BackendViolation(error.violation, error.torch_error)
    passed.__notes__ = list(getattr(error, "__notes__", ()))
    return passed
