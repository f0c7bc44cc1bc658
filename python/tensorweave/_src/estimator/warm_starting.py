"""Warm-starting an Estimator's variables from another model's checkpoint (TensorFlow 1's
`tf.estimator.WarmStartSettings`)."""

import collections


class WarmStartSettings(
    collections.namedtuple(
        "WarmStartSettings",
        ["ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info", "var_name_to_prev_var_name"],
    )
):
    """Which variables to initialize from `ckpt_to_initialize_from` (a checkpoint or its directory):
    `vars_to_warm_start` is a regular expression over the trainable variables' names (".*": all of them), a
    list of names or variables, or None (none); `var_name_to_prev_var_name` maps a variable to its name in the
    checkpoint where they differ."""

    def __new__(
        cls,
        ckpt_to_initialize_from,
        vars_to_warm_start=".*",
        var_name_to_vocab_info=None,
        var_name_to_prev_var_name=None,
    ):
        if not ckpt_to_initialize_from:
            raise ValueError("Need to specify a checkpoint or directory to warm-start from.")
        if var_name_to_vocab_info:
            raise ValueError("var_name_to_vocab_info (vocabulary remapping) is not supported")
        return super().__new__(
            cls,
            ckpt_to_initialize_from,
            vars_to_warm_start,
            var_name_to_vocab_info or {},
            var_name_to_prev_var_name or {},
        )
