"""Registrars imported from other modules of the project (issue 4, first part)."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import RULES, assert_marked, check, run, write

from checker.api import check_file
from checker.index.project import Project
from checker.passes.engine import analyse_path, check_path
from checker.spec.findings import Finding


def check_with(index: Project, root: Path, path: str) -> list[Finding]:
    """``check``, with one project index shared between the files checked, as one run shares it
    (the front door gives each file its own)."""
    __tracebackhide__ = True
    report = check_path(root / path, RULES, index=index)
    assert report.internal_error is None, report.internal_error
    assert_marked(root, report.findings, path)
    return list(report.findings)


ALIAS = """
try:
    from torch.compiler import allow_in_graph as maybe_allow_in_graph
except ImportError:
    def maybe_allow_in_graph(fn):
        return fn
"""
USER = """
import torch
{import_line}

W = torch.ones(4)

@{decorator}
def scaled(x):
    return x * W{marker}
"""


def user(import_line: str, decorator: str, marker: str = "") -> str:
    """``USER``: ``scaled``, registered with ``decorator``, reads ``W``; ``marker`` is expected on that line."""
    return USER.format(import_line=import_line, decorator=decorator, marker=f"  # {marker}" if marker else "")


SPELLINGS = {
    "relative": ("pkg/ops.py", "from .utils import maybe_allow_in_graph", "maybe_allow_in_graph"),
    "absolute": ("pkg/ops.py", "from pkg.utils import maybe_allow_in_graph", "maybe_allow_in_graph"),
    "parent-relative": ("pkg/sub/ops.py", "from ..utils import maybe_allow_in_graph", "maybe_allow_in_graph"),
    "module-attribute": ("pkg/ops.py", "from . import utils", "utils.maybe_allow_in_graph"),
    "re-export": ("pkg/ops.py", "from pkg import maybe_allow_in_graph", "maybe_allow_in_graph"),
    "renamed": ("pkg/ops.py", "from .utils import maybe_allow_in_graph as aig_allow_in_graph", "aig_allow_in_graph"),
}


@pytest.mark.parametrize(("path", "import_line", "decorator"), SPELLINGS.values(), ids=SPELLINGS.keys())
def test_alias_imported_from_another_module(tmp_path: Path, path: str, import_line: str, decorator: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from .utils import maybe_allow_in_graph\n",
            "pkg/sub/__init__.py": "",
            "pkg/utils.py": ALIAS,
            path: user(import_line, decorator, "AIG301"),
        },
    )
    check(tmp_path, path)


def test_src_layout_and_wrapper_functions(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/lib/__init__.py": "",
            "src/lib/registry.py": """
                import torch

                def allow_in_graph_as(name, fn):
                    return torch.compiler.allow_in_graph(fn)
            """,
            "src/lib/kernels.py": """
                import functools
                from lib.registry import allow_in_graph_as

                def scale(x, k):
                    return x * k

                double = allow_in_graph_as("double", functools.partial(scale, k=2.0))  # AIG402
            """,
        },
    )
    check(tmp_path, "src/lib/kernels.py")


def test_cycles_and_unresolvable_imports_end_quietly(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from .b import allow_in_graph_b as allow_in_graph_a\n",
            "pkg/b.py": "from .a import allow_in_graph_a as allow_in_graph_b\n",
            "pkg/user.py": user(
                "from .a import allow_in_graph_a\nfrom .missing import allow_in_graph_x", "allow_in_graph_a"
            ),
        },
    )
    assert check(tmp_path, "pkg/user.py") == []


def test_imports_reach_the_packages_beside_it_and_no_further(tmp_path: Path) -> None:
    """The folder holding the package is an import root of the project (issue 22, class
    7), as on ``sys.path``: a package beside it resolves, one in a folder elsewhere does not."""
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "other/__init__.py": "",
            "other/utils.py": ALIAS,
            "elsewhere/far/__init__.py": "",
            "elsewhere/far/utils.py": ALIAS,
            "pkg/__init__.py": "",
            "pkg/ops.py": user("from other.utils import maybe_allow_in_graph", "maybe_allow_in_graph", "AIG301"),
            "pkg/far.py": user("from far.utils import maybe_allow_in_graph", "maybe_allow_in_graph"),
        },
    )
    check(tmp_path, "pkg/ops.py")
    assert check(tmp_path, "pkg/far.py") == []


def test_the_cache_notices_a_changed_alias_module(tmp_path: Path, monkeypatch) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": ALIAS,
            "pkg/ops.py": user("from .utils import maybe_allow_in_graph", "maybe_allow_in_graph", "AIG301"),
        },
    )
    monkeypatch.chdir(tmp_path)
    status, found = run("-q", "--cache-dir", "cache", "pkg")
    assert status == 1
    assert_marked(tmp_path, found)
    # The alias module no longer registers anything: the cached result must not be reused.
    (tmp_path / "pkg/utils.py").write_text("def maybe_allow_in_graph(fn):\n    return fn  # no allow_in_graph here\n")
    assert run("-q", "--cache-dir", "cache", "pkg") == (0, [])


def test_files_that_only_mention_a_project_alias_are_checked(tmp_path: Path, monkeypatch) -> None:
    write(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/registry.py": """
                import torch

                register = torch.compiler.allow_in_graph
            """,
            "lib/kernels.py": """
                import torch
                from lib.registry import register

                W = torch.ones(4)

                @register
                def scaled(x):
                    return x * W  # AIG301
            """,
            "lib/unrelated.py": "def register_hooks():\n    pass\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    status, found = run("-q", "--no-cache", "lib")
    assert status == 1
    assert_marked(tmp_path, found)
    # The pre-filter alone would not have read kernels.py: it never mentions the API.
    assert "allow_in_graph" not in (tmp_path / "lib/kernels.py").read_text()


def test_a_file_that_talks_about_the_api_and_registers_through_an_alias_is_checked(tmp_path: Path, monkeypatch) -> None:
    # The first pass skips kernels.py (its only mention of the API is a comment) and
    # caches that; the second pass, looking for ``register``, must not take the cached skip.
    write(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/registry.py": "import torch\n\nregister = torch.compiler.allow_in_graph\n",
            "lib/kernels.py": """
                import torch
                from lib.registry import register

                W = torch.ones(4)

                @register  # our allow_in_graph
                def scaled(x):
                    return x * W  # AIG301
            """,
        },
    )
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # cold, then from the cache
        status, found = run("-q", "--cache-dir", "cache", "lib")
        assert status == 1
        assert_marked(tmp_path, found)


def test_values_and_base_classes_imported_from_other_modules(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/consts.py": "EPS = 1e-5\nSCALES = {'k': 2.0}\n\ndef tune(k, v):\n    SCALES[k] = v\n",
            "pkg/weights.py": "import torch\n\nW = torch.ones(4)\n",
            "pkg/base.py": "from torch import nn\n\nclass ModelMixin(nn.Module):\n    pass\n",
            "pkg/blocks.py": """
                import torch
                from .base import ModelMixin
                from .consts import EPS, SCALES
                from .weights import W

                @torch.compiler.allow_in_graph
                def normed(x):
                    return x / (x.norm() + EPS) * W * SCALES["k"]  # AIG301 AIG302

                @torch.compiler.allow_in_graph  # AIG402
                class Block(ModelMixin):
                    def forward(self, x):
                        return x
            """,
        },
    )
    check(tmp_path, "pkg/blocks.py")


def test_the_cache_notices_a_change_two_imports_away(tmp_path: Path, monkeypatch) -> None:
    # ops imports the alias from api, which re-exports it from utils: utils is a dependency too.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": ALIAS,
            "pkg/api.py": "from .utils import maybe_allow_in_graph\n",
            "pkg/ops.py": user("from .api import maybe_allow_in_graph", "maybe_allow_in_graph", "AIG301"),
        },
    )
    monkeypatch.chdir(tmp_path)
    status, found = run("-q", "--cache-dir", "cache", "pkg/ops.py")
    assert status == 1
    assert_marked(tmp_path, found)
    (tmp_path / "pkg/utils.py").write_text("def maybe_allow_in_graph(fn):\n    return fn  # no allow_in_graph here\n")
    assert run("-q", "--cache-dir", "cache", "pkg/ops.py") == (0, [])


def test_a_checked_file_parsed_earlier_as_an_import_is_not_parsed_again(tmp_path: Path, monkeypatch) -> None:
    import libcst

    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": ALIAS,
            "pkg/ops.py": user("from .utils import maybe_allow_in_graph", "maybe_allow_in_graph", "AIG301"),
        },
    )
    parsed: list[str] = []
    real_parse = libcst.parse_module

    def counting_parse(source: str, *args: object, **kwargs: object) -> libcst.Module:
        parsed.append("maybe_allow_in_graph(fn)" in source and "utils" or "ops")
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting_parse)
    monkeypatch.setattr("checker.index.project.cst.parse_module", counting_parse)
    index = Project()  # one index, as one run has
    check_with(index, tmp_path, "pkg/ops.py")  # parses utils.py as its import
    assert check_with(index, tmp_path, "pkg/utils.py") == []
    assert parsed == ["ops", "utils"]


def test_an_import_too_deeply_nested_for_libcst_is_not_parsed(tmp_path: Path) -> None:
    import subprocess
    import sys

    depth = 3000  # libcst's native parser crashes the process on this; CPython refuses it
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": ALIAS + "NESTED = " + "(" * depth + ")" * depth + "\n",
            "pkg/ops.py": user("from .utils import maybe_allow_in_graph", "maybe_allow_in_graph"),
        },
    )
    done = subprocess.run(
        [sys.executable, "-m", "checker", "--isolated", "--no-cache", "-q", str(tmp_path / "pkg/ops.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # the alias is unresolved, nothing crashed


def test_importing_a_class_from_a_registering_module_does_not_parse_it(tmp_path: Path, monkeypatch) -> None:
    import libcst

    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/attention.py": "import torch\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x\n\n"
            "class Attention:\n    pass\n",
            # Registration discovery asks of every call whether its callee is a registrar.
            "pkg/block.py": "import torch\nfrom .attention import Attention\n\ndef build():\n    return Attention()\n\n"
            "torch.compiler.allow_in_graph(torch.sin)\n",
        },
    )
    parsed: list[str] = []
    real_parse = libcst.parse_module

    def counting_parse(source: str) -> libcst.Module:
        parsed.append("attention" if "class Attention" in source else "block")
        return real_parse(source)

    monkeypatch.setattr(libcst, "parse_module", counting_parse)
    check_file(tmp_path / "pkg/block.py", rules=RULES)
    assert parsed == ["block"]  # ``Attention`` is only ever a class there: it cannot be a registrar


def test_an_extension_submodule_read_through_its_package_is_not_a_value(tmp_path: Path) -> None:
    # ``torch._C.foo()``: ``_C`` is a compiled module beside torch/__init__.py, not a value of it,
    # so the package's source is never parsed to find out.
    write(
        tmp_path,
        {
            "torch/__init__.py": "from torch._C import *\n\nfor _name in dir(_C):\n    pass\n",
            "torch/_C.cpython-311-x86_64-linux-gnu.so": "",
            "torch/ops.py": "import torch\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return torch._C._add(x)\n",
        },
    )
    index = Project()
    assert not index.holds_value(str(tmp_path / "torch/__init__.py"), "_C")
    assert index.holds_value(str(tmp_path / "torch/__init__.py"), "_name")
    assert check_with(index, tmp_path, "torch/ops.py") == []


def test_torch_names_the_api_tables_know_are_not_looked_up_in_torch_own_tree(tmp_path: Path, monkeypatch) -> None:
    import libcst

    write(
        tmp_path,
        {
            "torch/__init__.py": "",
            "torch/compiler/__init__.py": "",
            "torch/_dynamo/__init__.py": "from .decorators import allow_in_graph, disable\n",
            # A def that forwards its parameter could be a wrapper: only parsing could tell.
            "torch/_dynamo/decorators.py": "def allow_in_graph(fn):\n    return _register(fn)\n\n"
            "def disable(fn):\n    return _skip(fn)\n",
            "torch/ops.py": """
                import torch

                @torch.compiler.allow_in_graph  # AIG406
                @torch._dynamo.disable
                def f(x):
                    return x
            """,
        },
    )
    parsed: list[str] = []
    real_parse = libcst.parse_module

    def counting_parse(source: str) -> libcst.Module:
        parsed.append(source.splitlines()[0])
        return real_parse(source)

    monkeypatch.setattr(libcst, "parse_module", counting_parse)
    check(tmp_path, "torch/ops.py")
    assert parsed == ["import torch"]  # torch._dynamo.disable is a marker by the tables: nothing else is parsed


def test_the_module_cache_keeps_the_most_recently_used(tmp_path: Path, monkeypatch) -> None:
    from checker.index import project

    monkeypatch.setattr(project, "_MAX_MODULES", 2)
    files = {f"pkg/m{n}.py": "import torch\nW = torch.ones(1)\n" for n in range(4)}
    write(tmp_path, {"pkg/__init__.py": "", **files})
    cache = project.Project()
    importer = str(tmp_path / "pkg/user.py")
    for name in ("m0", "m1", "m0", "m2", "m3", "m0"):
        assert cache.lookup(importer, f".{name}.W", require_api=False) is not None
    assert [path.name for path in cache._facts] == ["m3.py", "m0.py"]


def test_names_re_exported_through_other_modules_are_followed(tmp_path: Path) -> None:
    # diffusers: HiDreamAttention(Attention) imports Attention from attention.py, which
    # re-exports it from attention_processor.py.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/attention_processor.py": "from torch import nn\n\nclass Attention(nn.Module):\n    pass\n",
            "pkg/weights.py": "import torch\n\nW = torch.ones(4)\n",
            "pkg/attention.py": "from .attention_processor import Attention\nfrom .weights import W\n",
            "pkg/blocks.py": """
                import torch
                from .attention import Attention, W

                @torch.compiler.allow_in_graph  # AIG402
                class HiDreamAttention(Attention):
                    pass

                @torch.compiler.allow_in_graph
                def scaled(x):
                    return x * W  # AIG301
            """,
        },
    )
    check(tmp_path, "pkg/blocks.py")


def test_re_exports_in_a_cycle_end_quietly(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from .b import X\n",
            "pkg/b.py": "from .a import X\n",
            "pkg/user.py": "import torch\nfrom .a import X\n\n@torch.compiler.allow_in_graph\nclass Y(X):\n    pass\n",
        },
    )
    assert check(tmp_path, "pkg/user.py") == []


def test_namespace_packages_resolve_absolute_imports(tmp_path: Path) -> None:
    # PEP 420: no __init__.py anywhere; the package root is the folder above 'nsp'.
    write(
        tmp_path,
        {
            "src/nsp/core/utils.py": ALIAS,
            "src/nsp/models/ops.py": user(
                "from nsp.core.utils import maybe_allow_in_graph", "maybe_allow_in_graph", "AIG301"
            ),
        },
    )
    check(tmp_path, "src/nsp/models/ops.py")


# -- one pipeline from bytes to facts (issue 21) -------------------------------------------------

_REGISTERS = "import torch\n\n\n@torch.compiler.allow_in_graph\ndef scaled(x):\n    return x * 2\n"
#: Modules the engine and the index must read alike: each as bytes, and whether it is analysed.
PIPELINE_CASES: dict[str, tuple[bytes, bool]] = {
    "plain": (_REGISTERS.encode(), True),
    "form-feed-indentation": (_REGISTERS.replace("    return", "\f    return").encode(), True),
    "long-boolean-chain": ((_REGISTERS + "FLAG = " + " and ".join(["x"] * 300) + "\n").encode(), True),
    "bad-byte-in-a-comment": (_REGISTERS.encode() + b"# caf\xe9\n", True),
    "latin-1-cookie": (b"# -*- coding: latin-1 -*-\n" + _REGISTERS.encode() + b"NAME = '\xe9'\n", True),
    "syntax-error": (_REGISTERS.encode() + b"def broken(:\n", False),
    "nested-too-deeply": (_REGISTERS.encode() + b"X = " + b"(" * 300 + b")" * 300 + b"\n", False),
    "undecodable": (_REGISTERS.encode() + b"NAME = '\xff'\n", False),
}


@pytest.mark.parametrize(("data", "analysed"), PIPELINE_CASES.values(), ids=list(PIPELINE_CASES))
def test_the_engine_and_the_index_read_a_module_by_one_pipeline(data: bytes, analysed: bool, tmp_path: Path) -> None:
    """The index parses a module a checked file imports as the engine parses a checked file:
    where one can analyse it, so can the other, and they find the same registrations."""
    path = tmp_path / "kernels.py"
    path.write_bytes(data)
    checked = analyse_path(path, RULES)
    assert checked.report.internal_error is None
    facts = Project().facts(path, require_api=False)
    assert checked.report.parsed is analysed
    assert (facts is not None) is analysed
    if facts is not None:
        assert facts.registered_functions == checked.links.registered == ("scaled",)
