"""Kinds: what a name or an expression is (a tensor, a module, a class, a constant), inferred from the module and its imports."""
