"""Messages about registrations: what is registered, where, and how (AIG401-AIG407)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Generic

from checker.spec.links import Place
from checker.spec.messages.base import L, Message, cite


@dataclass(frozen=True)
class ClosureRecreated(Message):
    """AIG401: ``closure`` (``lambda``, ``nested def 'f'``, each ``returned_by`` a call) is
    made anew by every call of ``creator`` and closes over ``names``."""

    code = "AIG401"
    closure: str
    creator: str
    names: tuple[str, ...]
    returned_by: str = ""

    def text(self) -> str:
        what = f"{self.closure} returned by {self.returned_by}" if self.returned_by else self.closure
        listed = ", ".join(f"'{name}'" for name in self.names)
        pass_as = "as an argument" if len(self.names) == 1 else "as arguments"
        return (
            f"{what} is created anew by every call of {self.creator}() and closes over {listed}; "
            "Dynamo guards on __code__, so another closure from the same code silently reuses "
            f"the values of the first one compiled; define it at module level and pass {listed} {pass_as}"
        )


class Ignored(enum.Enum):
    """Why torch does not honour a registration (AIG402): what was registered."""

    DISCARDED_BOUND_METHOD = "discarded-bound-method"
    BYPASSED_BOUND_METHOD = "bypassed-bound-method"
    METHOD = "method"
    CLASSMETHOD = "classmethod"
    PROPERTY = "property"
    PARTIAL = "partial"
    MODULE_INSTANCE = "module-instance"
    MODULE_CLASS = "module-class"
    UNHASHABLE_INSTANCE = "unhashable-instance"


#: ``{t}`` is the target as written, ``{d}`` the detail (an instance's class, what a module is).
_IGNORED = {
    Ignored.DISCARDED_BOUND_METHOD: (
        "registers the bound method {t}, a new object each time it is looked up; "
        "calls of {t}(...) are traced as usual. Keep the registered object "
        "(self._fn = allow_in_graph(...)) and call through it, or register a module-level function"
    ),
    Ignored.BYPASSED_BOUND_METHOD: (
        "keeps the registered bound method {t}, but the class also calls {t}(...) "
        "({r}), which looks the method up afresh and is traced as usual; call the kept object instead, or assign "
        "it back to the method's own name (self.meth = allow_in_graph(self.meth))"
    ),
    Ignored.METHOD: (
        "registers {t}, a method called through instances or its class; each lookup makes a "
        "new bound method, so the body is traced as usual. Register a module-level function "
        "(or a @staticmethod with allow_in_graph applied beneath it) instead"
    ),
    Ignored.CLASSMETHOD: (
        "registers the classmethod {t}; each lookup makes a new bound method, so the body is "
        "traced as usual. Register a module-level function instead"
    ),
    Ignored.PROPERTY: (
        "registers the getter of property {t}; Dynamo cannot pass 'self' to it and gives up on "
        "the whole calling frame (WON'T CONVERT), which then runs uncompiled without a warning. Register a "
        "module-level function that takes the tensors it needs"
    ),
    Ignored.PARTIAL: (
        "registers a functools.partial ({t}); Dynamo inlines partials, so the registration is "
        "ignored. Register the underlying function and pass the bound arguments explicitly"
    ),
    Ignored.MODULE_INSTANCE: (
        "registers {t}, an nn.Module instance ({d}); Dynamo traces modules as usual, "
        "so the registration is ignored. Register a function that takes the tensors it needs as arguments"
    ),
    Ignored.MODULE_CLASS: (
        "registers the nn.Module subclass {t}; only constructing it is affected, and its "
        "forward is traced as usual. Register the function its forward calls instead"
    ),
    Ignored.UNHASHABLE_INSTANCE: (
        "registers {t}, an instance of {d}, which is unhashable (__eq__ without __hash__, or a "
        "non-frozen dataclass); Dynamo's lookup skips unhashable callables, so the registration is ignored"
    ),
}


@dataclass(frozen=True)
class RegistrationIgnored(Message, Generic[L]):
    """AIG402: ``registration`` registers ``target``, which torch does not honour (``ignored``
    says why); ``detail`` and ``bypass`` (the call that looks the method up afresh) where the
    reason needs them."""

    code = "AIG402"
    registration: str
    target: str
    ignored: Ignored
    detail: str = ""
    bypass: L | None = None

    def text(self) -> str:
        bypass = "" if self.bypass is None else cite(self.bypass)
        reason = _IGNORED[self.ignored].format(t=self.target, d=self.detail, r=bypass)
        return f"{self.registration}: {reason}"


@dataclass(frozen=True)
class RegistersCallableInstance(Message):
    """AIG403: ``registration`` registers ``target``, an instance of ``instance_of`` with ``__call__``."""

    code = "AIG403"
    registration: str
    target: str
    instance_of: str

    def text(self) -> str:
        return (
            f"{self.registration}: registers {self.target}, an instance of {self.instance_of} with __call__; "
            "the first compiled call fails with InternalTorchDynamoError (no attribute '__name__'); "
            "register a plain function and pass the instance's state as arguments"
        )


@dataclass(frozen=True)
class RegistersInCompiledRegion(Message, Generic[L]):
    """AIG404: ``registration`` runs inside ``function``, compiled by the marker at ``compiled``."""

    code = "AIG404"
    registration: str
    function: str
    compiled: L

    def text(self) -> str:
        return (
            f"{self.registration} runs inside {self.function}(), which is compiled ({cite(self.compiled)}); "
            "Dynamo graph-breaks with 'Dynamically annotating functions inside a compiled region is not "
            "supported'; register once at import time, outside compiled code"
        )


#: What allow_in_graph raises for a non-callable (an assert in torch/_dynamo/decorators.py),
#: and for a staticmethod object, which cannot be weakly referenced (evidence D1).
_NOT_CALLABLE = "AssertionError: allow_in_graph expects a callable"
_STATICMETHOD = "TypeError: cannot create weak reference to 'staticmethod' object"


@dataclass(frozen=True)
class RegistersNotCallable(Message):
    """AIG405: ``registration`` registers ``target``, which is ``what`` (``None``, ``a
    classmethod object, which is not callable``); ``staticmethod``: a staticmethod object."""

    code = "AIG405"
    registration: str
    target: str
    what: str
    staticmethod: bool = False

    def text(self) -> str:
        error, fix = (
            (_STATICMETHOD, "put @staticmethod above @allow_in_graph")
            if self.staticmethod
            else (_NOT_CALLABLE, "register a module-level function instead")
        )
        return (
            f"{self.registration}: registers {self.target}, {self.what}; "
            f"allow_in_graph raises '{error}' when this runs; {fix}"
        )


@dataclass(frozen=True)
class MarkersConflict(Message, Generic[L]):
    """AIG406: ``target``, registered by ``registration``, is also marked ``marker`` at ``marked``."""

    code = "AIG406"
    registration: str
    target: str
    marker: str
    marked: L | Place

    def text(self) -> str:
        return (
            f"{self.registration}: {self.target} is also marked {self.marker} ({cite(self.marked)}); the markers "
            "ask Dynamo for different treatments and which one wins depends on their order "
            "and torch internals; keep only the one you mean"
        )


@dataclass(frozen=True)
class UsesPrivateApi(Message):
    """AIG407: the private spelling of allow_in_graph; ``fixable`` when ``--fix`` rewrites it."""

    code = "AIG407"
    fixable: bool

    def text(self) -> str:
        how = "; --fix rewrites it" if self.fixable else ""
        return (
            "uses the private torch._dynamo.allow_in_graph; the public torch.compiler.allow_in_graph is "
            f"the same function{how}"
        )
