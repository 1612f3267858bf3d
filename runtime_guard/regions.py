"""Whether ``allow_in_graph`` was called from a compiled region (AIG404), asked eagerly.

The guard's ``allow_in_graph`` runs with Dynamo off (``torch.compiler.disable``): called in
compiled code, Dynamo graph-breaks once at the call, as it does at torch's own
``allow_in_graph``, and runs it eagerly without compiling any frame of the guard (each
would be a graph break that plain torch does not have: evidence/dynamo/FINDINGS.md D17).
So ``torch.compiler.is_dynamo_compiling()`` is False inside, and the question is answered
by the caller instead: after a graph break, the rest of a compiled frame runs as the
bytecode Dynamo generated for it, and Dynamo keeps every code object it generated.
"""

from __future__ import annotations

import types

from torch._dynamo import convert_frame


def compiled(frame: types.FrameType | None) -> bool:
    """Whether ``frame`` runs code Dynamo generated: a compiled frame past a graph break."""
    generated = getattr(convert_frame, "output_codes", None)  # absent in another torch: not known
    try:
        return frame is not None and generated is not None and frame.f_code in generated
    except TypeError:
        return False
