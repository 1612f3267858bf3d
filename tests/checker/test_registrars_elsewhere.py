"""Registrars bound in another module of the project: the API reached through a name another
module binds to a module (``tc.allow_in_graph`` after ``from pkg.decorated import tc``, where
decorated.py has ``from torch import compiler as tc``), and an alias of the API another module
imports under a name of its own (``from torch.compiler import allow_in_graph as aig`` there,
``from .decorated import aig`` here). Each project is checked as a run checks it, and
exhaustively (every file parsed, no cheap tier): the two must give the markers alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, write

from checker.api import check_paths

#: decorated.py, binding ``tc`` to torch.compiler.
MODULE_BINDINGS = {
    "from-import-as": "import torch\nfrom torch import compiler as tc\n",
    "import-as": "import torch.compiler as tc\n",
    "assigned": "import torch\n\ntc = torch.compiler\n",
}
#: decorated.py, binding ``aig`` to the API.
ALIAS_BINDINGS = {
    "from-import-as": "from torch.compiler import allow_in_graph as aig\n",
    "assigned": "import torch\n\naig = torch.compiler.allow_in_graph\n",
    "assigned-through-module": "from torch import compiler\n\naig = compiler.allow_in_graph\n",
}
#: decorated.py, defining a wrapper.
WRAPPER = "import torch\n\n\ndef aig(fn):\n    return torch.compiler.allow_in_graph(fn)\n"

#: How ops.py imports and applies ``tc``: the import line, and the registration of ``f``.
THROUGH_MODULE = {
    "absolute-call": ("from pkg.decorated import tc", "tc.allow_in_graph(f)"),
    "relative-decorator": ("from .decorated import tc", "@tc.allow_in_graph"),
    "module-as-call": ("import pkg.decorated as d", "d.tc.allow_in_graph(f)"),
    "relative-module-decorator": ("from . import decorated", "@decorated.tc.allow_in_graph"),
    "dotted-call": ("import pkg.decorated", "pkg.decorated.tc.allow_in_graph(f)"),
    "rebinding": ("from .decorated import tc", "f = tc.allow_in_graph(f)"),
}
#: How ops.py imports and applies ``aig``.
ALIASED = {
    "relative-call": ("from .decorated import aig", "aig(f)"),
    "absolute-decorator": ("from pkg.decorated import aig", "@aig"),
    "renamed-call": ("from pkg.decorated import aig as register", "register(f)"),
    "module-as-call": ("import pkg.decorated as d", "d.aig(f)"),
    "relative-module-decorator": ("from . import decorated", "@decorated.aig"),
    "rebinding": ("from .decorated import aig", "f = aig(f)"),
}


def ops(import_line: str, registration: str) -> str:
    """ops.py: ``f`` reads a module tensor and is registered, as a decorator or after its def."""
    decorator = registration if registration.startswith("@") else ""
    call = "" if decorator else registration
    return f"""
        import torch
        {import_line}

        W = torch.ones(3)


        {decorator}
        def f(x):
            return x + W  # AIG301


        {call}
    """


def both_runs(root: Path, path: str = "pkg/ops.py") -> None:
    """The project under ``root`` gives exactly the markers of ``path``, in a run and exhaustively."""
    __tracebackhide__ = True
    for exhaustive in (False, True):
        report = check_paths([root], isolated=True, installed_packages=False, jobs=1, exhaustive=exhaustive)
        assert_marked(root, report.findings, path)


def project(root: Path, decorated: str, ops_text: str, **more: str) -> Path:
    return write(root, {"pkg/__init__.py": "", "pkg/decorated.py": decorated, "pkg/ops.py": ops_text, **more})


@pytest.mark.parametrize("binding", MODULE_BINDINGS.values(), ids=MODULE_BINDINGS.keys())
@pytest.mark.parametrize(("import_line", "registration"), THROUGH_MODULE.values(), ids=THROUGH_MODULE.keys())
def test_the_api_through_a_module_another_module_binds(
    tmp_path: Path, binding: str, import_line: str, registration: str
) -> None:
    both_runs(project(tmp_path, binding, ops(import_line, registration)))


@pytest.mark.parametrize("binding", ALIAS_BINDINGS.values(), ids=ALIAS_BINDINGS.keys())
@pytest.mark.parametrize(("import_line", "registration"), ALIASED.values(), ids=ALIASED.keys())
def test_an_alias_another_module_binds(tmp_path: Path, binding: str, import_line: str, registration: str) -> None:
    both_runs(project(tmp_path, binding, ops(import_line, registration)))


@pytest.mark.parametrize(("import_line", "registration"), ALIASED.values(), ids=ALIASED.keys())
def test_a_wrapper_def_of_another_module_registers(tmp_path: Path, import_line: str, registration: str) -> None:
    both_runs(project(tmp_path, WRAPPER, ops(import_line, registration)))


@pytest.mark.parametrize("binding", [ALIAS_BINDINGS["from-import-as"], WRAPPER], ids=["alias", "wrapper"])
def test_a_registrar_re_exported_by_a_package_that_never_names_the_api(tmp_path: Path, binding: str) -> None:
    """pkg/__init__.py re-exports it (``from .decorated import aig``) and spells nothing of the API."""
    init = "from .decorated import aig\n"
    both_runs(project(tmp_path, binding, ops("from pkg import aig", "@aig"), **{"pkg/__init__.py": init}))


@pytest.mark.parametrize(
    ("binding", "import_line", "registration"),
    [
        pytest.param(MODULE_BINDINGS["from-import-as"], "from .decorated import tc", "tc.allow_in_graph", id="module"),
        pytest.param(ALIAS_BINDINGS["from-import-as"], "from .decorated import aig", "aig", id="alias"),
    ],
)
def test_a_def_of_a_third_module_registered_so_is_judged_where_it_is(
    tmp_path: Path, binding: str, import_line: str, registration: str
) -> None:
    kernels = """
        import torch

        W = torch.ones(3)


        def helper(x):
            return x + W  # AIG301
    """
    registering = f"{import_line}\nfrom .kernels import helper\n\n{registration}(helper)\n"
    both_runs(project(tmp_path, binding, registering, **{"pkg/kernels.py": kernels}), "pkg/kernels.py")


@pytest.mark.parametrize(
    ("binding", "registration"),
    [
        pytest.param("from torch import compiler as tc\n", "tc.disallow_in_graph(f)", id="disallow"),
        pytest.param("import mylib.compiler as tc\n", "tc.allow_in_graph(f)", id="not-torch"),
        pytest.param("import torch\n\ntc = torch.nn\n", "tc.allow_in_graph(f)", id="another-torch-module"),
    ],
)
def test_what_is_not_the_api_through_another_module_registers_nothing(
    tmp_path: Path, binding: str, registration: str
) -> None:
    both_runs(project(tmp_path, binding, ops("from .decorated import tc", registration).replace("  # AIG301", "")))
