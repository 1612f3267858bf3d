"""Session-wide settings for the test suite."""

import os

# Inductor compiles in worker processes by default; one thread keeps the runtime-guard
# tests' real CPU compiles light on small CI machines (set before torch is imported).
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
