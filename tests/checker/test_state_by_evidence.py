"""AIG302 by evidence: a name is state only when the project shows it can change after
compilation (checker/facts/captures/changes.py, checker/index/change_scan.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, check, run, write

CONFIG = """
    LOSS_SCALE = 1.0
    USE_FAST = True
    EPS = 1e-5
    TABLE = {"a": 1.0}
    DTYPES = {"fp16", "bf16"}

    def set_loss_scale(value):
        global LOSS_SCALE
        LOSS_SCALE = value
"""


@pytest.mark.parametrize(
    ("imports", "spelled"),
    [
        pytest.param("from . import config", "config", id="from-package-import-module"),
        pytest.param("import pkg.config as cfg", "cfg", id="import-as"),
        pytest.param("import pkg.config", "pkg.config", id="dotted"),
    ],
)
def test_a_module_attribute_rebound_by_a_setter_is_state(tmp_path: Path, imports: str, spelled: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/ops.py": f"""
                import torch
                {imports}

                @torch.compiler.allow_in_graph
                def scaled(x):
                    return x * {spelled}.LOSS_SCALE + {spelled}.EPS  # AIG302
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert f"reads '{spelled}.LOSS_SCALE' from the module scope of config.py" in finding.message
    assert "reassigned through 'global LOSS_SCALE' in set_loss_scale() (config.py:9)" in finding.message


def test_assigned_or_changed_from_another_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/enable.py": """
                from pkg import config
                from .config import TABLE

                def enable_slow():
                    config.USE_FAST = False

                def tweak():
                    TABLE["a"] = 2.0
            """,
            "pkg/ops.py": """
                import torch
                from . import config
                from .config import TABLE, DTYPES

                @torch.compiler.allow_in_graph
                def fast(x):
                    if config.USE_FAST:  # AIG302
                        return x * TABLE["a"]  # AIG302
                    return x if "fp16" in DTYPES else -x
            """,
        },
    )
    flag, table = check(tmp_path, "pkg/ops.py")
    assert "it is assigned from another module (enable.py:5)" in flag.message
    assert "the code assigns one of its items (enable.py:8)" in table.message


def test_a_copy_made_by_from_import_is_not_rebound_by_the_setter(tmp_path: Path) -> None:
    """``from .config import LOSS_SCALE`` copies the reference: ``global`` in config.py
    rebinds config's name, not this one (only changes of the object itself reach here)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/ops.py": """
                import torch
                from .config import LOSS_SCALE

                @torch.compiler.allow_in_graph
                def scaled(x):
                    return x * LOSS_SCALE
            """,
        },
    )
    assert check(tmp_path, "pkg/ops.py") == []


MEMO = """
    import functools
    import torch

    _PLANS = {}
    _SEEN = {}
    _KERNELS = {}
    _TUNED = {}
    _TYPES = (torch.float16, torch.bfloat16)
    _SIZES = [16, 32]
    _SIZES.append(64)

    def plan(n):
        if n not in _PLANS:
            _PLANS[n] = tuple(range(n))
        return _PLANS[n]

    def seen(n):
        if n in _SEEN:
            return _SEEN[n]
        _SEEN[n] = n * 2
        return _SEEN[n]

    def register(name):
        def decorate(fn):
            if name in _KERNELS:
                raise ValueError(f"{name} is registered already")
            _KERNELS[name] = fn
            return fn
        return decorate

    def tuned(n):
        try:
            return _TUNED[n]
        except KeyError:
            _TUNED[n] = value = n + 1
            return value

    @functools.lru_cache(maxsize=None)
    def block(n):
        return n * 8

    @torch.compiler.allow_in_graph
    def kernel(x, n: int):
        assert x.dtype in _TYPES and n in _SIZES
        return x * len(_PLANS) * len(_SEEN) * len(_KERNELS) * len(_TUNED) * block(n)
"""


def test_memoisation_caches_registries_and_import_time_tables_are_not_state(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": MEMO})
    assert check(tmp_path, "pkg/ops.py") == []


def test_a_cache_written_without_the_guard_is_state(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": """
                import torch

                _PLANS = {}

                def plan(n):
                    _PLANS[n] = tuple(range(n))
                    return _PLANS[n]

                @torch.compiler.allow_in_graph
                def kernel(x):
                    return x * len(_PLANS)  # AIG302
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert "and the code assigns one of its items (line 6)" in finding.message


def test_a_script_that_rebinds_a_flag_between_compiled_calls(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "bench.py": """
                import torch

                FAST = True

                @torch.compiler.allow_in_graph
                def act(x):
                    return x * 2 if FAST else x  # AIG302

                if __name__ == "__main__":
                    f = torch.compile(act)
                    f(torch.ones(2))
                    FAST = False
                    f(torch.ones(2))
            """,
        },
    )
    check(tmp_path, "bench.py")


def test_custom_ops_and_nonstrict_helpers_are_not_followed(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": """
                import torch

                W = torch.ones(4)
                DEBUG = {"on": False}

                def set_debug(on):
                    DEBUG["on"] = on

                @torch.library.custom_op("pkg::scale", mutates_args=())
                def scale(x: torch.Tensor) -> torch.Tensor:
                    return x * W if DEBUG["on"] else x * 2

                @torch._dynamo.nonstrict_trace
                def side(x):
                    return x * W

                def plain(x):
                    return x * W  # AIG301

                @torch.compiler.allow_in_graph
                def kernel(x):
                    return scale(x) + side(x) + plain(x)
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert finding.message.startswith("kernel: calls plain() (line 22), which reads tensor 'W'")


REGISTERED = """
    import torch

    from .kernels import scaled

    scaled = torch.compiler.allow_in_graph(scaled)
"""
KERNELS = """
    import torch

    W = torch.ones(4)

    def scaled(x):
        return x * W  # AIG301
"""


def test_a_file_named_alone_is_judged_as_the_project_sees_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/register.py": REGISTERED, "pkg/kernels.py": KERNELS})
    monkeypatch.chdir(tmp_path)
    status, found = run("--no-cache", "pkg/kernels.py")
    assert status == 1
    assert_marked(tmp_path, found, "pkg/kernels.py")
    assert "registered at pkg/register.py:5" in found[0].message


def test_standard_input_named_as_a_file_of_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    write(tmp_path, {"pkg/__init__.py": "", "pkg/register.py": REGISTERED, "pkg/kernels.py": KERNELS})
    monkeypatch.chdir(tmp_path)
    source = (tmp_path / "pkg/kernels.py").read_text()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    status, found = run("--no-cache", "--stdin-filename", "pkg/kernels.py", "-")
    assert status == 1
    assert_marked(tmp_path, found, "pkg/kernels.py")


def test_a_file_nothing_registers_stays_clean_and_the_registering_file_is_not_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/register.py": REGISTERED
            + "\n".join(
                (
                    "",
                    "    V = torch.ones(2)",
                    "",
                    "    @torch.compiler.allow_in_graph",
                    "    def g(x):",
                    "        return x * V",
                )
            ),
            "pkg/kernels.py": KERNELS,
            "pkg/other.py": "import torch\n\nW = torch.ones(4)\n\ndef f(x):\n    return x * W\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    assert run("--no-cache", "pkg/other.py") == (0, [])
    status, found = run("--no-cache", "pkg/kernels.py")
    assert {finding.path for finding in found} == {"pkg/kernels.py"}


@pytest.mark.parametrize(
    ("driver", "cited"),
    [
        pytest.param("for USE_FAST in (True, False):\n    pass\n", "reassigned in a loop (config.py:2)", id="top-level-loop"),
        pytest.param('if __name__ == "__main__":\n    USE_FAST = False\n', "bound more than once (config.py:3)",
                     id="main-block"),
    ],
)  # fmt: skip
def test_a_flag_its_own_module_rebinds_in_a_loop_or_script_is_state_where_it_is_read(
    tmp_path: Path, driver: str, cited: str
) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": "USE_FAST = True\n" + driver,
            "pkg/ops.py": """
                import torch
                from . import config

                @torch.compiler.allow_in_graph
                def fast(x):
                    return x * 2 if config.USE_FAST else x  # AIG302
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert cited in finding.message


def test_a_flag_bound_twice_in_straight_line_code_of_its_module_is_not_state(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": "USE_FAST = True\nUSE_FAST = False\n",
            "pkg/ops.py": """
                import torch
                from . import config

                @torch.compiler.allow_in_graph
                def fast(x):
                    return x * 2 if config.USE_FAST else x
            """,
        },
    )
    assert check(tmp_path, "pkg/ops.py") == []


@pytest.mark.parametrize(
    ("exports", "changer"),
    [
        pytest.param("from ._impl import FLAGS", "from . import FLAGS\n\ndef off():\n    FLAGS['fast'] = False\n",
                     id="package-re-export"),
        pytest.param("from ._impl import FLAGS as OPTIONS", "import pkg\n\ndef off():\n    pkg.OPTIONS.update(fast=False)\n",
                     id="renamed-through-the-package"),
        pytest.param("from ._impl import FLAGS", "from .api import FLAGS\n\ndef off():\n    FLAGS.clear()\n",
                     id="re-exported-twice"),
    ],
)  # fmt: skip
def test_a_container_changed_through_a_re_export_is_state(tmp_path: Path, exports: str, changer: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": exports + "\n",
            "pkg/api.py": "from pkg import FLAGS\n" if "api" in changer else "",
            "pkg/_impl.py": """
                import torch

                FLAGS = {"fast": True}

                @torch.compiler.allow_in_graph
                def gated(x):
                    return x * 2 if FLAGS["fast"] else x  # AIG302
            """,
            "pkg/switch.py": changer,
        },
    )
    (finding,) = check(tmp_path, "pkg/_impl.py")
    assert "(switch.py:" in finding.message


def test_rebinding_a_re_export_leaves_the_original_as_it_was(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from ._impl import FLAGS\n",
            "pkg/_impl.py": """
                import torch

                FLAGS = {"fast": True}

                @torch.compiler.allow_in_graph
                def gated(x):
                    return x * 2 if FLAGS["fast"] else x
            """,
            "pkg/switch.py": "import pkg\n\ndef off():\n    pkg.FLAGS = {'fast': False}\n",
        },
    )
    assert check(tmp_path, "pkg/_impl.py") == []
