"""Where one parsed file sets an environment variable: ``os.environ["K"] = v``,
``os.environ.update(K=v)``, ``os.environ.setdefault("K", v)``, ``del os.environ["K"]``,
``os.putenv("K", v)``, ``monkeypatch.setenv("K", v)``; ``environ`` imported from ``os`` too.

A registered function that reads the variable at call time (``os.environ.get("K")``)
reads it once, while compiling (evidence/dynamo/FINDINGS.md S§1b), so a write the
project makes is evidence that what it read can differ later. A write through a key
that is not a literal (``os.environ[name] = v``) names no variable, and is not counted.
"""

from __future__ import annotations

import ast

#: Methods of ``os.environ`` that set or remove the key given first.
KEYED_METHODS = frozenset({"setdefault", "pop", "__setitem__", "__delitem__"})
#: Calls that set or remove the key given first, whatever they are called on (pytest's
#: ``monkeypatch``), and the functions of ``os`` that do.
SETTERS = frozenset({"setenv", "delenv"})
OS_SETTERS = frozenset({"putenv", "unsetenv"})


def sets_variable(tree: ast.Module, key: str, *, own: bool) -> int | None:
    """The line of the first write of the variable ``key`` in ``tree``; ``own``: the
    file is the checked module, whose straight-line top level runs before compiling."""
    names = _Names()
    for first in tree.body:
        if isinstance(first, (ast.Import, ast.ImportFrom)):
            names.imports(first)
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        top_level = own and not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if top_level and not isinstance(statement, (ast.For, ast.While, ast.If)):
            continue
        for node in ast.walk(statement):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.imports(node)
            elif _writes(node, key, names):
                return getattr(node, "lineno", 0)
    return None


class _Names:
    def __init__(self) -> None:
        self.os: set[str] = set()
        self.environ: set[str] = set()
        self.setters: set[str] = set()

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            self.os |= {alias.asname or alias.name for alias in node.names if alias.name == "os"}
        elif node.module == "os" and not node.level:
            for alias in node.names:
                if alias.name == "environ":
                    self.environ.add(alias.asname or alias.name)
                elif alias.name in OS_SETTERS:
                    self.setters.add(alias.asname or alias.name)

    def is_environ(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in self.environ
        return (
            isinstance(expr, ast.Attribute)
            and expr.attr == "environ"
            and isinstance(expr.value, ast.Name)
            and expr.value.id in self.os
        )

    def is_os_setter(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            return func.id in self.setters
        return (
            isinstance(func, ast.Attribute)
            and func.attr in OS_SETTERS
            and isinstance(func.value, ast.Name)
            and func.value.id in self.os
        )


def _writes(node: ast.AST, key: str, names: _Names) -> bool:
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        return any(
            isinstance(target, ast.Subscript) and names.is_environ(target.value) and _literal(target.slice) == key
            for target in targets
        )
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    first = _literal(node.args[0]) if node.args else None
    if names.is_os_setter(func):
        return first == key
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in SETTERS:
        return first == key
    if not names.is_environ(func.value):
        return False
    if func.attr in KEYED_METHODS:
        return first == key
    if func.attr == "clear":
        return True
    if func.attr == "update":
        keys = {keyword.arg for keyword in node.keywords}
        for argument in node.args:
            if isinstance(argument, ast.Dict):
                keys |= {_literal(k) for k in argument.keys if k is not None}
        return key in keys
    return False


def _literal(expr: ast.expr) -> str | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None
