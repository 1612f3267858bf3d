"""The field-idioms suite: packages written after the idioms of real PyTorch libraries.

``tests/field_idioms/`` holds small packages (tensor-subclass and quantization
libraries, kernel registries, kernel loaders with import fallbacks, config modules,
``autograd.Function``s, every registration spelling) that the checker was not tuned
on. Each package is checked whole, as ``aigcheck`` would check a project, and its
findings must be exactly the ``# AIGnnn`` markers written on its lines; a module
without markers must have no finding of severity error or warning (false positives
are what this suite measures first). The markers follow the evidence
(``evidence/dynamo/FINDINGS.md``) and the rules' documentation, never the checker's
current output.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

from checker.command import cli
from checker.spec.markers import expected

FIELD = Path(__file__).resolve().parent / "field_idioms"

#: Test id -> package folder under tests/field_idioms/.
PACKAGES = {
    "quantization-lib": "quantization_lib",
    "backend-registry": "backend_registry",
    "kernel-loader": "kernel_loader",
    "config-flags": "config_flags",
    "config-objects": "config_objects",
    "autograd-functions": "autograd_functions",
    "registration-forms": "registration_forms",
}


class Place(NamedTuple):
    """A finding, or an expected one: the module relative to tests/field_idioms/."""

    path: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code}"


class Reported(NamedTuple):
    place: Place
    severity: str
    message: str


@functools.cache
def reported(package: str) -> tuple[Reported, ...]:
    """``aigcheck --output-format json --isolated --no-cache tests/field_idioms/<package>``, in-process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["--output-format", "json", "--isolated", "--no-cache", str(FIELD / package)])
    assert status in (0, 1), f"aigcheck exited with {status} on {package}"
    found = []
    for item in json.loads(out.getvalue() or "[]"):
        path = Path(item["path"])
        relative = (path if path.is_absolute() else Path.cwd() / path).resolve().relative_to(FIELD)
        found.append(
            Reported(Place(relative.as_posix(), item["line"], item["code"]), item["severity"], item["message"])
        )
    return tuple(found)


def modules(package: str) -> list[Path]:
    return sorted((FIELD / package).rglob("*.py"))


def markers(path: Path) -> Counter[Place]:
    relative = path.relative_to(FIELD).as_posix()
    return Counter(
        {Place(relative, line, code): n for (line, code), n in expected(path.read_text(encoding="utf-8")).items()}
    )


@pytest.mark.parametrize("package", PACKAGES.values(), ids=PACKAGES.keys())
def test_findings_are_the_markers(package: str) -> None:
    want: Counter[Place] = Counter()
    for path in modules(package):
        want += markers(path)
    found = reported(package)
    got = Counter(item.place for item in found)
    missing, unexpected = want - got, got - want
    report = [f"{package}: the findings are not the ones the # AIGnnn markers expect"]
    report += [f"  marked, not found: {where}" for where in sorted(missing.elements())]
    for where in sorted(unexpected):
        extra = f" ({unexpected[where]} more than marked)" if want[where] else ""
        report.append(f"  found, not marked{extra}: {where}")
        report += [f"      [{item.severity}] {item.message}" for item in found if item.place == where]
    assert not missing and not unexpected, "\n".join(report)


CLEAN = [path for package in PACKAGES.values() for path in modules(package) if not markers(path)]
_IDS = {folder: key for key, folder in PACKAGES.items()}


def _module_id(path: Path) -> str:
    """``quantization-lib/dtypes.py``: the package's test id, then the module."""
    package, *rest = path.relative_to(FIELD).parts
    return "/".join((_IDS[package], *rest))


@pytest.mark.parametrize("path", CLEAN, ids=[_module_id(path) for path in CLEAN])
def test_clean_module_has_no_error_or_warning(path: Path) -> None:
    relative = path.relative_to(FIELD).as_posix()
    package = path.relative_to(FIELD).parts[0]
    wrong = [
        f"  {item.place} [{item.severity}] {item.message}"
        for item in reported(package)
        if item.place.path == relative and item.severity in ("error", "warning")
    ]
    assert not wrong, f"{relative} has no markers, yet:\n" + "\n".join(wrong)


# -- registration_forms: one function, every spelling, the same findings -----------------

FORMS_PACKAGE = "registration_forms"
#: Function-name suffix -> how the function is registered.
FORMS = {
    "public": "decorator-torch-compiler",
    "tc": "decorator-module-alias",
    "aig": "decorator-import-alias",
    "dynamo": "decorator-torch-dynamo",
    "maybe": "decorator-project-alias",
    "wrapper": "decorator-project-wrapper",
    "local": "decorator-local-wrapper",
    "static": "staticmethod-over-decorator",
    "call": "call-statement",
    "rebind": "rebinding-local-def",
    "list": "call-with-list",
    "tuple": "call-with-tuple",
    "imported": "rebinding-imported-name",
    "attr": "call-on-module-attribute",
    "attr_list": "call-with-list-of-module-attributes",
    "attr_tuple": "call-with-tuple-of-module-attributes",
    "imported_list": "call-with-list-of-imported-names",
}
KERNELS = ("bias_gelu_", "bias_tanh_gelu_")
#: Codes that belong to the spelling of the registration, not to the function registered.
SPELLING_CODES = {"AIG407"}


class Offset(NamedTuple):
    kernel: str
    line_after_def: int
    code: str


@functools.cache
def _functions() -> dict[tuple[str, str], tuple[str, int, int]]:
    """(kernel, form) -> (module, def line, last line) for every kernel of the package."""
    found = {}
    for path in modules(FORMS_PACKAGE):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                for kernel in KERNELS:
                    form = node.name.removeprefix(kernel)
                    if node.name.startswith(kernel) and form in FORMS:
                        relative = path.relative_to(FIELD).as_posix()
                        found[(kernel, form)] = (relative, node.lineno, node.end_lineno or node.lineno)
    return found


def findings_of(form: str) -> Counter[Offset]:
    """The findings inside the two kernels registered in ``form``, by line relative to their def."""
    offsets: Counter[Offset] = Counter()
    for kernel in KERNELS:
        module, first, last = _functions()[(kernel, form)]
        for item in reported(FORMS_PACKAGE):
            place = item.place
            if place.path == module and first <= place.line <= last and place.code not in SPELLING_CODES:
                offsets[Offset(kernel, place.line - first, place.code)] += 1
    return offsets


def test_every_kernel_of_every_form_exists() -> None:
    assert sorted(_functions()) == sorted((kernel, form) for kernel in KERNELS for form in FORMS)


OTHER_FORMS = [form for form in FORMS if form != "public"]


@pytest.mark.parametrize("form", OTHER_FORMS, ids=[FORMS[form] for form in OTHER_FORMS])
def test_every_registration_form_gives_the_same_findings(form: str) -> None:
    reference = findings_of("public")
    assert reference, "the decorator form itself gives no finding: the comparison would prove nothing"
    assert findings_of(form) == reference
