"""Scopes: the one pass over a libcst module that builds a ``ScopeTree``, and the syntax questions it asks."""
