"""Message types: per code, the fields a finding's sentence needs and the one ``text()``
that words it, for the checker's rules and the runtime guard alike.

A rule turns its facts into these fields (``checker/rules/_wording.py`` words enums and
places) and never joins a sentence itself; the runtime guard builds the same types for
the same mistakes. Standard library only, like the code table next door
(:mod:`checker.spec.catalog`), so that the runtime guard can import it without libcst.

A message that cites a line of the file it is about holds that line as ``L``: its number
once rendered. A rule sees syntax before positions are known, so it holds the node, and
the engine numbers every cited node in one pass before calling ``text()``
(``checker/rules/base.py``). A line of another file is a :class:`~checker.spec.links.Place`.
"""

from __future__ import annotations

from checker.spec.messages.base import (
    FIX_FOLLOWS,
    MESSAGES,
    Call,
    Function,
    Installed,
    Message,
    bound,
    cite,
    installed_fix,
    lead,
    place,
)
from checker.spec.messages.bodies import (
    DecidesOnData,
    NotAnalysed,
    ReadsHostMemory,
    SideEffectAtTraceTime,
)
from checker.spec.messages.caches import CallsTensorCache, ReadsTensorMemo
from checker.spec.messages.captures import (
    DefaultIsMutable,
    DefaultIsTensor,
    LaundersCapturedTensor,
    LeftWhileTracing,
    ReadsCapturedTensor,
    ReadsChangingState,
    TensorInOp,
    TensorToDataInOp,
)
from checker.spec.messages.registrations import (
    BodyTraced,
    ClosureRecreated,
    DefRegisteredAgain,
    Ignored,
    InstanceWithoutName,
    MarkersConflict,
    NotRegistrable,
    PropertyGetterRegistered,
    RegisteredWhileCompiling,
    RegistersCallableInstance,
    RegistersInCompiledRegion,
    RegistersNotCallable,
    RegistrationIgnored,
    Target,
    TargetNotHonoured,
    Uncallable,
    UsesPrivateApi,
)
from checker.spec.messages.values import (
    AnnotatedUnproxyableResult,
    AnnotatedUntraceableSubclass,
    ArgumentUnproxyable,
    ArgumentValueHardError,
    ArgumentValueUnproxyable,
    ConstructsUnproxyable,
    ConstructsUntraceableSubclass,
    GraphBrokeOnResult,
    ParameterHardError,
    ParameterIsCtx,
    ParameterUndocumented,
    ParameterUnproxyable,
    Passed,
    ResultValueBaked,
    ResultValueUnproxyable,
    ReturnsBakedNumber,
    ReturnsUnproxyable,
    ReturnsUntraceableSubclass,
)

__all__ = [
    "Uncallable",
    "Passed",
    "BodyTraced",
    "GraphBrokeOnResult",
    "DefRegisteredAgain",
    "InstanceWithoutName",
    "NotRegistrable",
    "PropertyGetterRegistered",
    "RegisteredWhileCompiling",
    "Target",
    "TargetNotHonoured",
    "ArgumentValueHardError",
    "ArgumentValueUnproxyable",
    "ResultValueBaked",
    "ResultValueUnproxyable",
    "AnnotatedUnproxyableResult",
    "AnnotatedUntraceableSubclass",
    "ArgumentUnproxyable",
    "Call",
    "CallsTensorCache",
    "ClosureRecreated",
    "ConstructsUnproxyable",
    "ConstructsUntraceableSubclass",
    "DecidesOnData",
    "DefaultIsMutable",
    "DefaultIsTensor",
    "Function",
    "Ignored",
    "Installed",
    "LaundersCapturedTensor",
    "LeftWhileTracing",
    "MESSAGES",
    "MarkersConflict",
    "Message",
    "NotAnalysed",
    "ParameterHardError",
    "ParameterIsCtx",
    "ParameterUndocumented",
    "ParameterUnproxyable",
    "ReadsCapturedTensor",
    "ReadsChangingState",
    "ReadsHostMemory",
    "ReadsTensorMemo",
    "RegistersCallableInstance",
    "RegistersInCompiledRegion",
    "RegistersNotCallable",
    "RegistrationIgnored",
    "ReturnsBakedNumber",
    "ReturnsUnproxyable",
    "ReturnsUntraceableSubclass",
    "SideEffectAtTraceTime",
    "TensorInOp",
    "TensorToDataInOp",
    "UsesPrivateApi",
    "bound",
    "cite",
    "installed_fix",
    "FIX_FOLLOWS",
    "lead",
    "place",
]
