"""Messages about caches of tensors a registered function reads (AIG301; evidence S§12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from checker.spec.contract import CLAUSE_TEXT, CONSEQUENCE_TEXT, Clause, Consequence
from checker.spec.messages.base import Call, Function, L, Message, bound, cite, lead

#: What a cache of tensors does beyond a captured tensor (S§12).
_POISONED = (
    "and a cache still empty at the first compiled call keeps a FakeTensor made while compiling, "
    "so every later eager call fails too"
)
_BREAKS = (
    f"the contract says {CLAUSE_TEXT[Clause.CAPTURES]} ({CONSEQUENCE_TEXT[Consequence.CAPTURED_TENSOR_FAILS]}), "
    f"{_POISONED}"
)


@dataclass(frozen=True)
class ReadsTensorMemo(Message, Generic[L]):
    """AIG301: reads ``name`` from ``source``, a memo that the code fills with tensors at
    ``filled`` (None when that is in another module)."""

    code = "AIG301"
    fixes_the_function = True
    function: Function | None
    name: str
    source: str
    bound: L | None = None
    filled: L | None = None
    chain: tuple[Call[L], ...] = ()

    def text(self) -> str:
        filled = "" if self.filled is None else f" filled at {cite(self.filled)}"
        return (
            f"{lead(self.function, self.chain)}reads '{self.name}' from {self.source}{bound(self.bound)}, "
            f"a cache of tensors{filled}; {_BREAKS}; build the tensors outside the registered function "
            "and pass them as arguments"
        )


@dataclass(frozen=True)
class CallsTensorCache(Message, Generic[L]):
    """AIG301: calls ``name``, a def that ``decorator`` (``functools.lru_cache``) caches and
    that returns tensors, defined at ``bound``."""

    code = "AIG301"
    fixes_the_function = True
    function: Function | None
    name: str
    decorator: str
    bound: L | None = None
    chain: tuple[Call[L], ...] = ()

    def text(self) -> str:
        return (
            f"{lead(self.function, self.chain)}calls {self.name}(){bound(self.bound)}, a {self.decorator} "
            f"function that returns the tensors it cached; {_BREAKS}; call it outside the registered "
            "function and pass its result as an argument"
        )
