"""AIG302 captured-mutable-state."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from checker.facts.captures.capture import Capture, Holder
from checker.facts.kinds.kind import Kind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.rules.base import Invalid, Rule, RuleFinding, report
from checker.spec.links import Place
from checker.spec.messages import DefaultIsMutable, Function, Message, ReadsChangingState

_MUTABLE = {Kind.MUTABLE: "mutable container", Kind.NDARRAY: "numpy array"}
_WHAT = {**_MUTABLE, Kind.OBJECT: "object"}


class CapturedMutableState(Rule):
    """A registered function reads Python state that can change after compilation.

    ## What it does
    Reports each read, inside a function registered with `allow_in_graph`, of non-tensor
    state from outside the function that the checked project shows can change after
    compilation: a global, closure variable or module attribute (`config.X`, `cfg.X`,
    `pkg.config.X`) that a function rebinds (`global`/`nonlocal`), another module assigns
    (`config.X = v`), an augmented assignment updates, or a top-level loop or
    `if __name__ == "__main__":` block rebinds; one that is changed in place (`d[k] = v`,
    `xs.append(v)`, `obj.attr = v`, `del d[k]`) by a function of its module or by any
    other module of the project (through a re-export too: `from pkg import FLAGS`); a numpy
    array. An attribute of an object (`CFG.opts.scale`, `NS.alpha`, `self.k`, a
    `SimpleNamespace`, a dataclass instance) is state only where a write reaches the
    attribute read: an assignment, `setattr`/`delattr` or `del` of it or of one on its way
    (`CFG.opts = dataclasses.replace(CFG.opts, ...)`), a mutating method called on it, in a
    function or in another module, or a method of the object's class other than
    `__init__`/`__post_init__` that assigns `self.<attr>`; each read cites the write of its
    own attribute, and an object never written after import (frozen defaults, attributes
    set only while the object is made) is a constant. So is an attribute of a class that
    the project patches (`Block.forward = patched`), never `isinstance(x, Block)`,
    `Block(...)` or its other attributes; and an environment variable read at call time
    (`os.environ.get("K")`, `os.environ["K"]`, `os.getenv("K")`) that the project sets
    (`os.environ["K"] = v`, `update`, `setdefault`, `pop`, `os.putenv`,
    `monkeypatch.setenv`; a key that is not a literal names no variable). The message
    names the line that rebinds or changes it. Not state: constants
    and containers that nothing changes after import (a set of dtypes, a table built at
    import), memoisation caches, names bound to functions, classes or modules (import
    fallbacks and if/else definitions included), and names whose value cannot be
    inferred and that nothing changes. A memoisation cache is a container written only
    where the key is missing, in any spelling: `if k not in C:`, `v = C.get(k)` (or
    `C.get(k, None)`, or a walrus) then `if v is None:` or `if not v:`, `if k in C:
    return ...` or its `else`, `if v is not None: return v`, `try: ... C[k] ... except
    KeyError:`, `C.setdefault(k, v)`, a loop over keys, and a second cache filled under
    the same lookup with a value computed from the key; `functools.cache` and
    `lru_cache` are memos too. It stays state when anything else changes it: `C.clear()`,
    `del C[k]`, a rebinding, or a write of a function that does not look the key up. A
    memo of tensors is AIG301 (S§12).

    ## Why is this bad?
    Dynamo does not guard on anything the function reads. Under `aot_eager` and
    `inductor` the value read while compiling is frozen into the graph: after the state
    changes, the compiled function silently keeps using the old value, with no warning
    and no recompile, while the `eager` backend sees the new value, so the bug hides in
    debug runs (evidence: `evidence/dynamo/FINDINGS.md` sections S1b and S4, the
    rows marked STALE; `exp_captured_evasions.py`, `exp_recreated_closure.py`,
    `exp_body_behaviours.py`).

    ## Example
    ```python
    import torch

    config = {"scale": 2.0}

    @torch.compiler.allow_in_graph
    def rescale(x):
        return x * config["scale"]  # AIG302

    def set_scale(value):
        config["scale"] = value
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def rescale(x, scale: float):
        return x * scale
    ```
    """

    code = "AIG302"
    summary = "A registered function reads non-tensor state that can change after compilation."

    invalid = (
        Invalid(
            """
            import numpy as np
            import torch

            SCALE = 1.0
            ENABLED = True
            TABLE = np.arange(4.0)

            def configure(scale):
                global SCALE
                SCALE = scale

            @torch.compiler.allow_in_graph
            def scaled(x):
                if ENABLED:  # AIG302
                    x = x * SCALE  # AIG302
                return x * torch.as_tensor(TABLE)  # AIG302

            for ENABLED in (True, False):
                pass
            """,
            messages=(
                ReadsChangingState(
                    Function("scaled"),
                    "",
                    "SCALE",
                    "the module scope",
                    "and it is reassigned through 'global SCALE' in configure()",
                    changed=10,
                    bound=4,
                ),
                ReadsChangingState(
                    Function("scaled"),
                    "numpy array",
                    "TABLE",
                    "the module scope",
                    "which can be changed in place",
                    bound=6,
                ),
            ),
        ),
        """
        import torch

        class Scaler:
            def __init__(self, k):
                self.k = k
                self.fn = torch.compiler.allow_in_graph(self.apply)

            def apply(self, x):
                return x * self.k  # AIG302

            def set_k(self, k):
                self.k = k
        """,
        """
        import torch

        STEPS = 0

        @torch.compiler.allow_in_graph
        def counted(x):
            return x * STEPS  # AIG302

        STEPS += 1
        """,
        """
        import torch

        FLAGS = {"fast": True}

        @torch.compiler.allow_in_graph
        def gated(x):
            return x * 2 if FLAGS["fast"] else x  # AIG302

        def disable_fast_path():
            FLAGS["fast"] = False
        """,
        """
        import torch

        _PLANS = {}

        def plan(n):
            if n not in _PLANS:
                _PLANS[n] = n * 2
            return _PLANS[n]

        def reset_plans():
            _PLANS.clear()  # a memo that something clears is state

        @torch.compiler.allow_in_graph
        def planned(x):
            return x * _PLANS[x.shape[-1]]  # AIG302
        """,
        Invalid(
            """
            import dataclasses
            import os
            from dataclasses import dataclass
            from types import SimpleNamespace

            import torch

            @dataclass
            class Opts:
                scale: float = 1.0

            class Holder:
                def __init__(self):
                    self.opts = Opts()

            CFG = Holder()
            NS = SimpleNamespace(alpha=1.0, beta=2.0)

            def set_scale(v):
                CFG.opts = dataclasses.replace(CFG.opts, scale=v)

            def set_alpha(v):
                setattr(NS, "alpha", v)

            def enable():
                os.environ["FAST"] = "1"

            @torch.compiler.allow_in_graph
            def scaled(x):
                y = x * CFG.opts.scale * NS.alpha  # AIG302 AIG302
                return y * NS.beta if os.environ.get("FAST") else y  # AIG302
            """,
            messages=(
                ReadsChangingState(
                    Function("scaled"),
                    "object",
                    "CFG.opts",
                    "a Holder object",
                    "and the code assigns 'CFG.opts'",
                    changed=20,
                ),
                ReadsChangingState(
                    Function("scaled"),
                    "",
                    "NS.alpha",
                    "the module scope",
                    "and the code assigns 'NS.alpha'",
                    changed=23,
                ),
                ReadsChangingState(
                    Function("scaled"),
                    "environment variable",
                    "FAST",
                    "the process environment",
                    "and the code sets it",
                    changed=26,
                ),
            ),
        ),
        """
        import torch

        class Counter:
            def __init__(self):
                self.step = 0
                self.fn = torch.compiler.allow_in_graph(self.apply)

            def apply(self, x):
                return x * self.step  # AIG302

            def advance(self):
                self.step += 1
        """,
    )
    valid = (
        """
        import torch

        _FP8 = {torch.float8_e4m3fn, torch.float8_e5m2}
        _BLOCKS = [16, 32, 64]
        _BLOCKS.append(128)  # at import, before anything is compiled
        _PLANS = {}

        def plan(n):
            if n not in _PLANS:
                _PLANS[n] = tuple(range(n))
            return _PLANS[n]

        @torch.compiler.allow_in_graph
        def cast(x, dtype):
            assert dtype in _FP8 and x.shape[-1] in _BLOCKS
            return x.to(dtype) * len(_PLANS)
        """,
        """
        import torch

        EPS = 1e-5
        DTYPE = torch.float16
        SHAPE = (2, 2)
        NAME = "block"

        @torch.compiler.allow_in_graph
        def normalise(x):
            return (x / (x.norm() + EPS)).to(DTYPE).reshape(SHAPE)
        """,
        """
        import torch

        try:
            from fast_ops import SCALE
        except ImportError:
            SCALE = 2.0

        @torch.compiler.allow_in_graph
        def scaled(x):
            return x * SCALE
        """,
        """
        import torch

        _BLOCKS = {}
        _WARPS = {}
        _TUNED = {}

        def block(n):
            size = _BLOCKS.get(n)
            if size is None:
                size = _BLOCKS[n] = 1 << max(0, n - 1).bit_length()
                _WARPS[n] = max(1, size // 256)  # filled by the same lookup
            return size

        def tuned(n):
            if (value := _TUNED.get(n)) is not None:
                return value
            value = _TUNED[n] = n * 4
            return value

        @torch.compiler.allow_in_graph
        def padded(x):
            n = x.shape[-1]
            return x * block(n) * _WARPS[n] * tuned(n)
        """,
        """
        import os
        from dataclasses import dataclass
        from types import SimpleNamespace

        import torch

        @dataclass
        class Opts:
            eps: float = 1e-6

        class Scaler:
            def __init__(self, k):
                self.k = k  # set only while the object is made
                self.fn = torch.compiler.allow_in_graph(self.apply)

            def apply(self, x):
                return x * self.k

        FROZEN = Opts()  # never written after import
        NS = SimpleNamespace(alpha=1.0, beta=2.0)

        def tune():
            NS.beta = 3.0  # another attribute than the one read

        @torch.compiler.allow_in_graph
        def normalised(x):
            y = x / (x.norm() + FROZEN.eps) * NS.alpha
            return y if os.environ.get("NEVER_SET") else x  # the project never sets it
        """,
    )

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        for capture in facts.captures():
            kind = capture.inferred.kind
            if kind.is_tensor_like or (kind is Kind.TENSOR and capture.laundered):
                continue
            reason = _reason(capture)
            if reason is None:
                continue
            function, chain = words.function(capture.function), words.chain(capture)
            message: Message
            if capture.source.holder is Holder.DEFAULT:
                message = DefaultIsMutable(function, capture.name, _MUTABLE[kind], chain)
            else:
                changes, changed = reason
                what, source = words.what(capture, _WHAT), words.source(capture)
                message = ReadsChangingState(
                    function, what, capture.name, source, changes, changed, capture.binding, chain
                )
            yield report(capture.node, message)


def _reason(capture: Capture) -> tuple[str, cst.CSTNode | Place | None] | None:
    """Why the captured value can change after compilation, as the evidence shows, and
    where; None when nothing shows it can (a container that nothing changes is a constant)."""
    kind = capture.inferred.kind
    if capture.source.holder is Holder.DEFAULT:
        return "shared by every call", None
    if capture.change is not None:
        return words.change(capture)
    if kind is Kind.NDARRAY:
        return "which can be changed in place", None
    return None
