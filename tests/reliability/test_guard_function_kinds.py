"""A guarded coroutine, generator or async generator function keeps its kind.

``inspect`` (and every framework that dispatches on it: asyncio, pytest, FastAPI) must see
the same kind of function under the guard as with torch, and calling it must give the
same kind of object with the same values.
"""

from __future__ import annotations

import asyncio
import inspect

import pytest
import torch
from guard_modes import MODES, outcome


async def doubled(x):
    return x * 2


def counted(n):
    yield from range(n)
    return "done"


async def ticks(n):
    for i in range(n):
        yield i


def _kind(fn: object) -> tuple[bool, bool, bool]:
    return inspect.iscoroutinefunction(fn), inspect.isgeneratorfunction(fn), inspect.isasyncgenfunction(fn)


async def _collect(agen) -> list[int]:
    return [item async for item in agen]


def program(_: str) -> dict[str, object]:
    found: dict[str, object] = {}
    registered = [torch.compiler.allow_in_graph(fn) for fn in (doubled, counted, ticks)]
    for fn in registered:
        found[fn.__name__] = _kind(fn)
    coroutine, generator, agen = registered[0](torch.ones(2)), registered[1](3), registered[2](2)
    found["called"] = [type(coroutine).__name__, type(generator).__name__, type(agen).__name__]
    found["coroutine"] = asyncio.run(coroutine).tolist()
    found["generator"] = list(generator)
    sent = registered[1](2)
    found["send"] = [next(sent), sent.send(None)]
    with pytest.raises(StopIteration) as stop:
        next(sent)
    found["return"] = stop.value.value
    found["async generator"] = asyncio.run(_collect(agen))
    return found


@pytest.mark.parametrize("mode", MODES[1:])
def test_function_kinds_are_kept(mode: str) -> None:
    expected = outcome(program, "torch")
    assert expected[0]["doubled"] == (True, False, False) and expected[0]["ticks"] == (False, False, True)
    assert outcome(program, mode) == expected


def test_direct_registration_keeps_kinds_too() -> None:
    import runtime_guard as rg

    with rg.strict("warn"):
        registered = [rg.allow_in_graph(fn) for fn in (doubled, counted, ticks)]
    assert [_kind(fn) for fn in registered] == [_kind(fn) for fn in (doubled, counted, ticks)]
