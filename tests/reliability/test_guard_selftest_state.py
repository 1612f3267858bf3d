"""``check_allow_in_graph`` leaves what the process compiled alone.

A self test in the middle of a program (a test session, a notebook) must not make every
compiled function of the caller compile again: it compiles its own probes, and resets
nothing of Dynamo's.
"""

from __future__ import annotations

import warnings

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend

import runtime_guard as rg


def scaled(x):
    return x * 3


def test_the_self_test_keeps_the_callers_compiled_code() -> None:
    torch._dynamo.reset()
    counter = CompileCounterWithBackend("inductor")
    caller = torch.compile(lambda x: torch.sin(x) + 1, backend=counter)
    x = torch.ones(3)
    expected = caller(x)
    assert counter.frame_count == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rg.ContractWarning)
        report = rg.check_allow_in_graph(scaled, torch.ones(4), runs=(("eager", False), ("inductor", False)))
    assert report.ok and [r.graphs for r in report.results] == [1, 1]
    assert torch.equal(caller(x), expected)
    assert counter.frame_count == 1  # served from the cache the self test left alone
    rg.registry.clear_violations()
    torch._dynamo.reset()
