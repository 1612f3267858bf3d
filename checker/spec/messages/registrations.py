"""Messages about registrations: what is registered, where, and how (AIG401-AIG407)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Generic

from checker.spec.links import Place
from checker.spec.messages.base import L, Message, cite


@dataclass(frozen=True)
class ClosureRecreated(Message):
    """AIG401: a nested def named ``nested_def`` (a lambda when empty), returned by the call
    ``returned_by`` where it is registered through one, is made anew by every call of
    ``creator`` and closes over ``names``; ``defined_at`` where another module makes it."""

    code = "AIG401"
    nested_def: str
    creator: str
    names: tuple[str, ...]
    returned_by: str = ""
    #: Where the closure is, when another module makes it.
    defined_at: Place | None = None

    def text(self) -> str:
        what = f"nested def '{self.nested_def}'" if self.nested_def else "lambda"
        if self.defined_at is not None:
            what += f" ({cite(self.defined_at)})"
        if self.returned_by:
            what += f" returned by {self.returned_by}"
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


#: The class of a ``torch.library.custom_op`` object (AIG403).
CUSTOM_OP = "CustomOpDef"


@dataclass(frozen=True)
class RegistersCallableInstance(Message):
    """AIG403: ``registration`` registers ``target``, an instance of ``instance_of`` with ``__call__``."""

    code = "AIG403"
    registration: str
    target: str
    instance_of: str

    def text(self) -> str:
        fix = (
            "a custom op needs no registration: Dynamo puts its calls in the graph as they are; drop it"
            if self.instance_of == CUSTOM_OP
            else "register a plain function and pass the instance's state as arguments"
        )
        return (
            f"{self.registration}: registers {self.target}, an instance of {self.instance_of} with __call__; "
            f"the first compiled call fails with InternalTorchDynamoError (no attribute '__name__'); {fix}"
        )


@dataclass(frozen=True)
class RegistersInCompiledRegion(Message, Generic[L]):
    """AIG404: ``registration`` runs inside ``function``, compiled by the marker at ``compiled``;
    or, with ``module_class``, inside the ``forward`` of that nn.Module subclass (at
    ``compiled``) or a function it calls: compiled whenever the module is."""

    code = "AIG404"
    registration: str
    function: str
    compiled: L
    module_class: str = ""

    def text(self) -> str:
        if not self.module_class:
            where = f"{self.function}(), which is compiled ({cite(self.compiled)})"
        elif self.function == "forward":
            where = f"{self.module_class}.forward() ({cite(self.compiled)}), which is compiled whenever the module is"
        else:
            where = (
                f"{self.function}(), called from {self.module_class}.forward() ({cite(self.compiled)}); "
                "a module's forward is compiled whenever the module is"
            )
        return (
            f"{self.registration} runs inside {where}; "
            "Dynamo graph-breaks with 'Dynamically annotating functions inside a compiled region is not "
            "supported'; register once at import time, outside compiled code"
        )


#: What allow_in_graph raises for a non-callable (an assert in torch/_dynamo/decorators.py),
#: and for a staticmethod object, which cannot be weakly referenced (evidence D1).
_NOT_CALLABLE = "AssertionError: allow_in_graph expects a callable"
_STATICMETHOD = "TypeError: cannot create weak reference to 'staticmethod' object"


class Uncallable(enum.Enum):
    """What was registered instead of a callable (AIG405)."""

    INSTANCE = "instance"  # of a class without __call__
    VALUE = "value"  # a constant, None, a container...
    COLLECTION = "collection"  # a set, a dict view, a generator: iterable, not a list or tuple
    CLASSMETHOD_OBJECT = "classmethod-object"
    PROPERTY_OBJECT = "property-object"
    STATICMETHOD_OBJECT = "staticmethod-object"


#: ``{d}`` is the detail: the instance's class, or how the value is named (``a constant``).
_UNCALLABLE = {
    Uncallable.INSTANCE: "an instance of {d}, which defines no __call__",
    Uncallable.VALUE: "{d}",
    Uncallable.COLLECTION: "{d}, which is not callable and which allow_in_graph does not iterate (only a list or a tuple)",
    Uncallable.CLASSMETHOD_OBJECT: "a classmethod object, which is not callable",
    Uncallable.PROPERTY_OBJECT: "a property object, which is not callable",
    Uncallable.STATICMETHOD_OBJECT: "a staticmethod object, which cannot be weakly referenced",
}


@dataclass(frozen=True)
class RegistersNotCallable(Message):
    """AIG405: ``registration`` registers ``target``, which is ``registered`` instead of a
    callable (``detail``: the instance's class, or the value's words, ``None``, ``a constant``)."""

    code = "AIG405"
    registration: str
    target: str
    registered: Uncallable
    detail: str = ""

    def text(self) -> str:
        error, fix = _NOT_CALLABLE, "register a module-level function instead"
        if self.registered is Uncallable.STATICMETHOD_OBJECT:
            error, fix = _STATICMETHOD, "put @staticmethod above @allow_in_graph"
        elif self.registered is Uncallable.COLLECTION:
            fix = "register a list of the functions (list(...))"
        what = _UNCALLABLE[self.registered].format(d=self.detail)
        return (
            f"{self.registration}: registers {self.target}, {what}; "
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


# -- registrations as the runtime guard sees them, when allow_in_graph is called -----------

_TRACED_AS_USUAL = (
    "Dynamo silently ignores the registration and traces the body as ordinary code, so the function is "
    "not opaque; register a plain function (or a staticmethod) and call it with the values it needs"
)


class Target(enum.Enum):
    """What the guard found was registered, when torch will not honour it (AIG402)."""

    PARTIAL = "partial"
    MODULE_CLASS = "module-class"
    MODULE_INSTANCE = "module-instance"
    CLASSMETHOD = "classmethod"
    BOUND_METHOD = "bound-method"
    CLASS_BODY_METHOD = "class-body-method"
    UNHASHABLE = "unhashable"


#: ``{n}`` is the class's name, where the target is a class.
_TARGETS = {
    Target.PARTIAL: f"the target is a functools.partial; {_TRACED_AS_USUAL}",
    Target.MODULE_CLASS: f"the target is the nn.Module class {{n}}; only its construction is affected; {_TRACED_AS_USUAL}",
    Target.MODULE_INSTANCE: f"the target is an nn.Module instance; Dynamo traces modules itself; {_TRACED_AS_USUAL}",
    Target.CLASSMETHOD: f"the target is a classmethod ('C.cm is C.cm' is False); {_TRACED_AS_USUAL}",
    Target.BOUND_METHOD: (
        "the target is a bound method; 'obj.meth(...)' creates a new bound method at every call, which "
        "Dynamo does not recognise, so only calls through this very object are honoured (save it per "
        f"instance, 'self._f = allow_in_graph(self.meth)', and call self._f); otherwise {_TRACED_AS_USUAL}"
    ),
    Target.CLASS_BODY_METHOD: (
        "the target is a method decorated in a class body; calls through instances create bound methods, "
        f"which Dynamo does not recognise; {_TRACED_AS_USUAL}"
    ),
    Target.UNHASHABLE: f"the target is unhashable, so Dynamo never finds it; {_TRACED_AS_USUAL}",
}


@dataclass(frozen=True)
class TargetNotHonoured(Message):
    """AIG402 at registration: the guard saw a ``target`` torch will not honour (``name``:
    the class, for an nn.Module class)."""

    code = "AIG402"
    target: Target
    name: str = ""

    def text(self) -> str:
        return _TARGETS[self.target].format(n=self.name)


@dataclass(frozen=True)
class PropertyGetterRegistered(Message):
    """AIG101 at registration: a property getter, whose instance argument Dynamo cannot proxy."""

    code = "AIG101"

    def text(self) -> str:
        return (
            "the target is a property getter; Dynamo honours the registration and calls the getter with the "
            "instance as its argument, which it cannot proxy (D1.4): the call fails inside attribute access, "
            "where Dynamo cannot graph-break, so it gives up on the whole calling function, which then runs "
            "uncompiled (with fullgraph=True: Unsupported 'Failed to convert args/kwargs to proxy'); register a "
            "function that takes the tensors it needs, and call it from the getter"
        )


@dataclass(frozen=True)
class InstanceWithoutName(Message):
    """AIG403 at registration: an instance of ``instance_of`` that ``lacks`` a readable
    ``__name__``; ``failure`` is what the first compiled call raises."""

    code = "AIG403"
    instance_of: str
    lacks: str
    failure: str

    def text(self) -> str:
        return (
            f"the target is an instance of {self.instance_of} {self.lacks}; the first compiled call "
            f"fails with InternalTorchDynamoError ({self.failure}); register a function, or give "
            "the instance a __name__"
        )


@dataclass(frozen=True)
class NotRegistrable(Message):
    """AIG405 at registration: a staticmethod object, or a value of type ``got`` that is not callable."""

    code = "AIG405"
    got: str
    staticmethod: bool = False

    def text(self) -> str:
        if self.staticmethod:
            return (
                "got a staticmethod object, which allow_in_graph cannot register (TypeError: cannot create weak "
                "reference); put @staticmethod outermost, above @allow_in_graph"
            )
        return f"expects a callable, got {self.got}"


@dataclass(frozen=True)
class DefRegisteredAgain(Message):
    """AIG401 at registration: the same ``def`` was registered ``earlier`` (a site) with other values."""

    code = "AIG401"
    earlier: str

    def text(self) -> str:
        return (
            f"the same def was registered before at {self.earlier} with other captured values (closure cells or "
            "defaults); Dynamo guards on __code__ only, so compiled code keeps calling the first copy and "
            "returns its results on every backend; define the function once and pass the values as arguments"
        )


@dataclass(frozen=True)
class RegisteredWhileCompiling(Message):
    """AIG404 at registration: allow_in_graph was called inside a compiled region."""

    code = "AIG404"

    def text(self) -> str:
        return (
            "allow_in_graph was called inside a compiled region; Dynamo graph-breaks there ('Dynamically annotating "
            "functions inside a compiled region is not supported'); register at import time"
        )


# -- what the guard's backend sees in a compiled graph -------------------------------------


@dataclass(frozen=True)
class BodyTraced(Message):
    """AIG402 in a graph: Dynamo traced the registered body (node ``node``, from ``line``)
    instead of calling it, after a graph break for ``reason``."""

    code = "AIG402"
    node: str
    line: int
    reason: str

    def text(self) -> str:
        return (
            f"Dynamo did not call the function as one node but traced its body into the graph (node "
            f"'{self.node}' comes from line {self.line}), after a graph break at the call; Dynamo's reason: "
            f"{self.reason}; the registration is lost at this call, so the function is not opaque; pass only "
            "tensors, Python numbers and lists or tuples of them, and return tensors"
        )
