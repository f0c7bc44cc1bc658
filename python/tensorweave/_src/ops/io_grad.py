"""Checkpoint ops carry no gradient."""

from tensorweave._src.ops import gradients_impl

gradients_impl.NotDifferentiable("SaveV2")
gradients_impl.NotDifferentiable("RestoreV2")
