"""Checkpoint ops carry no gradient."""

from tensorweave._src.ops import gradients_impl

for _op in ("SaveV2", "RestoreV2", "ShardedFilename", "ShardedFilespec", "MergeV2Checkpoints"):
    gradients_impl.NotDifferentiable(_op)
