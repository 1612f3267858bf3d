"""AIG301 captured-tensor."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.captures.caches import CachedCapture, CacheForm
from checker.facts.captures.capture import Holder
from checker.facts.kinds.kind import Kind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.messages import (
    Call,
    CallsTensorCache,
    DefaultIsTensor,
    Function,
    Message,
    ReadsCapturedTensor,
    ReadsTensorMemo,
)

_WHAT = {Kind.TENSOR: "tensor", Kind.MODULE: "module", Kind.TENSOR_CONTAINER: "container of tensors"}


class CapturedTensor(Rule):
    """A registered function uses a tensor (or module) that is not one of its arguments.

    ## What it does
    Reports each read, inside a function registered with `allow_in_graph`, of a tensor,
    `nn.Parameter`, buffer, `nn.Module` or container of tensors that comes from outside
    the function: a module global, a closure variable, a default argument, or an
    attribute of `self` in a registered bound method, or an attribute the project stores
    a module or a tensor in (`state.head = nn.Linear(3, 3)` in a setup function, in this
    module or another, for `state.head(x)`: where the attribute is assigned both a tensor
    and other values, the read is reported here, since compiling with a tensor there fails
    loudly, S1a, before any staleness could matter). Tensor-ness is inferred from
    assignments (`torch.ones(...)`, `nn.Parameter(...)`, `nn.Linear(...)`, tensor
    arithmetic, `torch.Tensor` annotations); a name whose kind cannot be inferred is
    not reported. Reads inside helper functions that the registered function calls are
    followed three calls deep (cycle-safe), into other modules of the project too, and
    the message gives the call chain; a read in another module's helper is reported at
    the call that leads there, naming the helper's file and line. A cache of tensors is a
    captured tensor too: a memo dict that the code fills with tensors where a key is
    missing (in every spelling AIG302 knows for memos), read in the function or its
    helpers, and a call of a def decorated with `functools.cache` or
    `functools.lru_cache` that returns tensors; a cache of Python values is not (a
    cached def returning a number is an ordinary helper).

    ## Why is this bad?
    The contract says every tensor the function uses must come in as an argument.
    Dynamo runs the function once on FakeTensors while compiling, and a real captured
    tensor meeting a FakeTensor in an op fails the first compiled call on every backend
    with `TorchRuntimeError ... Please convert all Tensors to FakeTensors first`, an
    error that names no variable (evidence: `evidence/dynamo/FINDINGS.md`
    section S1a; `exp_captured_tensors.py`, `exp_captured_evasions.py`). Through a
    cache it is worse: a cache still empty at the first compiled call keeps the
    FakeTensor made while compiling, and every later call of the program fails, eager
    ones too, until the cache is cleared (S§12; `exp_cache_of_tensors.py`). The
    runtime guard sees that FakeTensor itself: after each traced call it reports one
    the call left in a cache or container the function reaches, naming it (`dict
    pkg.kernels._MEMO, key 4`, `lru_cache of pkg.kernels._table`); see README, "Strict
    mode at run time".

    ## Example
    ```python
    import torch

    scale = torch.ones(4)

    @torch.compiler.allow_in_graph
    def rescale(x):
        return x * scale  # AIG301
    ```

    ## Use instead
    ```python
    import torch

    scale = torch.ones(4)

    @torch.compiler.allow_in_graph
    def rescale(x, scale):
        return x * scale
    ```
    """

    code = "AIG301"
    summary = "A registered function reads a tensor, parameter, buffer or module that is not an argument."

    invalid = (
        Invalid(
            """
            import torch
            from torch import nn

            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Linear(4, 4)
                    self.register_buffer("gain", torch.ones(4))
                    self._fn = torch.compiler.allow_in_graph(self.apply_gain)

                def apply_gain(self, x):
                    return self.proj(x) * self.gain  # AIG301 AIG301

            def make_weighted():
                weights = {"a": torch.ones(4)}

                @torch.compiler.allow_in_graph  # AIG401
                def weighted(x):
                    return x * weights["a"]  # AIG301
                return weighted

            W = torch.randn(4)

            @torch.compiler.allow_in_graph
            def with_default(x, w=W * 2):  # AIG301
                return x * w
            """,
            messages=(DefaultIsTensor(Function("with_default"), "w", "tensor"),),
        ),
        """
        import torch

        @torch.compiler.allow_in_graph
        def uses_later_global(x):
            return x + bias  # AIG301

        bias: torch.Tensor = load_bias()
        """,
        Invalid(
            """
            import torch

            TABLE = torch.linspace(0, 1, 16)

            def lookup(idx):
                return TABLE[idx]  # AIG301

            def ping(n):
                return pong(n - 1) if n else lookup(n)

            def pong(n):
                return ping(n)

            @torch.compiler.allow_in_graph
            def embed(idx):
                return ping(idx) * 2
            """,
            messages=(
                ReadsCapturedTensor(
                    Function("embed"),
                    "tensor",
                    "TABLE",
                    "the module scope",
                    bound=3,
                    chain=(Call("ping", 16), Call("lookup", 9)),
                ),
            ),
        ),
        Invalid(
            """
            import functools

            import torch

            _MASKS = {}

            def causal_mask(n):
                mask = _MASKS.get(n)  # AIG301
                if mask is None:
                    mask = _MASKS[n] = torch.ones(n, n, dtype=torch.bool).tril()  # AIG301
                return mask

            @functools.lru_cache(maxsize=None)
            def positions(n):
                return torch.arange(n)

            @torch.compiler.allow_in_graph
            def masked(x):
                n = x.shape[-1]
                return x.masked_fill(~causal_mask(n), 0.0) + positions(n)  # AIG301
            """,
            messages=(
                ReadsTensorMemo(
                    Function("masked"),
                    "_MASKS",
                    "the module scope",
                    bound=5,
                    filled=10,
                    chain=(Call("causal_mask", 20),),
                ),
                CallsTensorCache(Function("masked"), "positions", "functools.lru_cache", bound=14),
            ),
        ),
        Invalid(
            """
            from types import SimpleNamespace

            import torch

            state = SimpleNamespace(head=None)

            class Box:
                def __init__(self):
                    self.proj = None

            box = Box()

            def setup():
                state.head = torch.nn.Linear(3, 3)
                box.proj = torch.nn.Linear(3, 3)

            @torch.compiler.allow_in_graph
            def project(x):
                return state.head(x) + box.proj(x)  # AIG301 AIG301
            """,
            messages=(
                ReadsCapturedTensor(
                    Function("project"), "module", "state.head", "the attribute setup() assigns", bound=14
                ),
            ),
        ),
    )
    valid = (
        """
        import torch

        W = load_weights()  # kind unknown: not reported

        @torch.compiler.allow_in_graph
        def local_tensors(x):
            W = torch.ones(4)
            scales = [x * w for w in (1.0, 2.0)]
            return x * W + sum(scales)

        @torch.compiler.allow_in_graph
        def shadowed(x, W):
            return x * W
        """,
        """
        import torch

        class Config:
            W = torch.ones(4)

            @staticmethod
            @torch.compiler.allow_in_graph
            def method(x):
                return x * 2  # class bodies do not enclose methods: no capture

        @torch.compiler.allow_in_graph
        def comprehension_scope(xs):
            return [w * 2 for w in xs]
        """,
        """
        import functools

        import torch

        _SCALES = {}

        @functools.cache
        def inverse_sqrt(n) -> float:
            return n**-0.5  # a cache of Python values: an ordinary helper

        def scale(n):
            if n not in _SCALES:
                _SCALES[n] = inverse_sqrt(n) * 2
            return _SCALES[n]

        @torch.compiler.allow_in_graph
        def scaled(x):
            return x * scale(x.shape[-1]) * inverse_sqrt(x.shape[-1])
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for capture in facts.captures():
            kind = capture.inferred.kind
            if not kind.is_tensor_like or (kind is Kind.TENSOR and capture.laundered):
                continue
            what, function, chain = _WHAT[kind], words.function(capture.function), words.chain(capture)
            message: Message
            if isinstance(capture, CachedCapture):
                message = _cached(capture, function, chain)
            elif capture.source.holder is Holder.DEFAULT:
                message = DefaultIsTensor(function, capture.name, what, chain)
            else:
                source = words.source(capture)
                message = ReadsCapturedTensor(function, what, capture.name, source, capture.binding, chain)
            yield report(capture.node, message)


def _cached(capture: CachedCapture, function: Function, chain: tuple[Call[cst.CSTNode], ...]) -> Message:
    """A memo of tensors, or a call of a cached def that returns them (S§12)."""
    cache = capture.cache
    assert cache is not None
    # A read in another module's helper cites that module's lines as places, not nodes.
    here = capture.source.module is None
    binding = capture.binding if here else None
    if cache.form is CacheForm.FUNCTION:
        return CallsTensorCache(function, capture.name, cache.decorator, binding, chain)
    filled = cache.filled if here else None
    return ReadsTensorMemo(function, capture.name, words.source(capture), binding, filled, chain)
