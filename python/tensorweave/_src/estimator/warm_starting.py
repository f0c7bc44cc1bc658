"""Warm-starting an Estimator's variables from another model's checkpoint (TensorFlow 1's
`tf.estimator.WarmStartSettings`)."""

import collections
import re


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
        cls, ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None, var_name_to_prev_var_name=None
    ):
        if not ckpt_to_initialize_from:
            raise ValueError("Need to specify a checkpoint or directory to warm-start from.")
        if var_name_to_vocab_info:
            raise ValueError("var_name_to_vocab_info (vocabulary remapping) is not supported")
        return super().__new__(
            cls, ckpt_to_initialize_from, vars_to_warm_start, var_name_to_vocab_info or {}, var_name_to_prev_var_name or {}
        )


def _variables(vars_to_warm_start):
    from tensorweave._src.framework import ops

    if vars_to_warm_start is None:
        return []
    if isinstance(vars_to_warm_start, str):
        pattern = re.compile(vars_to_warm_start)
        found = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        return [v for v in found if pattern.match(v.op.name)]
    if isinstance(vars_to_warm_start, (list, tuple)):
        names = [v for v in vars_to_warm_start if isinstance(v, str)]
        chosen = [v for v in vars_to_warm_start if not isinstance(v, str)]
        for name in names:
            pattern = re.compile(name)
            chosen.extend(v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if pattern.match(v.op.name))
        return chosen
    raise ValueError(f"vars_to_warm_start must be a str, a list or None, given: {vars_to_warm_start}")


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
    """Makes the chosen variables of the default graph start from their values in the checkpoint (through
    `tw.train.init_from_checkpoint`); a variable missing from it is a ValueError."""
    from tensorweave._src.training import checkpoint_utils

    if var_name_to_vocab_info:
        raise ValueError("var_name_to_vocab_info (vocabulary remapping) is not supported")
    renames = dict(var_name_to_prev_var_name or {})
    variables = _variables(vars_to_warm_start)
    assignment = {}
    for v in variables:
        name = v.op.name
        assignment[renames.pop(name, name)] = v
    if renames:
        raise ValueError(f"You provided the following variables in var_name_to_prev_var_name that were not used: "
                         f"{sorted(renames)}. Perhaps you misspelled them? Here is the list of viable variable names: "
                         f"{sorted(v.op.name for v in variables)}")
    if assignment:
        checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, assignment)
