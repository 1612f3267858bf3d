"""Registrations: where ``allow_in_graph`` is applied, what it registers, and whether torch honours it."""
