"""Messages about what a registered body does (AIG501-AIG503), and about a file that
could not be analysed (AIG900)."""

from __future__ import annotations

from dataclasses import dataclass

from checker.spec.messages.base import Function, Message


@dataclass(frozen=True)
class SideEffectAtTraceTime(Message):
    """AIG501: ``function`` does ``does`` (``calls print()``) inside a registered function."""

    code = "AIG501"
    fixes_the_function = True
    function: Function
    does: str

    def text(self) -> str:
        return (
            f"{self.function}: {self.does} inside a registered function; it runs once at compile time plus once "
            "per call under eager, but three times at compile time and never again under aot_eager and "
            "inductor; move it outside the registered function"
        )


@dataclass(frozen=True)
class DecidesOnData(Message):
    """AIG502: ``function`` does ``does`` (``branches on a tensor value in 'if'``)."""

    code = "AIG502"
    fixes_the_function = True
    function: Function
    does: str

    def text(self) -> str:
        return (
            f"{self.function}: {self.does}; Dynamo cannot decide it on fake tensors, so it graph-breaks and traces "
            "the body (losing the registration) or fails under fullgraph=True; use tensor ops such as "
            "torch.where, or decide outside the registered function"
        )


@dataclass(frozen=True)
class ReadsHostMemory(Message):
    """AIG503: ``function`` does ``does`` (``calls .numpy() on a tensor``), which needs real data."""

    code = "AIG503"
    fixes_the_function = True
    function: Function
    does: str

    def text(self) -> str:
        return (
            f"{self.function}: {self.does}; AOTAutograd and Inductor trace the body with FakeTensors, which have "
            "no data, so compiling fails; wrap the host-side code in a torch.library.custom_op with a fake "
            "implementation"
        )


@dataclass(frozen=True)
class NotAnalysed(Message):
    """AIG900: the file was not analysed; ``reason`` says why, as the reader that gave up words it."""

    code = "AIG900"
    reason: str

    def text(self) -> str:
        return self.reason
