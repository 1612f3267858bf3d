"""Names from installed packages (issue 22, class 5): a registration helper or class
imported from another installed package is resolved by reading that package's source in
the environment, never importing it (checker/reading/environment.py, packages.py); where
the environment lacks the package, the table of well-known helpers (checker/spec/well_known.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from projects import assert_marked, marked, run, write

from checker.api import check_paths

SITE = "venv/lib/python3.11/site-packages"

#: An installed package with a registration helper (as diffusers spells its own), re-exported
#: by its ``__init__.py``, and an ``nn.Module`` subclass.
HELPERPKG = {
    f"{SITE}/helperpkg/__init__.py": """
        from .utils import maybe_allow_in_graph
        from .layers import Block
    """,
    f"{SITE}/helperpkg/utils.py": """
        try:
            from torch._dynamo import allow_in_graph as maybe_allow_in_graph
        except (ImportError, ModuleNotFoundError):

            def maybe_allow_in_graph(cls):
                return cls
    """,
    f"{SITE}/helperpkg/layers.py": """
        import torch.nn as nn


        class Block(nn.Module):
            def forward(self, x):
                return x
    """,
}

MODEL = """
    import torch.nn as nn
    {import_line}


    @{decorator}  # AIG402
    class Attention(nn.Module):
        def forward(self, x):
            return x
"""

SPELLINGS = {
    "from-module": ("from helperpkg.utils import maybe_allow_in_graph", "maybe_allow_in_graph"),
    "module-as": ("import helperpkg.utils as u", "u.maybe_allow_in_graph"),
    "dotted": ("import helperpkg.utils", "helperpkg.utils.maybe_allow_in_graph"),
    "re-export": ("from helperpkg import maybe_allow_in_graph", "maybe_allow_in_graph"),
    "renamed": ("from helperpkg.utils import maybe_allow_in_graph as register", "register"),
}


@pytest.fixture(autouse=True)
def no_active_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ``$VIRTUAL_ENV`` and no ``.venv`` where the run is: each test names its environment."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.chdir(tmp_path)


def project(root: Path, import_line: str, decorator: str, marker: bool = True) -> Path:
    text = MODEL.format(import_line=import_line, decorator=decorator)
    write(root, {**HELPERPKG, "proj/model.py": text if marker else text.replace("  # AIG402", "")})
    return root


def check(root: Path, *options: str, path: str = "proj") -> list[object]:
    __tracebackhide__ = True
    status, findings = run("--isolated", "--no-cache", *options, str(root / path))
    assert status in (0, 1)
    return findings


@pytest.mark.parametrize(("import_line", "decorator"), SPELLINGS.values(), ids=SPELLINGS.keys())
def test_a_helper_of_an_installed_package_registers(tmp_path: Path, import_line: str, decorator: str) -> None:
    root = project(tmp_path, import_line, decorator)
    findings = check(root, "--python-environment", str(root / "venv"))
    assert_marked(root, findings, "proj/model.py")


@pytest.mark.parametrize(("import_line", "decorator"), SPELLINGS.values(), ids=SPELLINGS.keys())
def test_the_off_switch_gives_the_old_answer(tmp_path: Path, import_line: str, decorator: str) -> None:
    root = project(tmp_path, import_line, decorator)
    assert check(root, "--python-environment", str(root / "venv"), "--no-installed-packages") == []


def test_the_environment_is_found_through_virtual_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, *SPELLINGS["from-module"])
    monkeypatch.setenv("VIRTUAL_ENV", str(root / "venv"))
    assert_marked(root, check(root), "proj/model.py")


def test_the_environment_is_found_at_the_project_root(tmp_path: Path) -> None:
    root = project(tmp_path, *SPELLINGS["from-module"])
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert_marked(root, check(root), "proj/model.py")  # (the working directory is the root)


@pytest.mark.parametrize(
    ("table", "found"),
    [
        pytest.param('python-environment = "../venv"\n', True, id="named-relative-to-the-file"),
        pytest.param('python-environment = "../venv"\ninstalled-packages = false\n', False, id="turned-off"),
        pytest.param('python-environment = "../elsewhere"\n', False, id="named-and-absent"),
    ],
)
def test_the_configuration_names_the_environment(tmp_path: Path, table: str, found: bool) -> None:
    root = project(tmp_path, *SPELLINGS["module-as"], marker=found)
    write(root, {"proj/pyproject.toml": "[tool.aigcheck]\n" + table})
    status, findings = run("--no-cache", str(root / "proj"))
    assert_marked(root, findings, "proj/model.py")


def test_the_option_wins_over_the_configuration(tmp_path: Path) -> None:
    root = project(tmp_path, *SPELLINGS["module-as"])
    write(root, {"proj/pyproject.toml": '[tool.aigcheck]\npython-environment = "../elsewhere"\n'})
    status, findings = run("--no-cache", "--python-environment", str(root / "venv"), str(root / "proj"))
    assert_marked(root, findings, "proj/model.py")


def test_a_site_packages_folder_may_be_named_itself(tmp_path: Path) -> None:
    root = project(tmp_path, *SPELLINGS["re-export"])
    assert_marked(root, check(root, "--python-environment", str(root / SITE)), "proj/model.py")


def test_a_class_of_an_installed_package_has_its_kind(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            **HELPERPKG,
            "proj/model.py": """
                import torch
                from helperpkg import Block
                from helperpkg.layers import Block as Layer


                class Mine(Block):
                    pass


                torch.compiler.allow_in_graph(Mine)  # AIG402
                torch.compiler.allow_in_graph(Layer)  # AIG402
            """,
        },
    )
    findings = check(tmp_path, "--python-environment", str(tmp_path / "venv"))
    assert_marked(tmp_path, findings, "proj/model.py")
    assert all("nn.Module" in finding.message for finding in findings)  # type: ignore[attr-defined]


def test_a_changed_file_of_the_environment_changes_a_cached_answer(tmp_path: Path) -> None:
    root = project(tmp_path, *SPELLINGS["from-module"])
    cached = ["--isolated", "--cache-dir", str(tmp_path / "cache"), "--python-environment", str(root / "venv")]
    assert len(run(*cached, str(root / "proj"))[1]) == 1
    assert len(run(*cached, str(root / "proj"))[1]) == 1  # (from the cache)
    # The package is upgraded: its helper no longer registers anything.
    (root / SITE / "helperpkg" / "utils.py").write_text("def maybe_allow_in_graph(cls):\n    return cls\n")
    assert run(*cached, str(root / "proj"))[1] == []
    # And installed afresh: it does again.
    write(root, {f"{SITE}/helperpkg/utils.py": HELPERPKG[f"{SITE}/helperpkg/utils.py"]})
    assert len(run(*cached, str(root / "proj"))[1]) == 1


def test_a_package_installed_later_is_seen_on_a_cached_run(tmp_path: Path) -> None:
    write(tmp_path, {"venv/lib/python3.11/site-packages/other.py": ""})
    root = project(tmp_path, *SPELLINGS["from-module"], marker=False)
    helper = root / SITE / "helperpkg"
    moved = root / "aside"
    helper.rename(moved)
    cached = ["--isolated", "--cache-dir", str(tmp_path / "cache"), "--python-environment", str(root / "venv")]
    assert run(*cached, str(root / "proj"))[1] == []
    moved.rename(helper)
    assert len(run(*cached, str(root / "proj"))[1]) == 1


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(folder)): (status.st_mtime_ns, status.st_size)
        for path in sorted(folder.rglob("*"))
        if (status := path.lstat())
    }


@pytest.mark.skipif(os.name != "posix", reason="permissions and links as on POSIX")
def test_broken_unreadable_huge_and_linked_files_of_the_environment_are_passed_over(tmp_path: Path) -> None:
    site = tmp_path / SITE
    write(
        tmp_path,
        {
            **HELPERPKG,
            f"{SITE}/brokenpkg/__init__.py": "def maybe_allow_in_graph(:\n",
            f"{SITE}/lockedpkg/__init__.py": "from torch._dynamo import allow_in_graph as maybe_allow_in_graph\n",
            f"{SITE}/hugepkg/__init__.py": "from torch._dynamo import allow_in_graph as maybe_allow_in_graph\n"
            + "# padding\n" * 1_000_000,
            "outside/linkedpkg.py": "from torch._dynamo import allow_in_graph as maybe_allow_in_graph\n",
            "proj/model.py": """
                import torch.nn as nn
                from brokenpkg import maybe_allow_in_graph as broken
                from lockedpkg import maybe_allow_in_graph as locked
                from hugepkg import maybe_allow_in_graph as huge
                from linkedpkg import maybe_allow_in_graph as linked
                from fifopkg import maybe_allow_in_graph as fifo
                from helperpkg import maybe_allow_in_graph


                @broken
                @huge
                @fifo
                class A(nn.Module):
                    pass


                @locked
                class Locked(nn.Module):
                    pass


                @linked  # AIG402
                class B(nn.Module):
                    pass


                @maybe_allow_in_graph  # AIG402
                class C(nn.Module):
                    pass
            """,
        },
    )
    (site / "linkedpkg.py").symlink_to(tmp_path / "outside" / "linkedpkg.py")  # followed, read only
    (site / "fifopkg").mkdir()
    os.mkfifo(site / "fifopkg" / "__init__.py")  # never waited on
    locked = site / "lockedpkg" / "__init__.py"
    locked.chmod(0)
    readable = os.access(locked, os.R_OK)  # (a superuser reads it all the same, and finds its registrar)
    before = _snapshot(tmp_path / "venv"), _snapshot(tmp_path / "outside")
    try:
        status, findings = run("--isolated", "--no-cache", "--python-environment", str(tmp_path / "venv"), "proj")
    finally:
        locked.chmod(0o644)
    assert status == 1
    locked_line = next(
        n for n, line in enumerate((tmp_path / "proj/model.py").read_text().splitlines(), 1) if line == "@locked"
    )
    assert [f.line for f in findings if f.line == locked_line] == ([locked_line] if readable else [])  # type: ignore[attr-defined]
    assert_marked(tmp_path, [f for f in findings if f.line != locked_line], "proj/model.py")  # type: ignore[attr-defined]
    # Nothing of the environment is written (no __pycache__, no cache), nor reported.
    assert (_snapshot(tmp_path / "venv"), _snapshot(tmp_path / "outside")) == before
    assert not list((tmp_path / "venv").rglob("__pycache__"))


#: diffusers' helper as diffusers 0.42.1 defines it (diffusers/utils/torch_utils.py).
DIFFUSERS = {
    f"{SITE}/diffusers/__init__.py": '__version__ = "0.42.1"\n',
    f"{SITE}/diffusers/utils/__init__.py": "",
    f"{SITE}/diffusers/utils/torch_utils.py": """
        try:
            from torch._dynamo import allow_in_graph as maybe_allow_in_graph
        except (ImportError, ModuleNotFoundError):

            def maybe_allow_in_graph(cls):
                return cls
    """,
}
#: A package of its own decorating its ``nn.Module`` classes with diffusers' helper.
USES_DIFFUSERS = {
    "proj/mypipe/__init__.py": "",
    "proj/mypipe/blocks.py": """
        import torch.nn as nn
        from diffusers.utils.torch_utils import maybe_allow_in_graph
        import diffusers.utils.torch_utils as torch_utils


        @maybe_allow_in_graph  # AIG402
        class BasicTransformerBlock(nn.Module):
            def forward(self, hidden_states):
                return hidden_states


        @torch_utils.maybe_allow_in_graph  # AIG402
        class JointBlock(nn.Module):
            def forward(self, hidden_states):
                return hidden_states
    """,
}


def test_diffusers_helper_read_from_the_environment(tmp_path: Path) -> None:
    write(tmp_path, {**DIFFUSERS, **USES_DIFFUSERS})
    findings = check(tmp_path, "--python-environment", str(tmp_path / "venv"))
    assert_marked(tmp_path, findings, "proj/mypipe/blocks.py")
    assert all("torch_utils.py" in finding.message for finding in findings)  # type: ignore[attr-defined]


def test_diffusers_helper_from_the_table_without_an_environment(tmp_path: Path) -> None:
    write(tmp_path, USES_DIFFUSERS)
    assert_marked(tmp_path, check(tmp_path), "proj/mypipe/blocks.py")
    assert check(tmp_path, "--no-installed-packages") == []


def test_the_table_gives_way_to_the_installed_source(tmp_path: Path) -> None:
    """An installed diffusers whose helper registers nothing is read, not the table."""
    no_dynamo = {
        **DIFFUSERS,
        f"{SITE}/diffusers/utils/torch_utils.py": "def maybe_allow_in_graph(cls):\n    return cls\n",
    }
    write(tmp_path, {**no_dynamo, **USES_DIFFUSERS})
    assert check(tmp_path, "--python-environment", str(tmp_path / "venv")) == []
    assert marked(tmp_path, "proj/mypipe/blocks.py")  # (the markers hold when the table is used)


#: aig_helpers' registrars, which spell nothing of the API: a wrapper def and an alias.
AIG_HELPERS = """
    import torch
    from torch.compiler import allow_in_graph as mark


    def register(fn):
        return torch.compiler.allow_in_graph(fn)
"""
#: Where aig_helpers binds them: its ``__init__.py``; a submodule; a submodule its ``__init__.py``
#: re-exports from (``from .ops import register, mark``, ``from . import ops``), two modules deep too.
LAYOUTS = {
    "own": {f"{SITE}/aig_helpers/__init__.py": AIG_HELPERS},
    "submodule": {f"{SITE}/aig_helpers/__init__.py": "", f"{SITE}/aig_helpers/ops.py": AIG_HELPERS},
    "re-exported": {
        f"{SITE}/aig_helpers/__init__.py": "from .ops import register, mark\nfrom . import ops\n",
        f"{SITE}/aig_helpers/ops.py": AIG_HELPERS,
    },
    "continued": {
        f"{SITE}/aig_helpers/__init__.py": """
            import torch

            mark = (
                torch.compiler.allow_in_graph
            )


            def register(fn):
                return mark(
                    fn
                )
        """
    },
    "re-exported-twice": {
        f"{SITE}/aig_helpers/__init__.py": "from ._api import register, mark\n",
        f"{SITE}/aig_helpers/_api.py": "from ._impl import register, mark\n",
        f"{SITE}/aig_helpers/_impl.py": AIG_HELPERS,
    },
}
#: How the project imports them (the import line) and registers ``f`` and ``g`` with them.
INSTALLED_SPELLINGS = {
    "from-decorators": ("own", "from aig_helpers import register, mark", "@register", "@mark"),
    "from-calls": ("own", "from aig_helpers import register, mark", "register(f)", "mark(g)"),
    "from-rebinding": ("own", "from aig_helpers import register, mark", "f = register(f)", "g = mark(g)"),
    "from-renamed": ("own", "from aig_helpers import register as reg, mark as m", "@reg", "m(g)"),
    "from-parenthesized": (
        "own",
        "from aig_helpers import (\n    register,  # a wrapper\n    mark,\n)",
        "@register",
        "@mark",
    ),
    "import": ("own", "import aig_helpers", "@aig_helpers.register", "aig_helpers.mark(g)"),
    "import-as": ("own", "import aig_helpers as h", "@h.register", "g = h.mark(g)"),
    "submodule-from": ("submodule", "from aig_helpers.ops import register, mark", "@register", "mark(g)"),
    "submodule-import": ("submodule", "import aig_helpers.ops", "@aig_helpers.ops.register", "aig_helpers.ops.mark(g)"),
    "submodule-import-as": ("submodule", "import aig_helpers.ops as o", "@o.register", "o.mark(g)"),
    "submodule-by-name": ("submodule", "from aig_helpers import ops", "@ops.register", "ops.mark(g)"),
    "re-exported-from": ("re-exported", "from aig_helpers import register, mark", "@register", "mark(g)"),
    "re-exported-import": ("re-exported", "import aig_helpers", "@aig_helpers.register", "aig_helpers.mark(g)"),
    "re-exported-submodule": ("re-exported", "import aig_helpers as h", "@h.ops.register", "h.ops.mark(g)"),
    "continued-lines": ("continued", "from aig_helpers import register, mark", "@register", "mark(g)"),
    "re-exported-twice": ("re-exported-twice", "from aig_helpers import register, mark", "@register", "mark(g)"),
}


def registering(import_line: str, for_f: str, for_g: str) -> str:
    """proj/pkg/ops.py: ``f`` and ``g`` read a module tensor and are registered, as decorators or after their defs."""
    decorators = {name: line if line.startswith("@") else "" for name, line in (("f", for_f), ("g", for_g))}
    calls = "\n".join(line for line in (for_f, for_g) if not line.startswith("@"))
    return f"""
import torch
{import_line}

W = torch.ones(3)


{decorators["f"]}
def f(x):
    return x * W  # AIG301


{decorators["g"]}
def g(x):
    return x * W  # AIG301


{calls}
"""


@pytest.mark.parametrize(
    ("layout", "import_line", "for_f", "for_g"), INSTALLED_SPELLINGS.values(), ids=INSTALLED_SPELLINGS.keys()
)
def test_a_registrar_of_an_installed_package_that_spells_nothing_of_the_api_registers(
    tmp_path: Path, layout: str, import_line: str, for_f: str, for_g: str
) -> None:
    """A wrapper def and an alias of an installed package: a normal run learns their names from
    the modules the project imports (the text tier lets ``@register`` through) and finds what
    an exhaustive run finds."""
    write(
        tmp_path,
        {**LAYOUTS[layout], "proj/pkg/__init__.py": "", "proj/pkg/ops.py": registering(import_line, for_f, for_g)},
    )
    findings = check(tmp_path, "--python-environment", str(tmp_path / "venv"))
    assert_marked(tmp_path, findings, "proj/pkg/ops.py")
    exhaustive = check_paths(
        [tmp_path / "proj"], isolated=True, jobs=1, python_environment=tmp_path / "venv", exhaustive=True
    )
    assert_marked(tmp_path, exhaustive.findings, "proj/pkg/ops.py")


def test_a_name_an_installed_package_does_not_bind_to_a_registrar_lets_nothing_through(tmp_path: Path) -> None:
    """``register`` of an installed package that forwards its parameter to something else: the
    file that decorates with it is not parsed (and has no finding)."""
    helpers = "import torch\n\n\ndef register(fn):\n    return torch.jit.script(fn)\n\n# allow_in_graph: never\n"
    ops = registering("from aig_helpers import register", "@register", "register(g)").replace("  # AIG301", "")
    write(tmp_path, {f"{SITE}/aig_helpers/__init__.py": helpers, "proj/pkg/__init__.py": "", "proj/pkg/ops.py": ops})
    report = check_paths([tmp_path / "proj"], isolated=True, jobs=1, python_environment=tmp_path / "venv")
    assert report.findings == ()
    assert not any(file.report.parsed for file in report.files)


def test_a_wrapper_def_of_an_installed_package_registers(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            f"{SITE}/aig_helpers/__init__.py": """
                import torch


                def register(fn):
                    return torch.compiler.allow_in_graph(fn)
            """,
            "proj/pkg/__init__.py": "",
            "proj/pkg/ops.py": """
                import torch
                from aig_helpers import register

                W = torch.ones(3)


                @register  # allow_in_graph
                def f(x):
                    return x * W  # AIG301
            """,
        },
    )
    findings = check(tmp_path, "--python-environment", str(tmp_path / "venv"))
    assert_marked(tmp_path, findings, "proj/pkg/ops.py")


def test_an_installed_registrar_that_stops_being_one_changes_a_cached_answer(tmp_path: Path) -> None:
    ops = registering("from aig_helpers import register, mark", "@register", "mark(g)")
    write(tmp_path, {**LAYOUTS["re-exported"], "proj/pkg/__init__.py": "", "proj/pkg/ops.py": ops})
    cached = ["--isolated", "--cache-dir", str(tmp_path / "cache"), "--python-environment", str(tmp_path / "venv")]
    assert len(run(*cached, str(tmp_path / "proj"))[1]) == 2
    assert len(run(*cached, str(tmp_path / "proj"))[1]) == 2  # (from the cache)
    # The package is upgraded: its helpers no longer register anything.
    (tmp_path / SITE / "aig_helpers" / "ops.py").write_text("def register(fn):\n    return fn\n\n\nmark = register\n")
    assert run(*cached, str(tmp_path / "proj"))[1] == []
    write(tmp_path, LAYOUTS["re-exported"])  # and installed afresh: they do again
    assert len(run(*cached, str(tmp_path / "proj"))[1]) == 2
