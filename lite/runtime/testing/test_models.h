// Small reference models built with ModelBuilder, with deterministic
// pseudo-random weights: used by tests, the benchmark and the fuzzer corpus.
#ifndef TENSORWEAVE_LITE_RUNTIME_TESTING_TEST_MODELS_H_
#define TENSORWEAVE_LITE_RUNTIME_TESTING_TEST_MODELS_H_

#include <cstdint>
#include <vector>

#include "lite/runtime/testing/model_builder.h"

namespace twl {
namespace testing {

// Uniform values in [-scale, scale] from a fixed seed.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float scale = 1.f);

// MLP: input [batch, sizes[0]] -> FullyConnected+RELU for each hidden
// layer -> FullyConnected -> SOFTMAX. Input "input", output "probs",
// signature "serving_default" with names "x" and "probs". The batch dim's
// shape_signature is -1.
AlignedBytes BuildMlp(const std::vector<int>& sizes, int batch, uint32_t seed);

// LeNet-5: [batch, 28, 28, 1] -> conv5x5x6 VALID + relu -> maxpool 2 ->
// conv5x5x16 VALID + relu -> maxpool 2 -> reshape [batch, 256] -> fc120
// relu -> fc84 relu -> fc10.
AlignedBytes BuildLeNet(int batch, uint32_t seed);

// One input [1,6,6,2] through Conv2D, DepthwiseConv2D, AveragePool2D,
// Transpose, Pad, StridedSlice, Mean, Reshape, Concatenation, Gather, Exp,
// Add, ArgMax, BatchMatMul and Cast; outputs "argmax" and "cast".
AlignedBytes BuildManyOpsModel();

// One input [4, 2, 3] (time-major) through a bidirectional LSTM with
// sequence lengths, initial states and peepholes, a Reshape of its Y to
// [2, 4, 6], a reverse batch-major GRU with linear_before_reset and a
// time-major RNN over it; outputs the GRU's Y and Y_h, the LSTM's Y_c and
// the RNN's Y.
AlignedBytes BuildRecurrentModel();

// One input [2, 3, 4] through the index ops: Split, Tile, BroadcastTo,
// DepthToSpace and SpaceToDepth, Trilu, CumSum, CumProd, GatherElements,
// ScatterElements (add), GatherND, ScatterND, TopK, OneHot and
// ReverseSequence, with constant indices; outputs "space_to_depth",
// "cumprod", "gather_nd", "one_hot" and "reverse".
AlignedBytes BuildIndexOpsModel();

// A detector's tail on dynamic tensors: boxes [1, 8, 4] and scores
// [1, 2, 8] through NON_MAX_SUPPRESSION (3 per class, IoU 0.5, no score
// threshold), the selected box indices (column 2) gathering the boxes, and
// NON_ZERO of the scores; outputs "picked" and "nonzero".
AlignedBytes BuildDetectorTailModel();

}  // namespace testing
}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_TESTING_TEST_MODELS_H_
