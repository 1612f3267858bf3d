"""Process-wide numerics settings.

The kernels read these at call time. ``set_loss_scale`` is the supported way to change
the loss scale; :mod:`.runtime` and :mod:`.testing` switch the flags. Whatever they
change goes stale in a compiled kernel that read it while compiling (evidence D14, S§1b:
a captured Python float or flag is frozen under aot_eager and inductor).
"""

from __future__ import annotations

#: Use the fused kernel where the inputs allow it (switched off by runtime.disable_fast_path).
USE_FAST_PATH = True

#: Multiplier applied to the loss before backward; dynamic loss scaling updates it.
LOSS_SCALE = 1.0

#: Only the testing helpers turn this on.
DETERMINISTIC = False

#: Epsilon of the normalisation kernels.
NORM_EPS = 1e-6

#: Largest finite float16 value; activations are clamped to it.
FP16_MAX = 65504.0

#: Longest sequence the position tables cover.
MAX_POSITIONS = 8192

#: Compute attention probabilities in float32.
UPCAST_SOFTMAX = True


def set_loss_scale(value: float) -> None:
    """Use ``value`` as the loss scale from now on."""
    global LOSS_SCALE
    if value <= 0:
        raise ValueError(f"set_loss_scale: the scale must be positive, got {value}")
    LOSS_SCALE = value
