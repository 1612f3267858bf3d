"""Registration discovery in every spelling, and what each registration targets."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from checker.facts.module import ModuleFacts


def targets(source: str) -> list[tuple[str, str]]:
    facts = ModuleFacts(cst.parse_module(textwrap.dedent(source)), "t.py")
    return [(target.display, target.kind.name) for target in facts.targets]


SPELLINGS = {
    "compiler-decorator": """
        import torch
        @torch.compiler.allow_in_graph
        def f(x): return x
    """,
    "dynamo-decorator": """
        import torch._dynamo
        @torch._dynamo.allow_in_graph
        def f(x): return x
    """,
    "compiler-call": """
        import torch
        def f(x): return x
        torch.compiler.allow_in_graph(f)
    """,
    "module-alias": """
        import torch.compiler as tc
        @tc.allow_in_graph
        def f(x): return x
    """,
    "import-as": """
        from torch._dynamo import allow_in_graph as aig
        @aig
        def f(x): return x
    """,
    "decorators-module": """
        from torch._dynamo.decorators import allow_in_graph
        f = allow_in_graph(lambda x: x)
    """,
    "assigned-alias": """
        import torch
        register = torch.compiler.allow_in_graph
        @register
        def f(x): return x
    """,
    "try-except-fallback": """
        try:
            from torch._dynamo import allow_in_graph as maybe_allow_in_graph
        except ImportError:
            def maybe_allow_in_graph(cls):
                return cls
        @maybe_allow_in_graph
        def f(x): return x
    """,
    "getattr-fallback": """
        import torch
        aig = getattr(torch.compiler, "allow_in_graph", lambda fn: fn)
        @aig
        def f(x): return x
    """,
    "conditional-alias": """
        import torch
        aig = torch.compiler.allow_in_graph if HAS_DYNAMO else (lambda fn: fn)
        @aig
        def f(x): return x
    """,
    "local-wrapper": """
        import torch
        def register(fn):
            return torch.compiler.allow_in_graph(fn)
        @register
        def f(x): return x
    """,
    "wrapper-of-wrapper": """
        import torch
        def register(fn):
            torch.compiler.allow_in_graph(fn)
            return fn
        def register_twice(fn, name=None):
            return register(fn)
        register_twice(f)
        def f(x): return x
    """,
    "decorator-factory": """
        import torch
        def op(name):
            def deco(fn):
                return torch.compiler.allow_in_graph(fn)
            return deco
        @op("scale")
        def f(x): return x
    """,
    "inside-function-and-conditional": """
        import torch
        def f(x): return x
        def setup(enabled):
            if enabled:
                torch.compiler.allow_in_graph(f)
    """,
    "keyword-argument": """
        import torch
        def f(x): return x
        torch.compiler.allow_in_graph(fn=f)
    """,
}


@pytest.mark.parametrize("source", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_every_spelling_registers_f(source: str) -> None:
    found = targets(source)
    assert found and {kind for _, kind in found} == {"FUNCTION"}
    assert {display for display, _ in found} <= {"f", "<lambda>"}


def test_lists_and_tuples_register_each_element() -> None:
    found = targets(
        """
        import torch
        def a(x): return x
        def b(x): return x
        torch.compiler.allow_in_graph([a, b])
        torch._dynamo.allow_in_graph((a, lambda x: x))
        """
    )
    assert found == [("a", "FUNCTION"), ("b", "FUNCTION"), ("a", "FUNCTION"), ("<lambda>", "FUNCTION")]


def test_strings_and_comments_are_never_registrations() -> None:
    assert (
        targets(
            '''
        import torch
        # torch.compiler.allow_in_graph(f)
        DOC = "torch.compiler.allow_in_graph(f)"
        def f(x):
            """@torch.compiler.allow_in_graph"""
            return x
        '''
        )
        == []
    )


def test_unrelated_function_named_like_the_api_is_not_a_registration() -> None:
    assert (
        targets(
            """
        def allow_in_graph(fn):
            return fn
        @allow_in_graph
        def f(x): return x
        """
        )
        == []
    )


def test_decorator_stacks() -> None:
    found = targets(
        """
        import torch
        class C:
            @staticmethod
            @torch.compiler.allow_in_graph
            def static_inside(x): return x

            @torch.compiler.allow_in_graph
            @staticmethod
            def static_outside(x): return x

            @classmethod
            @torch.compiler.allow_in_graph
            def cls_method(cls, x): return x

            @property
            @torch.compiler.allow_in_graph
            def prop(self): return 1

            @torch.compiler.allow_in_graph
            def method(self, x): return x

        @torch.compiler.allow_in_graph
        @torch._dynamo.disable
        def disabled(x): return x
        """
    )
    assert found == [
        ("C.static_inside", "STATICMETHOD"),
        ("C.static_outside", "NOT_CALLABLE"),
        ("C.cls_method", "CLASSMETHOD"),
        ("C.prop", "PROPERTY"),
        ("C.method", "METHOD"),
        ("disabled", "FUNCTION"),
    ]


def test_classes_as_targets() -> None:
    found = targets(
        """
        import torch
        from torch import nn
        from torch.autograd import Function

        @torch.compiler.allow_in_graph
        class Square(Function):
            @staticmethod
            def forward(ctx, x): return x * x
            @staticmethod
            def backward(ctx, g): return g

        class Base(nn.Module):
            pass

        class Block(Base):
            pass

        class Plain:
            pass

        torch.compiler.allow_in_graph([Block, Plain])
        """
    )
    assert found == [("Square", "AUTOGRAD_FUNCTION"), ("Block", "MODULE_CLASS"), ("Plain", "CLASS")]


def test_methods_through_self_and_saved_bound_methods() -> None:
    found = targets(
        """
        import torch
        class C:
            def __init__(self):
                self._fast = torch.compiler.allow_in_graph(self.step)
                torch.compiler.allow_in_graph(self.step)
            def step(self, x): return x
        """
    )
    assert found == [("self.step", "BOUND_METHOD"), ("self.step", "BOUND_METHOD")]


def test_rebinding_through_registration_keeps_the_def() -> None:
    assert targets(
        """
        import torch
        def f(x): return x
        f = torch.compiler.allow_in_graph(f)
        """
    ) == [("f", "FUNCTION")]


def test_imported_targets_are_unresolved_not_judged() -> None:
    assert targets(
        """
        import torch
        from .ops import fused
        torch.compiler.allow_in_graph(fused)
        torch.compiler.allow_in_graph(torch.sin)
        """
    ) == [("fused", "UNRESOLVED"), ("torch.sin", "UNRESOLVED")]


def test_runtime_guard_drop_in_is_a_registration() -> None:
    assert targets(
        """
        import runtime_guard as rg
        @rg.allow_in_graph
        def f(x): return x
        """
    ) == [("f", "FUNCTION")]
