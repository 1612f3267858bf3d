"""A settings module as projects write them: a value kernels read, and a setter that rebinds it."""

LOSS_SCALE = 2.0


def set_loss_scale(value: float) -> None:
    global LOSS_SCALE
    LOSS_SCALE = value
