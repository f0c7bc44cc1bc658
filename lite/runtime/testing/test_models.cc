#include "lite/runtime/testing/test_models.h"

#include <cmath>
#include <random>
#include <string>

namespace twl {
namespace testing {

std::vector<float> RandomFloats(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

namespace {

int AddDense(ModelBuilder& b, int input, int in, int out, int batch,
             ActivationFunctionType act, uint32_t seed,
             const std::string& name) {
  float scale = 1.f / std::sqrt(static_cast<float>(in));
  int w = b.AddConstant<float>({out, in}, RandomFloats(out * in, seed, scale),
                               name + "/weights");
  int bias = b.AddConstant<float>({out}, RandomFloats(out, seed + 1, 0.1f),
                                  name + "/bias");
  int y = b.AddTensor(DataType::kFloat32, {batch, out}, name, {-1, out});
  b.AddOperator(BuiltinOperator::FULLY_CONNECTED, {input, w, bias}, {y},
                b.FullyConnected(act));
  return y;
}

}  // namespace

AlignedBytes BuildMlp(const std::vector<int>& sizes, int batch, uint32_t seed) {
  ModelBuilder b;
  int x = b.AddTensor(DataType::kFloat32, {batch, sizes[0]}, "input",
                      {-1, sizes[0]});
  int h = x;
  for (size_t i = 1; i < sizes.size(); ++i) {
    bool last = i + 1 == sizes.size();
    h = AddDense(
        b, h, sizes[i - 1], sizes[i], batch,
        last ? ActivationFunctionType::NONE : ActivationFunctionType::RELU,
        seed + 10 * i, "dense" + std::to_string(i));
  }
  int probs = b.AddTensor(DataType::kFloat32, {batch, sizes.back()}, "probs",
                          {-1, sizes.back()});
  b.AddOperator(BuiltinOperator::SOFTMAX, {h}, {probs}, b.Softmax(1.f));
  b.SetInputs({x});
  b.SetOutputs({probs});
  b.AddSignature("serving_default", {{"x", x}}, {{"probs", probs}});
  b.AddMetadata("producer", "tensorweave lite test_models");
  return b.Finish();
}

AlignedBytes BuildLeNet(int batch, uint32_t seed) {
  ModelBuilder b;
  auto f32 = DataType::kFloat32;
  int x = b.AddTensor(f32, {batch, 28, 28, 1}, "image", {-1, 28, 28, 1});
  auto conv = [&](int input, int cin, int cout, const char* name) {
    float scale = 1.f / std::sqrt(25.f * cin);
    int w = b.AddConstant<float>({cout, 5, 5, cin},
                                 RandomFloats(cout * 25 * cin, seed++, scale),
                                 std::string(name) + "/filter");
    int bias = b.AddConstant<float>({cout}, RandomFloats(cout, seed++, 0.1f),
                                    std::string(name) + "/bias");
    int y = b.AddTensor(f32, {}, name);
    b.AddOperator(BuiltinOperator::CONV_2D, {input, w, bias}, {y},
                  b.Conv2D(Padding::VALID, 1, 1, ActivationFunctionType::RELU));
    int p = b.AddTensor(f32, {}, std::string(name) + "/pool");
    b.AddOperator(BuiltinOperator::MAX_POOL_2D, {y}, {p},
                  b.Pool2D(Padding::VALID, 2, 2, 2, 2));
    return p;
  };
  int p1 = conv(x, 1, 6, "conv1");
  int p2 = conv(p1, 6, 16, "conv2");
  int shape = b.AddConstant<int32_t>({2}, {-1, 256}, "flatten/shape");
  int flat = b.AddTensor(f32, {}, "flatten");
  b.AddOperator(BuiltinOperator::RESHAPE, {p2, shape}, {flat});
  int h = AddDense(b, flat, 256, 120, batch, ActivationFunctionType::RELU,
                   seed + 100, "fc1");
  h = AddDense(b, h, 120, 84, batch, ActivationFunctionType::RELU, seed + 200,
               "fc2");
  h = AddDense(b, h, 84, 10, batch, ActivationFunctionType::NONE, seed + 300,
               "logits");
  b.SetInputs({x});
  b.SetOutputs({h});
  b.AddSignature("serving_default", {{"image", x}}, {{"logits", h}});
  return b.Finish();
}

// A model touching many ops, with small constant shape operands.
AlignedBytes BuildManyOpsModel() {
  ModelBuilder b;
  auto f = DataType::kFloat32;
  int x = b.AddTensor(f, {1, 6, 6, 2}, "x");
  int w = b.AddConstant<float>({3, 3, 3, 2}, RandomFloats(54, 1));
  int c = b.AddTensor(f, {}, "conv");
  b.AddOperator(BuiltinOperator::CONV_2D, {x, w, -1}, {c},
                b.Conv2D(Padding::SAME, 1, 1, ActivationFunctionType::RELU));
  int dw = b.AddConstant<float>({1, 3, 3, 3}, RandomFloats(27, 2));
  int d = b.AddTensor(f, {}, "dw");
  b.AddOperator(BuiltinOperator::DEPTHWISE_CONV_2D, {c, dw}, {d},
                b.DepthwiseConv2D(Padding::VALID, 1, 1, 1));
  int p = b.AddTensor(f, {}, "pool");
  b.AddOperator(BuiltinOperator::AVERAGE_POOL_2D, {d}, {p},
                b.Pool2D(Padding::SAME, 2, 2, 2, 2));
  int perm = b.AddConstant<int32_t>({4}, {0, 3, 1, 2});
  int t = b.AddTensor(f, {}, "transpose");
  b.AddOperator(BuiltinOperator::TRANSPOSE, {p, perm}, {t});
  int pads = b.AddConstant<int32_t>({4, 2}, {0, 0, 0, 0, 1, 1, 0, 1});
  int padded = b.AddTensor(f, {}, "pad");
  b.AddOperator(BuiltinOperator::PAD, {t, pads}, {padded});
  int begin = b.AddConstant<int32_t>({4}, {0, 0, 1, 0});
  int end = b.AddConstant<int32_t>({4}, {0, 2, 4, 3});
  int strides = b.AddConstant<int32_t>({4}, {1, 1, 1, 1});
  int ss = b.AddTensor(f, {}, "strided");
  b.AddOperator(BuiltinOperator::STRIDED_SLICE, {padded, begin, end, strides},
                {ss}, b.StridedSlice(1, 1, 0, 0, 0));
  int axes = b.AddConstant<int32_t>({1}, {1});
  int mean = b.AddTensor(f, {}, "mean");
  b.AddOperator(BuiltinOperator::MEAN, {ss, axes}, {mean}, b.Reducer(false));
  int shape = b.AddConstant<int32_t>({2}, {1, -1});
  int flat = b.AddTensor(f, {}, "flat");
  b.AddOperator(BuiltinOperator::RESHAPE, {mean, shape}, {flat});
  int cat = b.AddTensor(f, {}, "concat");
  b.AddOperator(BuiltinOperator::CONCATENATION, {flat, flat}, {cat},
                b.Concatenation(1));
  int idx = b.AddConstant<int32_t>({3}, {0, 2, 1});
  int g = b.AddTensor(f, {}, "gather");
  b.AddOperator(BuiltinOperator::GATHER, {cat, idx}, {g}, b.Gather(1));
  int e = b.AddTensor(f, {}, "exp");
  b.AddOperator(BuiltinOperator::EXP, {g}, {e});
  int sum = b.AddTensor(f, {}, "add");
  b.AddOperator(BuiltinOperator::ADD, {e, g}, {sum},
                b.Arithmetic(ActivationFunctionType::RELU6));
  int axis = b.AddConstant<int32_t>({}, {1});
  int am = b.AddTensor(DataType::kInt64, {}, "argmax");
  b.AddOperator(BuiltinOperator::ARG_MAX, {sum, axis}, {am},
                b.ArgMax(DataType::kInt64));
  int mm = b.AddTensor(f, {}, "matmul");
  b.AddOperator(BuiltinOperator::BATCH_MATMUL, {sum, sum}, {mm},
                b.BatchMatMul(false, true));
  int cast = b.AddTensor(DataType::kInt32, {}, "cast");
  b.AddOperator(BuiltinOperator::CAST, {mm}, {cast});
  b.SetInputs({x});
  b.SetOutputs({am, cast});
  return b.Finish();
}

AlignedBytes BuildRecurrentModel() {
  ModelBuilder b;
  auto f = DataType::kFloat32;
  const int H = 3;
  int x = b.AddTensor(f, {4, 2, 3}, "x");
  int w =
      b.AddConstant<float>({2, 4 * H, 3}, RandomFloats(2 * 4 * H * 3, 1, 0.5f));
  int r =
      b.AddConstant<float>({2, 4 * H, H}, RandomFloats(2 * 4 * H * H, 2, 0.5f));
  int bias = b.AddConstant<float>({2, 8 * H}, RandomFloats(2 * 8 * H, 3, 0.5f));
  int lens = b.AddConstant<int32_t>({2}, {4, 3});
  int h0 = b.AddConstant<float>({2, 2, H}, RandomFloats(2 * 2 * H, 4, 0.5f));
  int p = b.AddConstant<float>({2, 3 * H}, RandomFloats(2 * 3 * H, 5, 0.5f));
  int y = b.AddTensor(f, {}, "lstm_y");
  int yh = b.AddTensor(f, {}, "lstm_y_h");
  int yc = b.AddTensor(f, {}, "lstm_y_c");
  b.AddOperator(BuiltinOperator::LSTM, {x, w, r, bias, lens, h0, h0, p},
                {y, yh, yc},
                b.Lstm(H, schema::RNNDirection::BIDIRECTIONAL, false, 2.f));
  int shape = b.AddConstant<int32_t>({3}, {2, 4, 2 * H});
  int seq = b.AddTensor(f, {}, "batch_major");
  b.AddOperator(BuiltinOperator::RESHAPE, {y, shape}, {seq});
  int gw =
      b.AddConstant<float>({1, 3 * H, 2 * H}, RandomFloats(9 * 2 * H, 6, 0.5f));
  int gr = b.AddConstant<float>({1, 3 * H, H}, RandomFloats(9 * H, 7, 0.5f));
  int gy = b.AddTensor(f, {}, "gru_y");
  int gyh = b.AddTensor(f, {}, "gru_y_h");
  b.AddOperator(BuiltinOperator::GRU, {seq, gw, gr}, {gy, gyh},
                b.Gru(H, schema::RNNDirection::REVERSE, true, 0.f, true));
  int rw = b.AddConstant<float>({1, H, 2 * H}, RandomFloats(6 * H, 8, 0.5f));
  int rr = b.AddConstant<float>({1, H, H}, RandomFloats(H * H, 9, 0.5f));
  int ry = b.AddTensor(f, {}, "rnn_y");
  b.AddOperator(BuiltinOperator::RNN, {seq, rw, rr}, {ry},
                b.Rnn(H, schema::RNNDirection::FORWARD, false, 1.f));
  b.SetInputs({x});
  b.SetOutputs({gy, gyh, yc, ry});
  return b.Finish();
}

AlignedBytes BuildIndexOpsModel() {
  ModelBuilder b;
  flatbuffers::FlatBufferBuilder& fbb = b.fbb();
  auto f = DataType::kFloat32;
  auto i64 = DataType::kInt64;
  int x = b.AddTensor(f, {2, 3, 4}, "x");
  int sizes = b.AddConstant<int64_t>({2}, {1, 3});
  int left = b.AddTensor(f, {}, "split_0");
  int right = b.AddTensor(f, {}, "split_1");
  b.AddOperator(BuiltinOperator::SPLIT, {x, sizes}, {left, right},
                {schema::BuiltinOptions::SplitOptions,
                 schema::CreateSplitOptions(fbb, 2).Union()});
  int multiples = b.AddConstant<int64_t>({3}, {2, 1, 4});
  int tiled = b.AddTensor(f, {}, "tile");  // [4, 3, 4]
  b.AddOperator(BuiltinOperator::TILE, {left, multiples}, {tiled});
  int shape = b.AddConstant<int64_t>({4}, {2, 4, 3, 4});
  int wide = b.AddTensor(f, {}, "broadcast_to");
  b.AddOperator(BuiltinOperator::BROADCAST_TO, {tiled, shape}, {wide});
  int spatial = b.AddTensor(f, {}, "depth_to_space");  // [2, 1, 6, 8]
  b.AddOperator(BuiltinOperator::DEPTH_TO_SPACE, {wide}, {spatial},
                {schema::BuiltinOptions::DepthSpaceOptions,
                 schema::CreateDepthSpaceOptions(fbb, 2, true).Union()});
  int deep = b.AddTensor(f, {}, "space_to_depth");
  b.AddOperator(BuiltinOperator::SPACE_TO_DEPTH, {spatial}, {deep},
                {schema::BuiltinOptions::DepthSpaceOptions,
                 schema::CreateDepthSpaceOptions(fbb, 2).Union()});
  int k = b.AddConstant<int64_t>({}, {-1});
  int triangle = b.AddTensor(f, {}, "trilu");  // [2, 3, 3]
  b.AddOperator(BuiltinOperator::TRILU, {right, k}, {triangle},
                {schema::BuiltinOptions::TriluOptions,
                 schema::CreateTriluOptions(fbb, false).Union()});
  int axis = b.AddConstant<int32_t>({}, {1});
  int sum = b.AddTensor(f, {}, "cumsum");
  b.AddOperator(BuiltinOperator::CUMSUM, {triangle, axis}, {sum},
                {schema::BuiltinOptions::CumulativeOptions,
                 schema::CreateCumulativeOptions(fbb, true, true).Union()});
  int product = b.AddTensor(f, {}, "cumprod");
  b.AddOperator(BuiltinOperator::CUMPROD, {sum, axis}, {product});
  int indices = b.AddConstant<int64_t>(
      {2, 3, 3}, {0, 1, 2, 2, 1, 0, -1, 0, 1, 1, 1, 1, 0, 0, 0, 2, -3, 1});
  int gathered = b.AddTensor(f, {}, "gather_elements");
  b.AddOperator(BuiltinOperator::GATHER_ELEMENTS, {sum, indices}, {gathered},
                b.Gather(2));
  int scattered = b.AddTensor(f, {}, "scatter_elements");
  b.AddOperator(
      BuiltinOperator::SCATTER_ELEMENTS, {gathered, indices, triangle},
      {scattered},
      {schema::BuiltinOptions::ScatterOptions,
       schema::CreateScatterOptions(fbb, 1, schema::ScatterReduction::ADD)
           .Union()});
  int tuples = b.AddConstant<int64_t>({2, 2}, {1, 2, 0, -1});
  int gather_nd = b.AddTensor(f, {}, "gather_nd");  // [2, 3]
  b.AddOperator(BuiltinOperator::GATHER_ND, {scattered, tuples}, {gather_nd},
                b.Gather(0));
  int rows = b.AddConstant<int32_t>({1, 1}, {1});
  int updates = b.AddConstant<float>({1, 3, 3}, RandomFloats(9, 10));
  int scatter_nd = b.AddTensor(f, {}, "scatter_nd");
  b.AddOperator(BuiltinOperator::SCATTER_ND, {scattered, rows, updates},
                {scatter_nd});
  int top = b.AddConstant<int64_t>({1}, {2});
  int values = b.AddTensor(f, {}, "top_k_values");  // [2, 3, 2]
  int positions = b.AddTensor(i64, {}, "top_k_indices");
  b.AddOperator(BuiltinOperator::TOP_K, {scatter_nd, top}, {values, positions},
                {schema::BuiltinOptions::TopKOptions,
                 schema::CreateTopKOptions(fbb, -1, true).Union()});
  int depth = b.AddConstant<int64_t>({}, {3});
  int on_off = b.AddConstant<float>({2}, {0, 1});
  int one_hot = b.AddTensor(f, {}, "one_hot");
  b.AddOperator(BuiltinOperator::ONE_HOT, {positions, depth, on_off}, {one_hot},
                {schema::BuiltinOptions::OneHotOptions,
                 schema::CreateOneHotOptions(fbb, 1).Union()});
  int lengths = b.AddConstant<int64_t>({3}, {2, 0, 1});
  int reversed = b.AddTensor(f, {}, "reverse");
  b.AddOperator(BuiltinOperator::REVERSE_SEQUENCE, {values, lengths},
                {reversed},
                {schema::BuiltinOptions::ReverseSequenceOptions,
                 schema::CreateReverseSequenceOptions(fbb, 1, 2).Union()});
  b.SetInputs({x});
  b.SetOutputs({deep, product, gather_nd, one_hot, reversed});
  return b.Finish();
}

AlignedBytes BuildDetectorTailModel() {
  ModelBuilder b;
  auto f = DataType::kFloat32;
  auto i64 = DataType::kInt64;
  int boxes = b.AddTensor(f, {1, 8, 4}, "boxes");
  int scores = b.AddTensor(f, {1, 2, 8}, "scores");
  int max_boxes = b.AddConstant<int64_t>({1}, {3});
  int iou = b.AddConstant<float>({1}, {0.5f});
  int selected = b.AddTensor(i64, {}, "selected");
  b.AddOperator(
      BuiltinOperator::NON_MAX_SUPPRESSION, {boxes, scores, max_boxes, iou},
      {selected},
      {schema::BuiltinOptions::NonMaxSuppressionOptions,
       schema::CreateNonMaxSuppressionOptions(b.fbb(), false).Union()});
  int column = b.AddConstant<int32_t>({}, {2});
  int box_index = b.AddTensor(i64, {}, "box_index");
  b.AddOperator(BuiltinOperator::GATHER, {selected, column}, {box_index},
                b.Gather(1));
  int shape = b.AddConstant<int32_t>({2}, {8, 4});
  int flat = b.AddTensor(f, {}, "flat_boxes");
  b.AddOperator(BuiltinOperator::RESHAPE, {boxes, shape}, {flat});
  int picked = b.AddTensor(f, {}, "picked");
  b.AddOperator(BuiltinOperator::GATHER, {flat, box_index}, {picked},
                b.Gather(0));
  int nonzero = b.AddTensor(i64, {}, "nonzero");
  b.AddOperator(BuiltinOperator::NON_ZERO, {scores}, {nonzero});
  b.SetInputs({boxes, scores});
  b.SetOutputs({picked, nonzero});
  return b.Finish();
}

}  // namespace testing
}  // namespace twl
