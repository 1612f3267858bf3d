"""Captures in helpers imported from other modules of the project, followed transitively."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import RULES, assert_marked, check, run, write

from checker.passes.engine import analyse_path

#: How many helper calls deep captures are followed, as README.md states it ("3 calls deep").
HELPER_DEPTH = 3

HELPERS = """\
import torch

W = torch.ones(4)

def normalize(x):
    return x * W
"""


def ops(import_line: str, call: str, marker: str = "") -> str:
    """A registered function on line 6 that calls ``call`` on line 7, where ``marker`` is expected."""
    comment = f"  # {marker}" if marker else ""
    return (
        f"import torch\n{import_line}\n\n\n@torch.compiler.allow_in_graph\ndef scaled(x):\n    return {call}{comment}\n"
    )


SPELLINGS = {
    "relative": ("from .helpers import normalize", "normalize(x)"),
    "absolute": ("from pkg.helpers import normalize", "normalize(x)"),
    "renamed": ("from .helpers import normalize as norm", "norm(x)"),
    "module-attribute": ("from . import helpers", "helpers.normalize(x)"),
    "dotted-import": ("import pkg.helpers", "pkg.helpers.normalize(x)"),
    "re-export": ("from pkg import normalize", "normalize(x)"),
}


@pytest.mark.parametrize(("import_line", "call"), SPELLINGS.values(), ids=SPELLINGS.keys())
def test_foreign_helper_reading_a_tensor_is_reported_at_the_call(tmp_path: Path, import_line: str, call: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from .helpers import normalize\n",
            "pkg/helpers.py": HELPERS,
            "pkg/ops.py": ops(import_line, call, "AIG301"),
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert finding.message.startswith(  # the helper is named as its def names it
        "scaled: calls normalize() (line 7), which is defined in helpers.py:5 and reads tensor 'W' "
        "from the module scope of helpers.py (line 3); the contract says"
    )
    assert finding.message.endswith("pass 'W' as an argument")


def test_the_result_depends_on_the_helper_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/ops.py": ops(SPELLINGS["relative"][0], "normalize(x)")},
    )
    report = analyse_path(tmp_path / "pkg/ops.py", RULES).links
    assert str((tmp_path / "pkg/helpers.py").resolve()) in dict(report.dependencies)


def test_foreign_mutable_state(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/state.py": """\
                CONFIG = {"scale": 2.0}
                SCALE = 1.0

                def configured(x):
                    return x * CONFIG["scale"]

                def rescaled(x):
                    return x * SCALE

                def set_scale(value):
                    global SCALE
                    SCALE = value

                def set_config(key, value):
                    CONFIG[key] = value
                """,
            "pkg/ops.py": """\
                import torch
                from .state import configured, rescaled

                @torch.compiler.allow_in_graph
                def scaled(x):
                    y = configured(x)  # AIG302
                    return rescaled(y)  # AIG302
                """,
        },
    )
    dict_read, float_read = check(tmp_path, "pkg/ops.py")
    assert dict_read.message.startswith(
        "scaled: calls configured() (line 6), which is defined in state.py:4 and reads mutable container 'CONFIG' "
        "from the module scope of state.py (line 1), and the code assigns one of its items (state.py:15); "
        "aot_eager and inductor"
    )
    assert float_read.message.startswith(
        "scaled: calls rescaled() (line 7), which is defined in state.py:7 and reads 'SCALE' "
        "from the module scope of state.py (line 2), and it is reassigned through 'global SCALE' in set_scale() "
        "(state.py:12); aot_eager and inductor"
    )


def test_foreign_laundered_tensor(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": "import torch\n\nW = torch.ones(4)\n\ndef as_list(x):\n    return W.tolist()\n",
            "pkg/ops.py": ops("from .helpers import as_list", "torch.tensor(as_list(x))", "AIG303"),
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert "which is defined in helpers.py:5 and uses .tolist() of captured tensor 'W'" in finding.message
    assert "from the module scope of helpers.py (line 3)" in finding.message


def test_two_hops_through_other_modules(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/b.py": """\
                from .c import helper2

                def helper(x):
                    return helper2(x) + 1
                """,
            "pkg/c.py": """\
                import torch

                W = torch.ones(4)

                def helper2(x):
                    return inner(x)

                def inner(x):
                    return x * W
                """,
            "pkg/a.py": ops("from .b import helper", "helper(x)", "AIG301"),
        },
    )
    (finding,) = check(tmp_path, "pkg/a.py")
    assert finding.message.startswith(
        "scaled: calls helper() (line 7), which is defined in b.py:3 and calls helper2() (b.py:4), "
        "which is defined in c.py:5 and calls inner() (c.py:6), which is defined in c.py:8 and reads tensor 'W' "
        "from the module scope of c.py (line 3); "
    )
    dependencies = dict(analyse_path(tmp_path / "pkg/a.py", RULES).links.dependencies)
    assert str((tmp_path / "pkg/c.py").resolve()) in dependencies


def test_reported_at_the_call_that_leaves_the_checked_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": HELPERS,
            "pkg/ops.py": """\
                import torch
                from .helpers import normalize

                def local(x):
                    return normalize(x)  # AIG301

                @torch.compiler.allow_in_graph
                def scaled(x):
                    return local(x)
                """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert finding.message.startswith(
        "scaled: calls local() (line 9), which calls normalize() (line 5), which is defined in helpers.py:5 and "
    )


def test_paths_are_relative_to_the_checked_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": HELPERS,
            "pkg/sub/__init__.py": "",
            "pkg/sub/ops.py": ops("from ..helpers import normalize", "normalize(x)", "AIG301"),
        },
    )
    (finding,) = check(tmp_path, "pkg/sub/ops.py")
    assert (
        "which is defined in ../helpers.py:5 and reads tensor 'W' from the module scope of ../helpers.py (line 3)"
        in (finding.message)
    )


def test_import_cycle_between_helper_modules_ends_quietly(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/b.py": """\
                from .c import pong

                def ping(n):
                    return pong(n - 1) if n else n
                """,
            "pkg/c.py": """\
                import torch
                from .b import ping

                TABLE = torch.ones(4)

                def pong(n):
                    return ping(n) * TABLE
                """,
            "pkg/a.py": ops("from .b import ping", "ping(x)", "AIG301"),
        },
    )
    check(tmp_path, "pkg/a.py")  # pong's read, once


def test_cycle_back_into_the_checked_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/b.py": """\
                from . import a

                def ping(x):
                    return a.local(x)
                """,
            "pkg/a.py": """\
                import torch
                from .b import ping

                W = torch.ones(4)

                def local(x):
                    return ping(x) * W  # AIG301

                @torch.compiler.allow_in_graph
                def scaled(x):
                    return ping(x)
                """,
        },
    )
    (finding,) = check(tmp_path, "pkg/a.py")
    assert finding.message.startswith(
        "scaled: calls ping() (line 11), which is defined in b.py:3 and calls local() (b.py:4), "
        "which reads tensor 'W' from the module scope (line 4); "
    )


UNRESOLVABLE = {
    "third-party": ("import numpy as np", "np.dot(x, x)"),
    "missing-file": ("from .missing import normalize", "normalize(x)"),
    "missing-name": ("from .helpers import absent", "absent(x)"),
    "outside-the-package": ("from helpers import normalize", "normalize(x)"),
    "builtin": ("from .helpers import normalize", "abs(x)"),
    "torch": ("import torch.nn.functional as F", "F.relu(x)"),
}


@pytest.mark.parametrize(("import_line", "call"), UNRESOLVABLE.values(), ids=UNRESOLVABLE.keys())
def test_unresolvable_imports_give_nothing(tmp_path: Path, import_line: str, call: str) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "elsewhere/helpers.py": HELPERS})
    write(tmp_path, {"pkg/ops.py": ops(import_line, call)})
    assert check(tmp_path, "pkg/ops.py") == []


def _hops(count: int, marker: str = "") -> dict[str, str]:
    """``pkg/m1.py`` .. ``pkg/m{count}.py``: each ``hop`` calls the next module's; the last reads W.

    ``marker`` is expected at the call in ``pkg/ops.py``.
    """
    files = {"pkg/__init__.py": ""}
    for index in range(1, count):
        files[f"pkg/m{index}.py"] = (
            f"from .m{index + 1} import hop as next_hop\n\ndef hop(x):\n    return next_hop(x)\n"
        )
    files[f"pkg/m{count}.py"] = HELPERS.replace("normalize", "hop")
    files["pkg/ops.py"] = ops("from .m1 import hop", "hop(x)", marker)
    return files


def test_depth_limit_across_modules(tmp_path: Path) -> None:
    deep_enough = write(tmp_path / "deep_enough", _hops(HELPER_DEPTH, "AIG301"))
    too_deep = write(tmp_path / "too_deep", _hops(HELPER_DEPTH + 1))
    (finding,) = check(deep_enough, "pkg/ops.py")
    assert finding.message.count("which is defined in") == HELPER_DEPTH
    assert check(too_deep, "pkg/ops.py") == []


def test_clean_foreign_helper(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": """\
                import torch

                EPS = 1e-5
                DTYPE = torch.float16

                def normalize(x, w):
                    return (x * w / (x.norm() + EPS)).to(DTYPE)
                """,
            "pkg/ops.py": ops("from .helpers import normalize", "normalize(x, x)"),
        },
    )
    assert check(tmp_path, "pkg/ops.py") == []


def test_foreign_helper_registered_in_its_own_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": """\
                import torch

                W = torch.ones(4)

                @torch.compiler.allow_in_graph
                def normalize(x):
                    return x * W  # AIG301
                """,
            "pkg/ops.py": ops("from .helpers import normalize", "normalize(x)"),
        },
    )
    assert check(tmp_path, "pkg/ops.py") == []
    check(tmp_path, "pkg/helpers.py")


def test_same_module_helper_as_before(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": """\
                import torch

                W = torch.ones(4)

                def local(x):
                    return x * W  # AIG301

                @torch.compiler.allow_in_graph
                def scaled(x):
                    return local(x)
                """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert finding.message.startswith(
        "scaled: calls local() (line 10), which reads tensor 'W' from the module scope (line 3); the contract says"
    )


def test_registered_helper_behind_a_foreign_helper(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/b.py": """\
                import torch

                W = torch.ones(4)

                @torch.compiler.allow_in_graph
                def inner(x):
                    return x * W  # AIG301

                def outer(x):
                    return inner(x)
                """,
            "pkg/a.py": ops("from .b import outer", "outer(x)"),
        },
    )
    assert check(tmp_path, "pkg/a.py") == []
    check(tmp_path, "pkg/b.py")


def test_the_cache_notices_an_edited_helper_two_imports_away(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/b.py": "from .c import normalize\n\ndef helper(x):\n    return normalize(x)\n",
            "pkg/c.py": HELPERS,
            "pkg/a.py": ops("from .b import helper", "helper(x)", "AIG301"),
        },
    )
    monkeypatch.chdir(tmp_path)
    status, found = run("-q", "--isolated", "--cache-dir", "cache", "pkg/a.py")
    assert status == 1
    assert_marked(tmp_path, found)
    # The helper no longer reads W: the cached result of a.py must not be reused.
    (tmp_path / "pkg/c.py").write_text(HELPERS.replace("x * W", "x * 2"))
    assert run("-q", "--isolated", "--cache-dir", "cache", "pkg/a.py") == (0, [])
