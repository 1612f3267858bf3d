"""Registration-time checks of what was passed to ``allow_in_graph`` (AIG402-AIG405).

Each check follows ``evidence/dynamo/FINDINGS.md`` section S5 and
``evidence/dynamo/FINDINGS.md`` D1, D6 and D7: which objects Dynamo honours at a call
site, which it silently ignores, and which make it fail.
"""

from __future__ import annotations

import functools
import linecache
import re
import types
from dataclasses import dataclass

import torch

from checker.spec.messages import (
    InstanceWithoutName,
    Message,
    NotRegistrable,
    PropertyGetterRegistered,
    Target,
    TargetNotHonoured,
)


@dataclass(frozen=True)
class KindFinding:
    """One finding about what was registered, worded by its message type."""

    message: Message

    @property
    def code(self) -> str:
        return self.message.code

    @property
    def detail(self) -> str:
        return self.message.text()


def judge(fn: object, caller: types.FrameType | None) -> list[KindFinding]:
    """Findings about the kind of ``fn``; ``caller`` is the frame that registered it."""
    findings: list[KindFinding] = []
    if isinstance(fn, staticmethod):
        findings.append(KindFinding(NotRegistrable("staticmethod", staticmethod=True)))
    elif not callable(fn):
        findings.append(KindFinding(NotRegistrable(type(fn).__qualname__)))
    elif isinstance(fn, functools.partial):
        findings.append(KindFinding(TargetNotHonoured(Target.PARTIAL)))
    elif isinstance(fn, type) and issubclass(fn, torch.nn.Module):
        findings.append(KindFinding(TargetNotHonoured(Target.MODULE_CLASS, fn.__qualname__)))
    elif isinstance(fn, torch.nn.Module):
        findings.append(KindFinding(TargetNotHonoured(Target.MODULE_INSTANCE)))
    elif isinstance(fn, types.MethodType) and isinstance(fn.__self__, type):
        findings.append(KindFinding(TargetNotHonoured(Target.CLASSMETHOD)))
    elif isinstance(fn, types.MethodType) and not _saved_by_owner(fn, caller):
        findings.append(KindFinding(TargetNotHonoured(Target.BOUND_METHOD)))
    elif isinstance(fn, types.FunctionType) and _in_class_body(caller) and _decorated_with_property(fn):
        findings.append(KindFinding(PropertyGetterRegistered()))
    elif isinstance(fn, types.FunctionType) and _in_class_body(caller):
        findings.append(KindFinding(TargetNotHonoured(Target.CLASS_BODY_METHOD)))
    elif not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, type)):
        error = _name_error(fn)
        if error is not None:
            if isinstance(error, AttributeError):
                lacks, failure = "without a __name__", "AttributeError: '__name__'"
            else:
                lacks, failure = "whose __name__ cannot be read", f"{type(error).__name__} from its __getattr__"
            findings.append(KindFinding(InstanceWithoutName(type(fn).__qualname__, lacks, failure)))
        if not _hashable(fn):
            findings.append(KindFinding(TargetNotHonoured(Target.UNHASHABLE)))
    return findings


def _name_error(fn: object) -> Exception | None:
    """What reading ``fn.__name__`` raises, as Dynamo will read it (``None`` when it works).

    A ``__getattr__`` may raise anything, not only AttributeError; Dynamo fails either way.
    """
    try:
        getattr(fn, "__name__")  # noqa: B009 - the lookup itself is what is judged
    except Exception as error:  # noqa: BLE001
        return error
    return None


def _saved_by_owner(method: types.MethodType, caller: types.FrameType | None) -> bool:
    """``self._f = allow_in_graph(self.meth)`` in a method of the same object is honoured (D7)."""
    if caller is None or caller.f_code.co_argcount == 0:
        return False
    return caller.f_locals.get(caller.f_code.co_varnames[0]) is method.__self__


def _in_class_body(caller: types.FrameType | None) -> bool:
    """Whether the registration runs while a class body executes (a decorated method)."""
    return caller is not None and "__module__" in caller.f_locals and "__qualname__" in caller.f_locals


def _decorated_with_property(fn: types.FunctionType) -> bool:
    """Whether the decorators above ``fn``'s ``def`` include ``@property`` (or ``@x.getter``).

    The registration runs before ``property`` wraps the getter, so only the source shows it;
    ``co_firstlineno`` is the line of the first decorator.
    """
    code = fn.__code__
    lines: list[str] = []
    for number in range(code.co_firstlineno, code.co_firstlineno + 20):
        line = linecache.getline(code.co_filename, number).strip()
        if not line or line.startswith(("def ", "async def ")):
            break
        lines.append(line)
    return any(re.match(r"@(\w+\.)*(property|cached_property|getter)\b", line) for line in lines)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
