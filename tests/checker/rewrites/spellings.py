"""Rewrites that respell: the torch import aliased (3), the registration form switched (5),
names renamed (6). Lines stay where they are, or a registration moves next to its def."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import libcst as cst

from .program import (
    Line,
    Outcome,
    Parsed,
    Program,
    Project,
    Top,
    dotted,
    fresh,
    outcome,
    rename_edits,
    splice,
    walk,
    written,
)

# -- 3. alias the import ---------------------------------------------------------------


def _torch_import(p: Parsed) -> Top | None:
    """The first module-level statement that binds ``torch``."""
    for top in p.top:
        if any(b is not None and p.inside(b, top.node) for b in p.bindings.get("torch", [])) and isinstance(
            top.node, cst.SimpleStatementLine
        ):
            return top
    return None


def alias_torch(program: Program) -> Outcome:
    """``import torch`` -> ``import torch as T``, and every ``torch`` of the module -> ``T``."""
    project = Project(program)
    alias = fresh(project.parsed.values(), "T")
    changed, done = {}, []
    for p in project.modules():
        plain = [
            top
            for top in p.top
            if isinstance(top.node, cst.SimpleStatementLine)
            and re.fullmatch(r"import torch(\s*#.*)?", p.lines[top.first - 1].text.strip())
        ]
        if not plain:
            continue
        edits = [(plain[0].first, 0, len("import torch"), f"import torch as {alias}")]
        edits += [e for a in p.accesses.get("torch", []) for e in rename_edits(p, a, "torch", alias)]
        changed[p.path] = splice(p.lines, edits)
        done.append(f"{p.stem}: import torch as {alias}")
    return outcome(program, changed, done, [], "no module has a plain 'import torch'")


def _alias_chain(program: Program, chain: str, statement: str, want: str) -> Outcome:
    """Every ``chain`` (an attribute chain from the module's ``torch``) -> a name imported once."""
    project = Project(program)
    alias = fresh(project.parsed.values(), want)
    changed, done, declined = {}, [], []
    for p in project.modules():
        edits = []
        for access in p.accesses.get("torch", []):
            node = _chain_at(p, access, chain)
            if node is not None:
                where = p.pos[node]
                edits.append((where.start.line, where.start.column, where.end.column, alias))
        anchor = _torch_import(p)
        if edits and anchor is None:
            declined.append(f"{p.stem}: no module-level statement imports torch, to import {alias} after")
        if not edits or anchor is None:
            continue
        lines = splice(p.lines, edits)
        changed[p.path] = lines[: anchor.last] + written(statement.format(alias)) + lines[anchor.last :]
        done.append(f"{p.stem}: {len(edits)} x {chain} -> {alias}")
    return outcome(program, changed, done, declined, f"no module spells {chain}")


def _chain_at(p: Parsed, access: cst.CSTNode, chain: str) -> cst.CSTNode | None:
    """The attribute node spelling ``chain`` whose head is ``access`` (the Name ``torch``), if any."""
    best = None
    for node in walk(p.module):
        if isinstance(node, cst.Attribute) and dotted(node) == chain and p.pos[node].start == p.pos[access].start:
            if p.pos[node].start.line == p.pos[node].end.line:
                best = node
    return best


def alias_compiler(program: Program) -> Outcome:
    """``torch.compiler.X`` -> ``tc.X`` with ``from torch import compiler as tc``."""
    return _alias_chain(program, "torch.compiler", "from torch import compiler as {}", "tc")


def alias_registrar(program: Program) -> Outcome:
    """``torch.compiler.allow_in_graph`` -> ``aig`` with ``from torch.compiler import allow_in_graph as aig``."""
    return _alias_chain(
        program, "torch.compiler.allow_in_graph", "from torch.compiler import allow_in_graph as {}", "aig"
    )


# -- 5. switch the registration form ---------------------------------------------------


class Site(NamedTuple):
    """A registration of a def or class by name: ``@reg`` (outermost), ``reg(f)`` or ``f = reg(f)``."""

    name: str
    top: Top | None  #: the module-level def or class; None for a name imported from another module
    form: str  #: "decorator", "call" or "rebinding"
    registrar: str  #: the registrar expression's source
    line: int  #: the decorator's line, or the statement's
    comment: str  #: a trailing comment, with its leading spaces
    not_hoistable: str | None = None  #: for a call or rebinding: why it may not become a decorator


def registration_sites(project: Project, p: Parsed) -> tuple[list[Site], list[str]]:
    """The registrations of ``p`` a form switch may change, and those it may not, with why."""
    sites, declined = [], []
    defs = {top.name: top for top in p.defs()}
    code = cst.Module([]).code_for_node
    for top in project.registered(p):
        for index, decorator in enumerate(top.node.decorators):  # type: ignore[attr-defined]
            if not project.registrar(decorator.decorator):
                continue
            where = p.pos[decorator]
            if index != 0:
                declined.append(f"{p.stem}.{top.name}: the registrar is not the outermost decorator")
            elif where.start.line != where.end.line:
                declined.append(f"{p.stem}.{top.name}: the decorator spans lines")
            else:
                registrar = code(decorator.decorator)
                sites.append(
                    Site(top.name, top, "decorator", registrar, where.start.line, _comment(p, where.start.line))
                )
    for index, top in enumerate(p.top):
        statement = top.node.body[0] if isinstance(top.node, cst.SimpleStatementLine) else None
        call, form, target = None, "call", None
        if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
            call = statement.value
        elif (
            isinstance(statement, cst.Assign) and isinstance(statement.value, cst.Call) and len(statement.targets) == 1
        ):
            call, form, target = statement.value, "rebinding", statement.targets[0].target
        if call is None or not project.registrar(call.func) or top.first != top.last:
            continue
        arg = call.args[0].value if len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star else None
        if not isinstance(arg, cst.Name):
            continue
        name, fn = arg.value, defs.get(arg.value)
        imported = p.import_statement(name)
        if fn is None and (imported is None or imported.first > top.first):
            continue
        if fn is not None and fn.first > top.first:
            continue
        if target is not None and not (isinstance(target, cst.Name) and target.value == name):
            declined.append(f"{p.stem}.{name}: the result is bound to another name")
            continue
        why = None
        if fn is None:
            why = "it is defined in another module"
        elif p.needed_while_running(name, p.top[p.top.index(fn) + 1 : index], p.reaches()):
            why = "code between the def and its registration needs the def while the module runs"
        elif any(not p.final_before(n, fn.first) for n in p.reads(call.func)):
            why = "the registrar is bound after the def"
        sites.append(Site(name, fn, form, code(call.func), top.first, _comment(p, top.first), why))
    return sites, declined


def _comment(p: Parsed, line: int) -> str:
    match = re.search(r"\s+#.*$", p.lines[line - 1].text.rstrip("\n"))
    return match.group(0) if match else ""


#: A registration written in each form, from the registrar's source and the name registered.
FORMS = {
    "decorator": "@{registrar}",
    "call": "{registrar}({name})",
    "rebinding": "{name} = {registrar}({name})",
    "list": "{registrar}([{name}])",
    "tuple": "{registrar}(({name},))",
}


def switch(program: Program, form: str) -> Outcome:
    """Every registration by name written in ``form`` (a key of :data:`FORMS`). A list or a
    tuple is given only to torch's ``allow_in_graph`` itself, which registers each element
    and returns a list: a call statement, so that the name stays bound to the def."""
    project = Project(program)
    changed: dict[str, list[Line]] = {}
    done: list[str] = []
    declined: list[str] = []
    for p in project.modules():
        sites, reasons = registration_sites(project, p)
        declined += reasons
        sites = [site for site in sites if site.form != form]
        if form in ("list", "tuple"):
            wrapped = [site for site in sites if not project.registrar.direct(cst.parse_expression(site.registrar))]
            declined += [f"{p.stem}.{site.name}: {site.registrar} is a wrapper, not allow_in_graph" for site in wrapped]
            sites = [site for site in sites if site not in wrapped]
        if form == "decorator":
            declined += [f"{p.stem}.{site.name}: {site.not_hoistable}" for site in sites if site.not_hoistable]
            sites = [site for site in sites if not site.not_hoistable]
        if not sites:
            continue
        drop = {site.line for site in sites}
        before: dict[int, list[Line]] = {}
        after: dict[int, list[Line]] = {}
        for site in sites:
            text = FORMS[form].format(registrar=site.registrar, name=site.name)
            new = Line(text + site.comment + "\n", p.lines[site.line - 1].origin)
            if form == "decorator":
                before.setdefault(site.top.first, []).append(new)  # type: ignore[union-attr]
            elif site.form == "decorator":
                after.setdefault(site.top.last, []).extend([*written(""), new])  # type: ignore[union-attr]
            else:
                before.setdefault(site.line, []).append(new)
            done.append(f"{p.stem}.{site.name}: {site.form} -> {form}")
        lines: list[Line] = []
        for n, line in enumerate(p.lines, 1):
            lines += before.get(n, [])
            if n not in drop:
                lines.append(line)
            lines += after.get(n, [])
        changed[p.path] = lines
    return outcome(program, changed, done, declined, "no def or class is registered by name in another form")


def decorator_form(program: Program) -> Outcome:
    """``reg(f)`` and ``f = reg(f)`` after a module-level def -> ``@reg`` on it (outermost), where
    nothing between the def and the registration uses the def and the registrar is bound above it."""
    return switch(program, "decorator")


def call_form(program: Program) -> Outcome:
    """``@reg`` (outermost) and ``f = reg(f)`` -> ``reg(f)`` right after the def (or in place, for a
    name imported from another module): torch's ``allow_in_graph`` returns its argument, so the
    name is bound to the same object either way. Bound methods, lists and a result bound to
    another name are left alone: there the forms differ."""
    return switch(program, "call")


def rebinding_form(program: Program) -> Outcome:
    """``@reg`` (outermost) and ``reg(f)`` -> ``f = reg(f)`` right after the def, or in place (an
    imported name is then rebound in the registering module, to the same object)."""
    return switch(program, "rebinding")


# -- 6. rename -------------------------------------------------------------------------


def _rename(program: Program, pick: Callable[[Project, Parsed], list[str]], nothing: str) -> Outcome:
    """Rename module-level names everywhere the program uses them: bindings, reads, ``global``
    statements, and imports of them in the other modules (``from .m import f`` -> ``f_v2``)."""
    project = Project(program)
    edits: dict[str, list[tuple[int, int, int, str]]] = {}
    done, declined = [], []
    for p in project.modules():
        for name in pick(project, p):
            if any(name in q.strings() for q in project.parsed.values()):
                declined.append(f"{p.stem}.{name}: the name is also written in a string")
                continue
            new = fresh(
                project.parsed.values(),
                name + ("_v2" if name.lower() != name.upper() and name != name.upper() else "_V2"),
            )
            edits.setdefault(p.path, []).extend(_binding_edits(p, name, new) + _export_edits(p, name, new))
            # an importer that keeps the name re-exports it: its importers import the new name too
            exporters, seen = [p.stem], {p.stem}
            while exporters:
                stem = exporters.pop()
                for q in project.parsed.values():
                    imported = [
                        local for local, (of, orig) in q.relative_imports().items() if of == stem and orig == name
                    ]
                    for local in imported:
                        edits.setdefault(q.path, []).extend(_import_edits(q, name, new, local == name))
                        if local == name:
                            edits[q.path] += _export_edits(q, name, new)
                            if q.stem not in seen:
                                seen.add(q.stem)
                                exporters.append(q.stem)
            done.append(f"{p.stem}.{name} -> {new}")
    changed = {path: splice(project.parsed[path].lines, sorted(set(found))) for path, found in edits.items()}
    return outcome(program, changed, done, declined, nothing)


def _binding_edits(p: Parsed, name: str, new: str) -> list[tuple[int, int, int, str]]:
    edits = [e for access in p.accesses.get(name, []) for e in rename_edits(p, access, name, new)]
    for binding in p.bindings.get(name, []):
        node = binding.name if isinstance(binding, (cst.FunctionDef, cst.ClassDef)) else binding
        if isinstance(node, cst.Name):
            edits += rename_edits(p, node, name, new)
    for g in walk(p.module):
        if isinstance(g, cst.Global):
            edits += [e for item in g.names if item.name.value == name for e in rename_edits(p, item.name, name, new)]
    return sorted(set(edits))


def _export_edits(p: Parsed, name: str, new: str) -> list[tuple[int, int, int, str]]:
    """``"f"`` -> ``"f_v2"`` in the module's ``__all__``."""
    return [e for string in p.exported().get(name, []) for e in rename_edits(p, string, name, new)]


def _import_edits(q: Parsed, name: str, new: str, unaliased: bool) -> list[tuple[int, int, int, str]]:
    """In a module that imports ``name``: the imported name, and the local name with its uses when unaliased."""
    edits = []
    for node in walk(q.module):
        if isinstance(node, cst.ImportAlias) and isinstance(node.name, cst.Name) and node.name.value == name:
            edits += rename_edits(q, node.name, name, new)
    # unaliased, the local name is respelt where it is read and where it is rebound (``f = reg(f)``)
    return edits + (_binding_edits(q, name, new) if unaliased else [])


def rename_def(program: Program) -> Outcome:
    """Rename every registered module-level def and class: ``f`` -> ``f_v2``."""
    return _rename(
        program, lambda project, p: [top.name for top in project.registered(p)], "no module-level def is registered"
    )


def rename_global(program: Program) -> Outcome:
    """Rename every module-level name (not a def, class or import) that a registered def reads."""

    def captured(project: Project, p: Parsed) -> list[str]:
        names = []
        for top in project.helpers(p, project.registered(p)):
            for name in p.reads(top.node):
                bound = p.bindings[name]
                if name not in names and not any(
                    isinstance(b, (cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom)) for b in bound
                ):
                    names.append(name)
        return names

    return _rename(program, captured, "the registered defs read no module-level name bound by an assignment")


def list_form(program: Program) -> Outcome:
    """Every registration by torch's ``allow_in_graph`` -> ``allow_in_graph([f])`` after the def, or in place."""
    return switch(program, "list")


def tuple_form(program: Program) -> Outcome:
    """Every registration by torch's ``allow_in_graph`` -> ``allow_in_graph((f,))`` after the def, or in place."""
    return switch(program, "tuple")
