"""Registering what a factory returns, across modules (issue 22, class 6): the closure
``make_op`` builds per call is AIG401 wherever ``make_op`` is defined and however it is
imported; a factory that returns what it was given, or a closure that closes over
nothing, is clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, check, run, write

FACTORIES = """
    import functools

    def make_op(f):
        @functools.wraps(f)
        def inner(x):
            return f(x) + 1
        return inner

    def make_lambda(f):
        return functools.wraps(f)(lambda x: f(x) + 1)

    def build(f):
        return make_op(f)

    def make_pure():
        def pure(x):
            return x * 2
        return pure

    def identity(f):
        return f
"""

#: Every import spelling of the factory module, and the registration each makes.
SPELLINGS = {
    "from-import": ("from pkg.factories import make_op", "make_op(base)"),
    "relative-from-import": ("from .factories import make_op", "make_op(base)"),
    "from-package-import-module": ("from pkg import factories", "factories.make_op(base)"),
    "relative-module": ("from . import factories as fa", "fa.make_op(base)"),
    "import-dotted": ("import pkg.factories", "pkg.factories.make_op(base)"),
    "import-as": ("import pkg.factories as fa", "fa.make_op(base)"),
    "wraps-lambda": ("from .factories import make_lambda", "make_lambda(base)"),
    "builder": ("from .factories import build", "build(base)"),
}


@pytest.mark.parametrize(("imported", "registered"), SPELLINGS.values(), ids=list(SPELLINGS))
def test_a_closure_another_module_builds_per_call_is_aig401(tmp_path: Path, imported: str, registered: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/factories.py": FACTORIES,
            "pkg/use.py": f"""
                from torch.compiler import allow_in_graph
                {imported}

                def base(x):
                    return x

                op = allow_in_graph({registered})  # AIG401
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/use.py")
    assert "factories.py:" in finding.message and "closes over 'f'" in finding.message


def test_a_public_adapter_registering_another_modules_closure_is_aig401(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/factories.py": FACTORIES,
            "pkg/adapters.py": """
                import torch
                from .factories import build

                def adapt(f):
                    return torch.compiler.allow_in_graph(build(f))  # AIG401
            """,
        },
    )
    check(tmp_path, "pkg/adapters.py")


def test_what_closes_over_nothing_or_is_given_back_is_clean(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/factories.py": FACTORIES,
            "pkg/use.py": """
                from torch.compiler import allow_in_graph
                from .factories import identity, make_pure

                def base(x):
                    return x

                allow_in_graph(make_pure())
                allow_in_graph(identity(base))
            """,
        },
    )
    check(tmp_path, "pkg/use.py")


def test_the_whole_project_reports_each_registration_once(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/factories.py": FACTORIES,
            "pkg/use.py": """
                from torch.compiler import allow_in_graph
                from .factories import make_op, make_lambda

                def base(x):
                    return x

                allow_in_graph(make_op(base))  # AIG401
                allow_in_graph(make_lambda(base))  # AIG401
            """,
        },
    )
    status, findings = run("--isolated", "--no-cache", str(tmp_path))
    assert status == 1
    assert_marked(tmp_path, findings)
