"""State held in config objects, attributes that hold modules or tensors, and classes
patched by the project (issue 22, classes 2, 3 and 4): AIG302 only where a write the
project makes reaches what the registered function reads (evidence/dynamo/FINDINGS.md
S§1b), AIG301 where the project stores a module or a tensor in the attribute read (S§1a).
Every idiom in every import spelling (checker/facts/captures/attribute_state.py,
environ_reads.py, checker/index/change_walk.py, environ_walk.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import check, write

CONFIG = """
    import dataclasses
    import os
    from dataclasses import dataclass
    from types import SimpleNamespace


    @dataclass
    class Opts:
        scale: float = 1.0
        eps: float = 1e-6


    class Holder:
        def __init__(self):
            self.opts = Opts()


    CFG = Holder()
    NS = SimpleNamespace(alpha=1.0, beta=2.0)
    FROZEN = Opts()
    state = SimpleNamespace(head=None)


    def set_scale(v):
        CFG.opts = dataclasses.replace(CFG.opts, scale=v)


    def set_alpha(v):
        setattr(NS, "alpha", v)


    def enable():
        os.environ["PKG_FAST"] = "1"
"""

#: How ops.py imports the config module or its objects, and how it then spells them.
SPELLINGS = [
    pytest.param("from pkg.config import CFG, FROZEN, NS, state", "", id="from-module-import-objects"),
    pytest.param("from .config import CFG, FROZEN, NS, state", "", id="relative-from-import-objects"),
    pytest.param("from pkg import config", "config.", id="from-package-import-module"),
    pytest.param("from . import config", "config.", id="relative-import-module"),
    pytest.param("import pkg.config as c", "c.", id="import-as"),
    pytest.param("import pkg.config", "pkg.config.", id="dotted"),
]

#: How other.py writes NS.beta and stores a module in state.head.
WRITERS = [
    pytest.param("from pkg import config", "config.", id="writer-module-attribute"),
    pytest.param("import pkg.config as cfg", "cfg.", id="writer-import-as"),
    pytest.param("from pkg.config import NS, state", "", id="writer-from-import"),
    pytest.param("from .config import NS, state", "", id="writer-relative"),
]


def _ops(imports: str, spelled: str) -> str:
    o = spelled
    return f"""
        import torch
        {imports}

        @torch.compiler.allow_in_graph
        def frozen(x):
            return x * {o}FROZEN.eps

        @torch.compiler.allow_in_graph
        def alpha(x):
            return x * {o}NS.alpha  # AIG302

        @torch.compiler.allow_in_graph
        def beta(x):
            return x * {o}NS.beta  # AIG302

        @torch.compiler.allow_in_graph
        def scale(x):
            return x * {o}CFG.opts.scale  # AIG302

        @torch.compiler.allow_in_graph
        def eps(x):
            return x * {o}CFG.opts.eps  # AIG302

        @torch.compiler.allow_in_graph
        def head(x):
            return {o}state.head(x)  # AIG301
    """


def _other(imports: str, spelled: str) -> str:
    return f"""
        import torch
        {imports}

        def tune():
            {spelled}NS.beta = 3.0

        def setup():
            {spelled}state.head = torch.nn.Linear(3, 3)
    """


def _project(tmp_path: Path, imports: str, spelled: str, writer: tuple[str, str]) -> Path:
    return write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": CONFIG,
            "pkg/other.py": _other(*writer),
            "pkg/ops.py": _ops(imports, spelled),
        },
    )


@pytest.mark.parametrize(("imports", "spelled"), SPELLINGS)
def test_each_attribute_read_is_judged_by_the_writes_of_that_attribute(
    tmp_path: Path, imports: str, spelled: str
) -> None:
    _project(tmp_path, imports, spelled, ("from pkg import config", "config."))
    findings = {finding.line: finding.message for finding in check(tmp_path, "pkg/ops.py")}
    assert f"reads '{spelled}NS.alpha'" in findings[10]
    assert f"the code assigns '{spelled}NS.alpha' (config.py:29)" in findings[10]
    assert f"the code assigns '{spelled}NS.beta' (other.py:5)" in findings[14]
    assert f"the code assigns '{spelled}CFG.opts' (config.py:25)" in findings[18]
    assert f"reads module '{spelled}state.head' from the attribute setup() assigns in other.py (line 8)" in findings[26]


@pytest.mark.parametrize(("imports", "spelled"), WRITERS)
def test_writes_in_another_module_in_every_spelling(tmp_path: Path, imports: str, spelled: str) -> None:
    _project(tmp_path, "from pkg import config", "config.", (imports, spelled))
    check(tmp_path, "pkg/ops.py")


@pytest.mark.parametrize(
    "write_beta",
    [
        pytest.param("config.NS.beta = 3.0", id="assign"),
        pytest.param("config.NS.beta += 1.0", id="augmented"),
        pytest.param('setattr(config.NS, "beta", 3.0)', id="setattr"),
        pytest.param("del config.NS.beta", id="del"),
        pytest.param('delattr(config.NS, "beta")', id="delattr"),
        pytest.param("setattr(config.NS, name, 3.0)", id="setattr-by-name"),
        pytest.param("config.NS.__dict__.update(beta=3.0)", id="dict-update"),
    ],
)
def test_every_write_of_the_attribute_counts(tmp_path: Path, write_beta: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": "from types import SimpleNamespace\n\nNS = SimpleNamespace(beta=2.0)\n",
            "pkg/other.py": f"""
                from pkg import config

                def tune(name="beta"):
                    {write_beta}
            """,
            "pkg/ops.py": """
                import torch
                from pkg.config import NS

                @torch.compiler.allow_in_graph
                def beta(x):
                    return x * NS.beta  # AIG302
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert "(other.py:4)" in finding.message


def test_objects_in_the_checked_module(tmp_path: Path) -> None:
    """The same idioms with the objects defined and written in the registering module."""
    write(
        tmp_path,
        {
            "ops.py": """
                import dataclasses
                from dataclasses import dataclass
                from types import SimpleNamespace

                import torch

                @dataclass
                class Opts:
                    scale: float = 1.0
                    eps: float = 1e-6

                    def bump(self):
                        self.eps *= 2

                class Box:
                    def __init__(self):
                        self.proj = None

                FROZEN = Opts()
                CFG = SimpleNamespace(opts=Opts())
                NS = SimpleNamespace(alpha=1.0, beta=2.0)
                box = Box()

                def setup():
                    box.proj = torch.nn.Linear(3, 3)
                    NS.beta = 3.0
                    CFG.opts = dataclasses.replace(CFG.opts, scale=2.0)

                @torch.compiler.allow_in_graph
                def read(x):
                    y = x * FROZEN.scale * NS.alpha
                    y = y * NS.beta * CFG.opts.scale  # AIG302 AIG302
                    return box.proj(y) * FROZEN.eps  # AIG301 AIG302
            """,
        },
    )
    findings = {(f.line, f.column): f.message for f in check(tmp_path, "ops.py")}
    messages = "\n".join(findings.values())
    assert "reads module 'box.proj' from the attribute setup() assigns (line 25)" in messages
    assert "reads 'FROZEN.eps' from a Opts object, and Opts.bump() assigns 'self.eps' (line 13)" in messages


@pytest.mark.parametrize(
    ("read", "set_it"),
    [
        pytest.param('os.environ.get("PKG_FAST")', 'os.environ["PKG_FAST"] = "1"', id="get-item"),
        pytest.param('os.environ["PKG_FAST"]', 'os.environ.update(PKG_FAST="1")', id="item-update-keyword"),
        pytest.param('os.getenv("PKG_FAST")', 'os.environ.update({"PKG_FAST": "1"})', id="getenv-update-dict"),
        pytest.param('environ.get("PKG_FAST")', 'os.environ.setdefault("PKG_FAST", "1")', id="from-os-setdefault"),
        pytest.param('"PKG_FAST" in os.environ', 'os.putenv("PKG_FAST", "1")', id="in-putenv"),
        pytest.param('getenv("PKG_FAST")', 'del os.environ["PKG_FAST"]', id="from-os-getenv-del"),
    ],
)
@pytest.mark.parametrize("where", ["config.py", "ops.py"])
def test_an_environment_variable_the_project_sets(tmp_path: Path, read: str, set_it: str, where: str) -> None:
    setter = f"\n\ndef enable():\n    {set_it}\n"
    ops = (
        "import os\nfrom os import environ, getenv\n\nimport torch\n\n"
        f"@torch.compiler.allow_in_graph\ndef fast(x):\n    return x * 2 if {read} else x  # AIG302\n"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/config.py": "import os\n" + setter if where == "config.py" else "",
        "pkg/ops.py": ops + (setter if where == "ops.py" else ""),
    }
    write(tmp_path, files)
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert "reads environment variable 'PKG_FAST' from the process environment, and the code sets it" in finding.message


@pytest.mark.parametrize(
    "set_other",
    [
        pytest.param('os.environ["OTHER"] = "1"', id="another-key"),
        pytest.param('os.environ[name] = "1"', id="key-not-a-literal"),
        pytest.param("os.environ.update(env)", id="update-not-a-literal"),
        pytest.param("", id="never-set"),
    ],
)
def test_an_environment_variable_the_project_does_not_set(tmp_path: Path, set_other: str) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": f"""
                import os

                def enable(name="PKG_FAST", env=None):
                    {set_other or "pass"}
            """,
            "pkg/ops.py": """
                import os

                import torch

                os.environ["PKG_FAST"] = "1"  # at import, before anything is compiled

                @torch.compiler.allow_in_graph
                def fast(x):
                    return x * 2 if os.environ.get("PKG_FAST") else x
            """,
        },
    )
    assert check(tmp_path, "pkg/ops.py") == []


#: How the project patches Block (class 4): at a module's top level or in a function, by
#: assignment or setattr, through the class imported by name or through its module.
PATCHES = [
    pytest.param("from pkg.models import Block", "Block.forward = patched", id="from-import-top-level"),
    pytest.param("from pkg.models import Block", "def install():\n    Block.forward = patched", id="in-a-function"),
    pytest.param("import pkg.models as m", 'setattr(m.Block, "forward", patched)', id="setattr-through-module"),
    pytest.param("from .models import Block", 'setattr(Block, "forward", patched)', id="relative-setattr"),
    pytest.param("from pkg import models", "models.Block.forward = patched", id="module-attribute"),
]


@pytest.mark.parametrize(("imports", "patch"), PATCHES)
def test_a_patched_class_is_state_only_where_its_patched_attribute_is_read(
    tmp_path: Path, imports: str, patch: str
) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/models.py": """
                class Block:
                    scale = 2.0

                    def forward(self, x):
                        return x * self.scale
            """,
            "pkg/patch.py": f"{imports}\n\n\ndef patched(self, x):\n    return x\n\n\n{patch}\n",
            "pkg/ops.py": """
                import torch

                import pkg.models as y
                from pkg import models
                from pkg.models import Block

                @torch.compiler.allow_in_graph
                def uses_the_class(x):
                    if isinstance(x, Block) or isinstance(x, models.Block) or type(x) is y.Block:
                        return Block().forward(x) * Block.scale * y.Block.scale * type(x).scale
                    return x

                @torch.compiler.allow_in_graph
                def reads_the_patched_method(x):
                    return Block.forward(x, x)  # AIG302
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert "reads 'Block.forward' from the module scope, and the code assigns 'Block.forward' (patch.py:" in (
        finding.message
    )


def test_a_class_of_the_checked_module_patched_in_a_function(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "ops.py": """
                import torch

                class Block:
                    scale = 2.0

                    def forward(self, x):
                        return x

                Block.forward = lambda self, x: x  # at import, before anything is compiled

                def install(fn):
                    Block.forward = fn

                @torch.compiler.allow_in_graph
                def f(x):
                    y = Block.forward(None, x)  # AIG302
                    return y * Block.scale if isinstance(y, Block) else Block().forward(y)
            """,
        },
    )
    check(tmp_path, "ops.py")
