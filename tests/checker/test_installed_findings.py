"""Findings about a registered function of an installed package are made at the checked
file's registration, never in ``site-packages`` (README: "never reported: findings are made
only in the checked files"; checker/passes/installed_findings.py). The registration is the
user's, so the finding stays, at their line, naming the package and where the function is."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest
from projects import assert_marked, run, write

from checker.api import check_paths
from checker.rules import ALL_RULES
from checker.spec.links import Place
from checker.spec.messages import FIX_FOLLOWS, Function, Installed, Message, installed_fix

SITE = "venv/lib/python3.11/site-packages"

EXTPKG = {
    "venv/pyvenv.cfg": "home = /usr/bin\n",
    f"{SITE}/extpkg/__init__.py": """
        import torch

        W = torch.ones(3)


        def rearrange(x):
            return x * W


        def _helper(x):
            return x + W


        def chained(x):
            return _helper(x)


        def talks(x):
            print("tracing")
            return x


        @torch.compiler.allow_in_graph
        def own(x):
            return x * W
    """,
    f"{SITE}/extpkg/sub/__init__.py": "",
    f"{SITE}/extpkg/sub/ops.py": """
        import torch

        W = torch.ones(2)


        def op(x):
            return x * W
    """,
}

#: Spellings of a registration of an installed package's function.
SPELLINGS = {
    "from-import": ("from extpkg import rearrange", "rearrange"),
    "renamed": ("from extpkg import rearrange as r", "r"),
    "module-as": ("import extpkg as e", "e.rearrange"),
    "dotted": ("import extpkg", "extpkg.rearrange"),
    "from-submodule": ("from extpkg.sub.ops import op", "op"),
    "submodule-attribute": ("from extpkg.sub import ops", "ops.op"),
    "dotted-submodule": ("import extpkg.sub.ops", "extpkg.sub.ops.op"),
    "submodule-as": ("import extpkg.sub.ops as o", "o.op"),
}


@pytest.fixture(autouse=True)
def no_active_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ``$VIRTUAL_ENV`` and no ``.venv`` where the run is: each test names its environment."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.chdir(tmp_path)


def project(root: Path, files: dict[str, str]) -> Path:
    return write(root, {**EXTPKG, **files})


def check(root: Path, *paths: str) -> list[object]:
    __tracebackhide__ = True
    named = [str(root / path) for path in paths or ("proj",)]
    status, findings = run("--isolated", "--no-cache", "--python-environment", str(root / "venv"), *named)
    assert status in (0, 1)
    return findings


def exhaustive(root: Path) -> list[object]:
    report = check_paths([root / "proj"], isolated=True, jobs=1, python_environment=root / "venv", exhaustive=True)
    return list(report.findings)


@pytest.mark.parametrize(("import_line", "target"), SPELLINGS.values(), ids=SPELLINGS.keys())
def test_the_finding_is_at_the_registration(tmp_path: Path, import_line: str, target: str) -> None:
    root = project(
        tmp_path, {"proj/ops.py": f"import torch\n{import_line}\n\ntorch.compiler.allow_in_graph({target})  # AIG301\n"}
    )
    findings = check(root)
    assert_marked(root, findings)
    assert_marked(root, exhaustive(root))
    assert all("site-packages" not in finding.path for finding in findings)  # type: ignore[attr-defined]


def test_the_message_names_the_package_and_the_definition(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"proj/ops.py": "import torch\nfrom extpkg import rearrange\n\ntorch.compiler.allow_in_graph(rearrange)\n"},
    )
    (finding,) = check(root)
    init = f"{SITE}/extpkg/__init__.py"  # (as the run shows it: relative to the working directory)
    assert (finding.line, finding.column) == (4, 1)  # type: ignore[attr-defined]
    assert finding.message.startswith(  # type: ignore[attr-defined]
        f"rearrange (defined in installed package extpkg at {init}:6): reads tensor 'W' from the module scope ({init}:3); "
    )
    # The fix is one the user can make: the package's code is not theirs to change.
    assert finding.message.endswith(  # type: ignore[attr-defined]
        "; rearrange is code of the installed package extpkg, not this project's: leave it unregistered (Dynamo "
        "then traces it), or register a function of your own that keeps the contract instead"
    )
    assert "pass 'W' as an argument" not in finding.message  # type: ignore[attr-defined]


def _pinned_about_functions() -> list[pytest.param]:
    """One pinned message of each type that names a registered function, from the rules' examples."""
    found: dict[type, Message] = {}
    for rule in ALL_RULES:
        for _, messages in rule.pinned():
            for message in messages:
                if _function(message) is not None:
                    found.setdefault(type(message), message)
    return [pytest.param(message, id=kind.__name__) for kind, message in found.items()]


def _function(message: Message) -> Function | None:
    return next((v for f in fields(message) if isinstance(v := getattr(message, f.name), Function)), None)  # type: ignore[arg-type]


@pytest.mark.parametrize("message", _pinned_about_functions())
def test_a_fix_that_changes_the_function_is_reworded_for_installed_code(message: Message) -> None:
    """Where a type's fix changes the function's code, it is its last clause, and only it is
    replaced: what was found, and the clause it breaks, stay. Other types keep their words."""
    function = _function(message)
    assert function is not None
    installed = replace(function, installed=Installed("extpkg", Place("x.py", 3)))
    text, reworded = message.text(), installed_fix(message, installed)
    if not message.fixes_the_function:
        assert reworded == text
        return
    found, _, fix = text.rpartition(FIX_FOLLOWS)
    assert found and not fix.startswith(("the contract says", "inputs must", "Dynamo"))
    assert reworded.startswith(f"{found}{FIX_FOLLOWS}{function.name} is code of the installed package extpkg, not")
    assert installed_fix(message, function) == text  # (the project's own function keeps its fix)


def test_each_kind_of_finding_and_every_registration(tmp_path: Path) -> None:
    """A helper's capture (the chain cites the package's lines), a side effect, and a
    function registered twice: each registration is a line of the user's."""
    root = project(
        tmp_path,
        {
            "proj/ops.py": """
                import torch
                from extpkg import chained, rearrange, talks

                torch.compiler.allow_in_graph(chained)  # AIG301
                torch.compiler.allow_in_graph(talks)  # AIG501
                torch.compiler.allow_in_graph(rearrange)  # AIG301
            """,
            "proj/again.py": "import torch\nimport extpkg\n\ntorch.compiler.allow_in_graph(extpkg.rearrange)  # AIG301\n",
        },
    )
    findings = check(root)
    assert_marked(root, findings)
    assert_marked(root, exhaustive(root))
    chained = next(f for f in findings if f.message.startswith("chained"))  # type: ignore[attr-defined]
    assert f"calls _helper() ({SITE}/extpkg/__init__.py:15)" in chained.message  # type: ignore[attr-defined]


def test_the_packages_own_registrations_are_not_reported(tmp_path: Path) -> None:
    """``own`` is registered by extpkg itself: not the user's registration, nothing to report."""
    root = project(
        tmp_path,
        {"proj/ops.py": "import torch\nfrom extpkg import talks\n\ntorch.compiler.allow_in_graph(talks)  # AIG501\n"},
    )
    assert_marked(root, check(root))


def test_a_noqa_on_the_registration_suppresses_it(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "proj/ops.py": "import torch\nfrom extpkg import rearrange\n\ntorch.compiler.allow_in_graph(rearrange)  # noqa: AIG301\n"
        },
    )
    assert check(root) == []


def test_an_installed_file_that_is_checked_is_reported_as_it_is(tmp_path: Path) -> None:
    """Named among the checked paths, a file there is the user's to read: its own lines."""
    root = project(
        tmp_path, {"proj/ops.py": "import torch\nfrom extpkg.sub.ops import op\n\ntorch.compiler.allow_in_graph(op)\n"}
    )
    findings = check(root, "proj", f"{SITE}/extpkg/sub/ops.py")
    assert [(Path(f.path).name, f.line) for f in findings] == [("ops.py", 7)]  # type: ignore[attr-defined]
    assert "site-packages" in findings[0].path  # type: ignore[attr-defined]
