"""Rewrites that move definitions: to another module (1), below their use (2), behind a
re-export from ``pkg/__init__.py`` (4). Each moves a def only where the program's behaviour
stays exactly the same, and says why it leaves any other alone."""

from __future__ import annotations

import re
from graphlib import TopologicalSorter
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .program import (
    PACKAGE,
    Line,
    Outcome,
    Parsed,
    Program,
    Project,
    Top,
    dotted,
    fresh,
    future_and_imports,
    has_global,
    lines_of,
    outcome,
    reads_module_identity,
    rename_edits,
    splice,
    target_name,
    without,
    written,
)

# -- 1. move a definition to another module and import it back --------------------------


def move_def(program: Program) -> Outcome:
    """Move the registered module-level defs (and the module's helper functions they call, so that
    helper and caller stay together) into ``pkg/moved.py``; the original module imports each
    back where it was defined, so everything after it sees the same binding at the same time.

    The moved code reads the original module's names as the original did: a name bound only
    above the first moved def and never again is imported (``from .kernels import K``); any
    other is read through the module (``_src.K``), where a later rebinding is still seen.
    Imports are copied. Not moved: a def that declares ``global`` (its store would have to be
    respelt), one that reads the module's identity (``__name__``), one whose decorator or
    default reads a name rebound after the first moved def, and one whose helper cannot move.
    """
    project = Project(program)
    changed: dict[str, list[Line]] = {}
    done: list[str] = []
    declined: list[str] = []
    for p in project.modules():
        tops, reasons = _movable(project, p)
        declined += reasons
        if not tops:
            continue
        target = target_name(project, p, f"{PACKAGE}/moved")
        src = fresh(project.parsed.values(), "_src")
        start = min(top.first for top in tops)
        moved = {top.name for top in tops}
        imported: set[str] = set()
        body: list[Line] = []
        through_module = False
        for top in tops:
            edits = []
            for name, accesses in p.reads(top.node).items():
                if name in moved and len(p.bindings[name]) == 1:
                    continue
                if p.import_statement(name):
                    imported.add(name)
                elif p.final_before(name, start):
                    imported.add(name)
                else:
                    through_module = True
                    edits += [e for a in accesses for e in rename_edits(p, a, name, f"{src}.{name}")]
            body += written("", "") + splice(lines_of(p, top), [(line - top.first + 1, *rest) for line, *rest in edits])
        from_imports = sorted(n for n in imported if not p.import_statement(n))
        head = future_and_imports(p, [n for n in imported if p.import_statement(n)])
        if through_module:
            head += written(f"from . import {p.stem} as {src}")
        if from_imports:
            head += written(f"from .{p.stem} import {', '.join(from_imports)}")
        changed[target] = head + body
        module = Path(target).stem
        changed[p.path] = without(p, tops, {top.first: written(f"from .{module} import {top.name}") for top in tops})
        done += [f"{p.stem}.{top.name} -> {target}" for top in tops]
    return outcome(program, changed, done, declined, "no module-level def or class is registered")


def _movable(project: Project, p: Parsed) -> tuple[list[Top], list[str]]:
    tops = project.helpers(p, project.registered(p))
    reasons: list[str] = []
    while True:
        start = min((top.first for top in tops), default=0)
        names = {top.name for top in tops}
        keep = []
        for top in tops:
            why = _why_not_moved(p, top, start, names)
            if why:
                reasons.append(f"{p.stem}.{top.name}: {why}")
            else:
                keep.append(top)
        # A def whose helper stays behind stays too: the helper would be in another module.
        kept = {top.name for top in keep}
        calls_stayed = [top for top in keep if any(n in names - kept for n in p.reads(top.node))]
        for top in calls_stayed:
            reasons.append(f"{p.stem}.{top.name}: calls a helper that cannot move")
        keep = [top for top in keep if top not in calls_stayed]
        if len(keep) == len(tops):
            return keep, reasons
        tops = keep


def _why_not_moved(p: Parsed, top: Top, start: int, moved: set[str]) -> str | None:
    if has_global(top.node):
        return f"declares global {', '.join(has_global(top.node))}"
    if reads_module_identity(top.node):
        return "reads the module's identity"
    if any(p.line(b) < top.first or not p.module_level(b) for b in p.bindings[top.name]):
        return "its name is bound elsewhere too, above it or by a function"
    for name, accesses in p.reads(top.node).items():
        if name in moved and len(p.bindings[name]) == 1 or p.import_statement(name) or p.final_before(name, start):
            continue
        if any(not p.run_time(top.node, a) for a in accesses):
            return f"its decorator or default reads {name}, which is rebound after the first moved def"
        if any(isinstance(a, cst.SimpleString) for a in accesses):
            return f"reads {name} in a string annotation"
    return None


# -- 2. define after use ---------------------------------------------------------------


def define_later(program: Program) -> Outcome:
    """Move each registered module-level def or class to the end of its module (before a
    trailing ``if __name__ == "__main__":`` block), below the code that uses it at run time.

    Moved only where no statement it now follows needs it while the module runs: such a
    statement may define functions and classes that read it in their bodies, but no
    decorator, default, class body or module-level statement may reach it, nor any
    function that reaches it. Its own decorators and defaults must read names that are
    not rebound below it, and a decorator factory (``@kernel("name")``) is not moved,
    since it runs project code at definition time.
    """
    project = Project(program)
    changed: dict[str, list[Line]] = {}
    done: list[str] = []
    declined: list[str] = []
    for p in project.modules():
        end = len(p.top)
        if end and _is_main_block(p.top[-1].node):
            end -= 1
        reaches = p.reaches()
        chosen: list[Top] = []
        for top in project.registered(p):
            index = p.top.index(top)
            why = _why_not_later(project, p, top, [t for t in p.top[index + 1 : end] if t not in chosen], reaches)
            if why:
                declined.append(f"{p.stem}.{top.name}: {why}")
            elif index < end - 1:
                chosen.append(top)
        if not chosen:
            continue
        moved = [line for top in chosen for line in written("", "") + lines_of(p, top)]
        if end < len(p.top):
            moved += written("", "")
        lines = without(p, chosen, {p.top[end].first: moved} if end < len(p.top) else None)
        changed[p.path] = lines if end < len(p.top) else lines + moved
        done += [f"{p.stem}.{top.name} -> end of module" for top in chosen]
    return outcome(program, changed, done, declined, "every registered def is its module's last statement already")


def _is_main_block(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.If) and "__main__" in cst.Module([]).code_for_node(node.test)


def _why_not_later(project: Project, p: Parsed, top: Top, after: list[Top], reaches: dict[str, set[str]]) -> str | None:
    name = top.name
    if any(isinstance(d.decorator, cst.Call) for d in top.node.decorators):  # type: ignore[attr-defined]
        return "its decorator factory runs project code at definition time"
    needing = p.needed_while_running(name, after, reaches)
    if needing is not None:
        return f"line {needing.first} needs it while the module runs"
    for read, accesses in p.reads(top.node).items():
        if any(not p.run_time(top.node, a) for a in accesses) and not p.final_before(read, top.first):
            return f"its decorator or default reads {read}, which is rebound below it"
    return None


# -- 4. re-export through __init__.py --------------------------------------------------

#: Right-hand sides whose value draws random numbers or builds a module with random weights:
#: evaluating one at another time would change what it and the rest of the program draw.
_DRAWS = re.compile(r"\brand\w*\(|\bnn\.[A-Z]\w*\(|\bParameter\(")


def reexport(program: Program) -> Outcome:
    """Define the registered module-level defs (with their helper functions and the constants
    they read) in ``pkg/_impl.py``, re-export them from ``pkg/__init__.py``, and import them
    in the original module from the package: ``from . import f``.

    ``pkg/__init__.py`` runs before any module of the package, so ``_impl`` must need nothing
    from the original module: what moves with a def is only what can run first, unchanged —
    imports, and names bound once, never rebound, by an assignment that reads only imports
    and other such names, calls no project code, and draws no random numbers. A def that reads
    anything else stays.
    """
    project = Project(program)
    changed: dict[str, list[Line]] = {}
    done: list[str] = []
    declined: list[str] = []
    impls: dict[str, tuple[str, list[str], set[str]]] = {}
    for p in project.modules():
        tops, constants, reasons = _self_contained(project, p)
        declined += reasons
        if not tops:
            continue
        target = target_name(project, p, f"{PACKAGE}/_impl")
        moved = sorted({top.first: top for top in [*tops, *constants]}.values(), key=lambda t: t.first)
        names = [_bound_name(top) for top in moved]
        needed = {n for top in moved for n in p.reads(top.node) if p.import_statement(n)}
        lines = future_and_imports(p, needed)
        for top in moved:
            lines += written("", "") + lines_of(p, top)
        changed[target] = lines
        changed[p.path] = without(p, moved, {moved[0].first: written(f"from . import {', '.join(names)}")})
        uses = {stem for n in needed for stem, _ in [p.relative_imports().get(n, ("", ""))] if stem}
        impls[Path(target).stem] = (p.stem, names, uses)
        done += [f"{p.stem}.{top.name} -> {target}" for top in tops]
    if impls:
        # an _impl that imports module X of the package runs after the _impl that X imports back from
        order = TopologicalSorter(
            {
                impl: {other for other, (stem, _, _) in impls.items() if stem in uses}
                for impl, (_, _, uses) in impls.items()
            }
        )
        init = list(program.modules.get(f"{PACKAGE}/__init__.py", ()))
        at = _after_preamble(init)
        reexports = [
            line
            for impl in order.static_order()
            for line in written(f"from .{impl} import {', '.join(impls[impl][1])}")
        ]
        # before the package's own imports: a module they import may import the def from the package
        changed[f"{PACKAGE}/__init__.py"] = init[:at] + reexports + init[at:]
    return outcome(program, changed, done, declined, "no module-level def or class is registered")


def _after_preamble(lines: list[Line]) -> int:
    """The index of the first line after a module's docstring and ``from __future__`` imports."""
    if not lines:
        return 0
    module = cst.parse_module("".join(line.text for line in lines))
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    at = 0
    for statement in module.body:
        body = statement.body if isinstance(statement, cst.SimpleStatementLine) else []
        docstring = (
            at == 0 and len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.SimpleString)
        )
        future = bool(body) and isinstance(body[0], cst.ImportFrom) and dotted(body[0].module) == "__future__"
        if not (docstring or future):
            break
        at = positions[statement].end.line
    return at


def _bound_name(top: Top) -> str:
    if top.name:
        return top.name
    statement = top.node.body[0]  # type: ignore[attr-defined]
    target = statement.target if isinstance(statement, cst.AnnAssign) else statement.targets[0].target
    return target.value


def _constant(p: Parsed, name: str, seen: set[str]) -> tuple[list[Top], str | None]:
    """The statements that bind ``name`` and those of what it reads, if they may run first; else why not.

    They may when ``name`` is bound once, by module-level code: a plain assignment that draws
    no random numbers, or a def or class, reading only library imports and other such names.
    """
    found = p.bindings.get(name, [])
    top = p.owner(p.line(found[0])) if len(found) == 1 and p.module_level(found[0]) else None
    if top is None:
        return [], f"reads {name}, which is not bound once by module-level code"
    if any(p.owner(p.line(access)) not in (top, *p.defs()) for access in p.accesses.get(name, ())):
        # ``_BLOCKS.append(128)`` at the top level: moved away, the object would be shared with code
        # that runs whenever the original module is imported, no longer before anything can call it.
        return [], f"reads {name}, which the module's top-level code uses too"
    if isinstance(top.node, cst.SimpleStatementLine) and len(top.node.body) == 1:
        statement = top.node.body[0]
        single = (
            isinstance(statement, cst.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0].target, cst.Name)
        ) or (
            isinstance(statement, cst.AnnAssign)
            and statement.value is not None
            and isinstance(statement.target, cst.Name)
        )
        if not single:
            return [], f"reads {name}, which is not bound by a plain assignment"
        if _DRAWS.search(cst.Module([]).code_for_node(statement)):
            return [], f"reads {name}, whose value draws random numbers when the module runs"
    elif not isinstance(top.node, (cst.FunctionDef, cst.ClassDef)):
        return [], f"reads {name}, which is bound inside a {type(top.node).__name__} statement"
    elif has_global(top.node) or reads_module_identity(top.node):
        return [], f"reads {name}, which declares global or reads the module's identity"
    tops = [top]
    for read in p.reads(top.node):
        if read in seen or p.import_statement(read) and read not in p.relative_imports():
            continue
        more, why = _constant(p, read, seen | {name})
        if why:
            return [], f"reads {name}, which {why}"
        tops += [t for t in more if t not in tops]
    return tops, None


def _self_contained(project: Project, p: Parsed) -> tuple[list[Top], list[Top], list[str]]:
    tops = project.helpers(p, project.registered(p))
    reasons: list[str] = []
    while True:
        names = {top.name for top in tops}
        keep, constants = [], []
        for top in tops:
            why, needs = None, []
            if has_global(top.node):
                why = f"declares global {', '.join(has_global(top.node))}"
            elif reads_module_identity(top.node):
                why = "reads the module's identity"
            for name in p.reads(top.node):
                if why or name in names or p.import_statement(name):
                    continue
                more, why = _constant(p, name, {top.name})
                needs += [t for t in more if t not in needs]
            if why:
                reasons.append(f"{p.stem}.{top.name}: {why}")
            else:
                keep.append(top)
                constants += [c for c in needs if c not in constants]
        if len(keep) == len(tops):
            return keep, [c for c in constants if c not in keep], reasons
        tops = keep
