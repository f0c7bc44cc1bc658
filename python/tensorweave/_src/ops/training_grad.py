"""The optimizer update ops and learning-rate schedule ops carry no gradient."""

from tensorweave._src.ops import gradients_impl

for _op in (
    "ApplyGradientDescent",
    "FusedMatMulApplyGradientDescent",
    "ApplyMomentum",
    "ApplyAdagrad",
    "ApplyRMSProp",
    "ApplyCenteredRMSProp",
    "ApplyAdam",
    "SparseApplyMomentum",
    "SparseApplyAdagrad",
    "SparseApplyRMSProp",
    "SparseApplyCenteredRMSProp",
    "ApplyAdadelta",
    "SparseApplyAdadelta",
    "ApplyFtrl",
    "SparseApplyFtrl",
    "ApplyFtrlV2",
    "SparseApplyFtrlV2",
    "ApplyProximalGradientDescent",
    "SparseApplyProximalGradientDescent",
    "ApplyProximalAdagrad",
    "SparseApplyProximalAdagrad",
    "ApplyAdagradDA",
    "SparseApplyAdagradDA",
    "ExponentialDecay",
    "PiecewiseConstant",
):
    gradients_impl.NotDifferentiable(_op)
