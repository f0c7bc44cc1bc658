"""Errors of training loops."""


class NanLossDuringTrainingError(RuntimeError):
    """The loss became NaN (what NanTensorHook raises with fail_on_nan_loss)."""

    def __str__(self):
        return "NaN loss during training."
