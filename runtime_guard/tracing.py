"""Which tensors a call uses that it was not given: a TorchFunctionMode around the call.

``evidence/dynamo/FINDINGS.md`` section S8: the mode sees every tensor operand of
every torch function, in every compile phase (Dynamo's fake call, both AOT traces) and
in eager calls, before Dynamo's own FakeTensor assertion fires. A tensor operand that is
neither a pytree leaf of the arguments nor produced by an earlier op of the call was
captured: AIG301, or AIG303 when the op turns it into Python data (``.tolist()``,
``.shape``), which Dynamo lets through and freezes silently. What counts as passed in is
decided by :mod:`runtime_guard.reachable` (pytree leaves, dataclass and NamedTuple
fields, attributes of argument objects, inner tensors of subclasses, and the functorch
wrappers ``vmap`` and ``grad`` make of them). When that is not known in full (arguments
past the walk's bound, or whose own code fails as they are read), the mode reports
nothing for the call: a tensor passed in where the walk did not look must not be called
captured.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import torch
from torch.overrides import TorchFunctionMode

from checker.spec.messages import LeftWhileTracing, TensorInOp, TensorToDataInOp
from runtime_guard.contained import text
from runtime_guard.errors import ContractViolation, Violation
from runtime_guard.reachable import argument_tensors, tensor_leaves, unwrapped

#: Tensor methods and properties that turn a tensor into Python data (AIG303).
LAUNDERING = frozenset({"tolist", "numpy", "item", "shape", "size", "__float__", "__int__", "__bool__", "__index__"})


@dataclass(frozen=True)
class Foreign:
    """A tensor that reached ``op`` without being an argument or produced in the call."""

    op: str
    kind: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    name: str | None
    #: What an earlier traced call of the function reported when it left this tensor in a
    #: container (:mod:`runtime_guard.caches`): that is the mistake, and its message.
    left: LeftWhileTracing | None = None

    @property
    def code(self) -> str:
        if self.left is not None:
            return self.left.code
        return "AIG303" if self.op.rpartition(".")[2] in LAUNDERING else "AIG301"

    @property
    def message(self) -> TensorInOp | TensorToDataInOp | LeftWhileTracing:
        """The checker's message type for the same mistake, worded from what the op was handed."""
        if self.left is not None:
            return self.left
        seen = TensorToDataInOp if self.code == "AIG303" else TensorInOp
        return seen(self.kind, self.name, self.shape, str(self.dtype), self.op)

    @property
    def detail(self) -> str:
        return self.message.text()


def _op_name(func: Callable[..., Any]) -> str:
    owner = getattr(func, "__self__", None)
    if getattr(func, "__name__", "") == "__get__" and owner is not None:  # a property such as .shape
        return f"Tensor.{getattr(owner, '__name__', 'attribute')}"
    # cast: what torch hands __torch_function__ (functions, builtins, method wrappers) names itself in str.
    qualname = cast(str, getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func)))
    module = getattr(func, "__module__", None) or ""
    if qualname.startswith("TensorBase."):
        return "Tensor." + qualname.partition(".")[2]
    if module.startswith("torch"):
        return f"{module}.{qualname}".replace("torch._C._nn.", "torch.nn.functional.").replace(
            "torch.nn.functional.", "F."
        )
    return qualname


#: The assertion FakeTensorMode raises when a real tensor meets fake ones (S§1a).
_FAKE_MIX = "Please convert all Tensors to FakeTensors first"


class CaptureMode(TorchFunctionMode):
    """Reports tensor operands that are foreign to the call (see the module docstring).

    ``report`` records a foreign tensor and returns the violation it recorded (in raise
    mode it raises instead). When the op then fails because the foreign tensor is real
    and the call is being traced with fake tensors, compiling fails whatever the guard
    does; the failure is raised as the guard's :class:`ContractViolation`, chained to
    torch's error, so that the message names the variable and the fix. ``recall`` gives
    the message of a foreign tensor an earlier traced call left in a container. The
    tensors the call's ops made are kept (weakly): :meth:`made` says whether one is.
    """

    def __init__(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        names: dict[int, str],
        report: Callable[[Foreign], Violation],
        recall: Callable[[torch.Tensor], LeftWhileTracing | None] = lambda tensor: None,
    ) -> None:
        super().__init__()
        self._report = report
        self._recall = recall
        # Weak references: the mode must not keep the call's intermediates alive, and an
        # id is only trusted while its reference still resolves to the same object.
        self._known: dict[int, weakref.ref[torch.Tensor]] = {}
        self._made: dict[int, weakref.ref[torch.Tensor]] = {}
        passed = argument_tensors(args, kwargs)
        for tensor in passed.tensors:
            self._remember(tensor)
        #: Whether every tensor passed in is known, so that any other one was captured.
        self._judging = passed.complete
        self._names = names

    def _remember(self, tensor: torch.Tensor) -> None:
        self._known[id(tensor)] = weakref.ref(tensor)

    def made(self, tensor: torch.Tensor) -> bool:
        """Whether an op of the call returned ``tensor``."""
        ref = self._made.get(id(tensor))
        return ref is not None and ref() is tensor

    def _is_known(self, tensor: torch.Tensor) -> bool:
        for layer in unwrapped(tensor):  # vmap/grad wrappers of an argument are the argument
            ref = self._known.get(id(layer))
            if ref is not None and ref() is layer:
                return True
        return False

    def __torch_function__(
        self, func: Callable[..., Any], types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        found: Violation | None = None
        if self._judging:
            for leaf in tensor_leaves((args, kwargs)):
                if not self._is_known(leaf):
                    found = self._flag(func, leaf) or found
        try:
            out = func(*args, **kwargs)
        except AssertionError as error:
            if found is not None and _FAKE_MIX in str(error):
                raise ContractViolation(found, torch_error=str(error)) from error
            raise
        for leaf in tensor_leaves(out):
            self._remember(leaf)
            self._made[id(leaf)] = weakref.ref(leaf)
        return out

    def _flag(self, func: Callable[..., Any], tensor: torch.Tensor) -> Violation | None:
        self._remember(tensor)  # report each tensor once, at its first use
        try:
            kind = "parameter" if isinstance(tensor, torch.nn.Parameter) else "tensor"
            name, left = self._names.get(id(tensor)), self._recall(tensor)
            foreign = Foreign(_op_name(func), kind, tuple(tensor.shape), tensor.dtype, name, left)
        except Exception:  # noqa: BLE001 - a tensor subclass whose shape or dtype fails: torch's to judge
            return None
        # Reported at once, from inside the op: in raise mode this stops the call before
        # Dynamo's own FakeTensor assertion, whose message names no variable.
        return self._report(foreign)


def tensor_names(named: list[tuple[str, object]]) -> dict[int, str]:
    """``id(tensor) -> name`` for captured values, through modules and containers, so that a
    foreign tensor can be named by the variable it came from."""
    names: dict[int, str] = {}
    try:
        _name_tensors(named, names)
    except Exception:  # noqa: BLE001 - a captured module or container whose own code fails: fewer names
        pass
    return names


def _name_tensors(named: list[tuple[str, object]], names: dict[int, str]) -> None:
    for name, value in named:
        if isinstance(value, torch.Tensor):
            names.setdefault(id(value), name)
        elif isinstance(value, torch.nn.Module):
            for sub, tensor in [*value.named_parameters(), *value.named_buffers()]:
                names.setdefault(id(tensor), f"{name}.{sub}")
        elif isinstance(value, dict):
            names.update({id(v): f"{name}[{text(k)}]" for k, v in value.items() if isinstance(v, torch.Tensor)})
        elif isinstance(value, (list, tuple)):
            names.update({id(v): f"{name}[{i}]" for i, v in enumerate(value) if isinstance(v, torch.Tensor)})
