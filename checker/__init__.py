"""aigcheck's static checker for the ``torch.compiler.allow_in_graph`` contract.

It reads Python files, never imports or runs them, and needs no torch.
"""

import os
import sys

# Before anything else is imported: `python -m checker` puts the working directory first
# on the import path, so a checked tree's own json.py or dataclasses.py would shadow the
# standard library and run. sys.argv[0] is "-m" only while `python -m` locates its
# module; -P and -I add no such entry. The console script and library imports are
# left alone (their sys.path[0] is not the working directory's).
if (
    getattr(sys, "argv", [None])[:1] == ["-m"]
    and not (getattr(sys.flags, "safe_path", False) or sys.flags.isolated)
    and sys.path[:1] in ([os.getcwd()], [""])
):
    del sys.path[0]

__version__ = "0.1.0"
