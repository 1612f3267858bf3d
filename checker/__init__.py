"""aigcheck's static checker for the ``torch.compiler.allow_in_graph`` contract.

It reads Python files, never imports or runs them, and needs no torch.
"""

__version__ = "0.1.0"
