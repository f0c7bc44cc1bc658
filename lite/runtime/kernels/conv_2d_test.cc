#include "lite/runtime/kernels/conv_2d.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::ExplicitPads;
using testing::OpModel;
using testing::Padding;
using testing::RandomFloats;

TEST(Conv2DTest, HandComputedValidAndSame) {
  // 3x3 single-channel input, 2x2 filter of ones, bias 1.
  for (auto padding : {Padding::VALID, Padding::SAME}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {1, 3, 3, 1});
    int w = m.AddConst<float>({1, 2, 2, 1}, {1, 1, 1, 1});
    int b = m.AddConst<float>({1}, {1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::CONV_2D, {x, w, b}, {y},
            m.builder().Conv2D(padding, 1, 1));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    ASSERT_TRUE(m.Invoke().ok());
    if (padding == Padding::VALID) {
      EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 2, 2, 1}));
      EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{13, 17, 25, 29}));
    } else {
      // SAME pads bottom/right by one.
      EXPECT_EQ(m.GetOutput<float>(0),
                (std::vector<float>{13, 17, 10, 25, 29, 16, 16, 18, 10}));
    }
    EXPECT_EQ(m.CompareWithReference(), "");
  }
}

TEST(Conv2DTest, TwoOutputChannelsStrideTwoRelu) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 4, 1});
  // OHWI: channel 0 = [[1]], channel 1 = [[-1]] (1x1 filter).
  int w = m.AddConst<float>({2, 1, 1, 1}, {1, -1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(
      BuiltinOperator::CONV_2D, {x, w}, {y},
      m.builder().Conv2D(Padding::VALID, 2, 2, ActivationFunctionType::RELU));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, -2, 3, -4, 5, 6, 7, 8});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 1, 2, 2}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 0, 3, 0}));
}

struct ConvCase {
  int batch, h, w, cin, cout, kh, kw, stride, dilation;
  Padding padding;
};

TEST(Conv2DTest, OptimizedMatchesReference) {
  std::vector<ConvCase> cases = {
      {1, 28, 28, 1, 6, 5, 5, 1, 1, Padding::VALID},   // LeNet conv1
      {1, 12, 12, 6, 16, 5, 5, 1, 1, Padding::VALID},  // LeNet conv2
      {2, 9, 7, 3, 20, 3, 3, 2, 1, Padding::SAME},
      {1, 10, 10, 4, 5, 3, 3, 1, 2, Padding::SAME},
      {3, 5, 6, 8, 33, 1, 1, 1, 1, Padding::VALID},  // pointwise
      {1, 6, 6, 2, 17, 1, 1, 2, 1, Padding::SAME},
      {1, 4, 4, 1, 1, 4, 4, 1, 1, Padding::VALID},
      // Single input channel, stride 1: the direct path.
      {2, 9, 11, 1, 12, 3, 3, 1, 2, Padding::SAME},
      {2, 30, 20, 1, 3, 3, 3, 1, 1, Padding::SAME},
      {1, 5, 40, 1, 9, 2, 5, 1, 1, Padding::VALID},
      {3, 28, 28, 1, 6, 5, 5, 1, 1, Padding::VALID},  // rows split mid-image
      {2, 7, 9, 1, 1, 3, 3, 1, 1, Padding::SAME},     // one output channel
      {1, 8, 50, 1, 15, 3, 4, 1, 3, Padding::SAME},   // dilated, long rows
      // Single input channel, stride 2: im2col transposed.
      {1, 11, 11, 1, 4, 3, 3, 2, 1, Padding::SAME},
      // No padding, output channels a multiple of 16: in place
      // (rows of multi-pixel tiles plus single-pixel tails; strides, dilation).
      {2, 13, 15, 3, 32, 3, 3, 1, 1, Padding::VALID},
      {1, 14, 19, 5, 16, 3, 2, 2, 1, Padding::VALID},
      {1, 12, 12, 2, 16, 3, 3, 1, 2, Padding::VALID},
      // A SAME convolution whose window never pads (1x1, stride 2).
      {1, 7, 7, 4, 16, 1, 1, 2, 1, Padding::SAME},
      // Padded, few channels in, whole panels out: in place, the taps in
      // the padding clipped (stems: 3x3/2 -> 32, 7x7/2 -> 64; dilated; a
      // window wider than the input, no interior pixel at all).
      {1, 17, 16, 3, 32, 3, 3, 2, 1, Padding::SAME},
      {2, 11, 13, 3, 64, 7, 7, 2, 1, Padding::SAME},
      {1, 9, 20, 5, 32, 3, 3, 1, 2, Padding::SAME},
      {1, 2, 3, 3, 16, 7, 7, 1, 1, Padding::SAME},
  };
  for (const ConvCase& c : cases) {
    for (auto act : {ActivationFunctionType::NONE, ActivationFunctionType::RELU,
                     ActivationFunctionType::SIGMOID}) {
      OpModel m;
      int x = m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
      int n = c.cout * c.kh * c.kw * c.cin;
      int w =
          m.AddConst<float>({c.cout, c.kh, c.kw, c.cin}, RandomFloats(n, n));
      int b = m.AddConst<float>({c.cout}, RandomFloats(c.cout, 3));
      int y = m.AddOutput(DataType::kFloat32);
      m.AddOp(BuiltinOperator::CONV_2D, {x, w, b}, {y},
              m.builder().Conv2D(c.padding, c.stride, c.stride, act, c.dilation,
                                 c.dilation));
      Status s = m.Build(2);
      ASSERT_TRUE(s.ok()) << s.message();
      m.SetInput<float>(0, RandomFloats(c.batch * c.h * c.w * c.cin, 4));
      ASSERT_TRUE(m.Invoke().ok());
      ASSERT_EQ(m.CompareWithReference(), "")
          << c.h << "x" << c.w << "x" << c.cin << " -> " << c.cout;
    }
  }
}

// Padding EXPLICIT (the converter's ONNX pads) on each path: im2col, the
// direct rows (one input channel), im2col transposed (few output channels),
// Winograd (3x3 stride 1, many channels), pointwise shapes with pads.
TEST(Conv2DTest, ExplicitPaddingMatchesReference) {
  struct Case {
    int h, w, cin, cout, k, stride;
    ExplicitPads pads;
  };
  for (const Case& c : std::vector<Case>{
           {8, 8, 16, 32, 3, 2, {1, 1, 1, 1}},
           {9, 10, 16, 32, 3, 2, {0, 2, 1, 0}},
           {9, 11, 1, 12, 3, 1, {0, 2, 1, 0}},
           {11, 11, 1, 4, 3, 2, {1, 1, 1, 1}},
           {7, 9, 3, 5, 5, 1, {3, 0, 0, 4}},
           {16, 16, 64, 64, 3, 1, {2, 0, 0, 2}},
           {16, 16, 64, 64, 3, 1, {1, 1, 1, 1}},
           {6, 6, 8, 16, 1, 1, {1, 0, 0, 1}},
           // In place (few channels in): stems, asymmetric pads.
           {30, 30, 3, 32, 3, 2, {1, 1, 1, 1}},
           {13, 12, 3, 64, 7, 2, {3, 3, 3, 3}},
           {9, 10, 4, 16, 3, 1, {0, 2, 1, 0}},
       }) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, c.h, c.w, c.cin});
    int n = c.cout * c.k * c.k * c.cin;
    int w = m.AddConst<float>({c.cout, c.k, c.k, c.cin}, RandomFloats(n, n));
    int b = m.AddConst<float>({c.cout}, RandomFloats(c.cout, 3));
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::CONV_2D, {x, w, b}, {y},
            m.builder().Conv2D(Padding::EXPLICIT, c.stride, c.stride,
                               ActivationFunctionType::RELU6, 1, 1, c.pads));
    Status s = m.Build(2);
    ASSERT_TRUE(s.ok()) << s.message();
    m.SetInput<float>(0, RandomFloats(2 * c.h * c.w * c.cin, 4));
    ASSERT_TRUE(m.Invoke().ok());
    const int out_h = (c.h + c.pads.top + c.pads.bottom - c.k) / c.stride + 1;
    const int out_w = (c.w + c.pads.left + c.pads.right - c.k) / c.stride + 1;
    EXPECT_EQ(m.GetOutput<float>(0).size(),
              static_cast<size_t>(2 * out_h * out_w * c.cout));
    // Winograd (the 16x16x64 cases) rounds differently from the direct
    // sum: the error is bounded by the outputs' scale (RMS), as in
    // WinogradMatchesReference.
    const Tensor* got = m.interpreter()->output(0);
    const Tensor* want = m.reference()->output(0);
    double sum_sq = 0, worst = 0;
    for (int64_t i = 0; i < want->num_elements(); ++i) {
      const double y = want->data_as<float>()[i];
      sum_sq += y * y;
      worst = std::max(worst, std::fabs(got->data_as<float>()[i] - y));
    }
    EXPECT_LE(worst, 1e-4 * std::sqrt(sum_sq / want->num_elements()))
        << c.h << "x" << c.w << "x" << c.cin << " -> " << c.cout << " pads "
        << c.pads.top << "," << c.pads.bottom << "," << c.pads.left << ","
        << c.pads.right;
  }
}

TEST(Conv2DTest, RejectsChannelMismatch) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 4, 4, 3});
  int w = m.AddConst<float>({2, 1, 1, 2}, std::vector<float>(4));
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::CONV_2D, {x, w}, {y});
  Status s = m.Build();
  EXPECT_NE(std::string(s.message()).find("filter has 2 input channels"),
            std::string::npos)
      << s.message();
}

std::vector<Conv2DPath>* observed_paths = nullptr;
void RecordPath(int /*node*/, Conv2DPath path) {
  if (observed_paths != nullptr) observed_paths->push_back(path);
}

// The Winograd path (3x3, stride 1, >= 16 channels in and out) against the
// reference loops: outputs not multiples of the 4x4 tile, channels off the
// vector widths and the 16-wide panel, SAME and VALID, batch > 1 (tiles of
// several images in a block), one block (its GEMMs split over the threads)
// and many (tiles split over the threads), 1 and 3 threads, every fused
// activation, with and without bias (each thread count sees both). Winograd
// rounds differently from the direct sum: the error is bounded relative to the
// outputs' scale (RMS), not to each value.
TEST(Conv2DTest, WinogradMatchesReference) {
  const std::vector<ConvCase> cases = {
      {1, 8, 8, 16, 16, 3, 3, 1, 1, Padding::SAME},
      {1, 7, 7, 16, 16, 3, 3, 1, 1, Padding::SAME},     // 2x2 tiles, cut
      {2, 9, 11, 17, 19, 3, 3, 1, 1, Padding::SAME},    // odd channels
      {1, 13, 10, 24, 33, 3, 3, 1, 1, Padding::VALID},  // 11x8 outputs
      {3, 6, 5, 20, 40, 3, 3, 1, 1, Padding::VALID},    // 4x3 outputs
      {1, 3, 3, 16, 16, 3, 3, 1, 1, Padding::SAME},     // 3x3: one tile
      {2, 30, 23, 16, 48, 3, 3, 1, 1, Padding::SAME},   // one 96-tile block
      // 2 x 10 x 10 tiles, blocks of 128: the tiles split over the tasks
      // (3 threads), several blocks per task (1 thread).
      {2, 40, 37, 16, 16, 3, 3, 1, 1, Padding::SAME},
      {1, 5, 40, 36, 17, 3, 3, 1, 1, Padding::SAME},  // wide rows
  };
  const ActivationFunctionType acts[] = {
      ActivationFunctionType::NONE, ActivationFunctionType::RELU,
      ActivationFunctionType::RELU6, ActivationFunctionType::TANH,
      ActivationFunctionType::SIGMOID};
  for (const ConvCase& c : cases) {
    for (ActivationFunctionType act : acts) {
      for (int threads : {1, 3}) {
        // With and without bias, in turn (the reference interpreter is
        // slow under qemu and sanitizers).
        for (bool with_bias : {(static_cast<int>(act) + threads) % 2 == 0}) {
          const std::string what =
              std::to_string(c.batch) + "x" + std::to_string(c.h) + "x" +
              std::to_string(c.w) + "x" + std::to_string(c.cin) + " -> " +
              std::to_string(c.cout) + " act " +
              std::to_string(static_cast<int>(act)) + " threads " +
              std::to_string(threads) + (with_bias ? " bias" : "");
          std::vector<Conv2DPath> paths;
          observed_paths = &paths;
          SetConv2DPathObserver(RecordPath);
          OpModel m;
          int x = m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
          int n = c.cout * c.kh * c.kw * c.cin;
          int w = m.AddConst<float>({c.cout, c.kh, c.kw, c.cin},
                                    RandomFloats(n, n));
          int y = m.AddOutput(DataType::kFloat32);
          std::vector<int> inputs = {x, w};
          if (with_bias) {
            inputs.push_back(
                m.AddConst<float>({c.cout}, RandomFloats(c.cout, 3, 2.f)));
          }
          m.AddOp(BuiltinOperator::CONV_2D, inputs, {y},
                  m.builder().Conv2D(c.padding, 1, 1, act));
          Status s = m.Build(threads);
          SetConv2DPathObserver(nullptr);
          observed_paths = nullptr;
          ASSERT_TRUE(s.ok()) << what << ": " << s.message();
          ASSERT_EQ(std::set<Conv2DPath>(paths.begin(), paths.end()),
                    (std::set<Conv2DPath>{Conv2DPath::kWinograd,
                                          Conv2DPath::kReference}))
              << what;
          m.SetInput<float>(0, RandomFloats(c.batch * c.h * c.w * c.cin, 4));
          ASSERT_TRUE(m.Invoke().ok()) << what;
          const Tensor* got = m.interpreter()->output(0);
          const Tensor* want = m.reference()->output(0);
          ASSERT_EQ(got->shape, want->shape) << what;
          const int64_t count = want->num_elements();
          ASSERT_GT(count, 0) << what;
          double sum_sq = 0;
          for (int64_t i = 0; i < count; ++i) {
            sum_sq +=
                double{want->data_as<float>()[i]} * want->data_as<float>()[i];
          }
          const double rms = std::sqrt(sum_sq / count);
          ASSERT_GT(rms, 0.0) << what;
          double worst = 0;
          for (int64_t i = 0; i < count; ++i) {
            worst =
                std::max<double>(worst, std::fabs(got->data_as<float>()[i] -
                                                  want->data_as<float>()[i]));
          }
          EXPECT_LE(worst, 1e-5 * 10 * rms) << what << " rms " << rms;
        }
      }
    }
  }
}

// A Winograd convolution whose output is cut by the right and bottom edges
// equals a hand-checkable one: a filter that is 1 at the center tap of
// input channel 0 for every output channel copies that channel (identity).
TEST(Conv2DTest, WinogradIdentityFilter) {
  const int h = 6, w = 7, cin = 16, cout = 16;
  std::vector<float> filter(cout * 9 * cin, 0.f);
  for (int co = 0; co < cout; ++co) filter[(co * 9 + 4) * cin + co] = 1.f;
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, h, w, cin});
  int f = m.AddConst<float>({cout, 3, 3, cin}, filter);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::CONV_2D, {x, f}, {y},
          m.builder().Conv2D(Padding::SAME, 1, 1));
  ASSERT_TRUE(m.Build().ok());
  const std::vector<float> input = RandomFloats(h * w * cin, 9);
  m.SetInput<float>(0, input);
  ASSERT_TRUE(m.Invoke().ok());
  const std::vector<float> out = m.GetOutput<float>(0);
  ASSERT_EQ(out.size(), input.size());
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_NEAR(out[i], input[i], 1e-5f * (1 + std::fabs(input[i]))) << i;
  }
}

// Each representative geometry runs the path named for it (as prepare
// reports it), and that path matches the reference kernel.
TEST(Conv2DTest, PathChosenForRepresentativeGeometries) {
  struct PathCase {
    ConvCase conv;
    Conv2DPath expected;
  };
  const std::vector<PathCase> cases = {
      // LeNet conv1: one input channel, stride 1, 6 < 16 outputs.
      {{1, 28, 28, 1, 6, 5, 5, 1, 1, Padding::VALID}, Conv2DPath::kDirectRows},
      {{2, 9, 11, 1, 12, 3, 3, 1, 2, Padding::SAME}, Conv2DPath::kDirectRows},
      // LeNet conv2: 16 outputs (a whole panel), no padding.
      {{1, 12, 12, 6, 16, 5, 5, 1, 1, Padding::VALID},
       Conv2DPath::kInPlaceRows},
      {{1, 14, 19, 5, 32, 3, 2, 2, 1, Padding::VALID},
       Conv2DPath::kInPlaceRows},
      // 1x1, stride 1: the input is the GEMM's operand (even with few
      // outputs).
      {{3, 5, 6, 8, 33, 1, 1, 1, 1, Padding::VALID}, Conv2DPath::kPointwise},
      {{1, 4, 4, 3, 2, 1, 1, 1, 1, Padding::SAME}, Conv2DPath::kPointwise},
      // Few outputs but not the direct case (stride 2; four channels in).
      {{1, 11, 11, 1, 4, 3, 3, 2, 1, Padding::SAME},
       Conv2DPath::kTransposedIm2col},
      {{1, 10, 10, 4, 5, 3, 3, 1, 2, Padding::SAME},
       Conv2DPath::kTransposedIm2col},
      // Many outputs, not whole panels (20); whole panels with few channels
      // in read the input in place, padded or not.
      {{2, 9, 7, 3, 20, 3, 3, 2, 1, Padding::SAME}, Conv2DPath::kIm2col},
      {{1, 8, 8, 3, 32, 3, 3, 1, 1, Padding::SAME}, Conv2DPath::kInPlaceRows},
      // A 7x7/2 stem of 48 outputs: two panels per tile (AVX-512), then one.
      {{1, 13, 21, 3, 48, 7, 7, 2, 1, Padding::SAME}, Conv2DPath::kInPlaceRows},
      // 1x1 stride 2 is not pointwise; few channels in: in place.
      {{1, 7, 7, 4, 16, 1, 1, 2, 1, Padding::SAME}, Conv2DPath::kInPlaceRows},
      // 3x3 stride 1 with >= 16 channels in and out: Winograd, padded or not
      // (ResNet's 3x3 layers).
      {{1, 14, 14, 64, 64, 3, 3, 1, 1, Padding::SAME}, Conv2DPath::kWinograd},
      {{1, 10, 10, 16, 32, 3, 3, 1, 1, Padding::VALID}, Conv2DPath::kWinograd},
      // Unpadded with 16 or more channels in (ResNet's PAD + VALID stride-2
      // layers): the GEMM, not the in-place rows.
      {{1, 17, 17, 64, 32, 3, 3, 2, 1, Padding::VALID}, Conv2DPath::kIm2col},
      {{1, 14, 14, 32, 64, 1, 1, 2, 1, Padding::VALID}, Conv2DPath::kIm2col},
      // ... but not strided, dilated or with few channels out (few in: in
      // place).
      {{1, 14, 14, 64, 64, 3, 3, 2, 1, Padding::SAME}, Conv2DPath::kIm2col},
      {{1, 14, 14, 32, 32, 3, 3, 1, 2, Padding::SAME}, Conv2DPath::kIm2col},
      {{1, 14, 14, 8, 32, 3, 3, 1, 1, Padding::SAME}, Conv2DPath::kInPlaceRows},
      {{1, 14, 14, 32, 8, 3, 3, 1, 1, Padding::SAME},
       Conv2DPath::kTransposedIm2col},
  };
  for (const PathCase& pc : cases) {
    const ConvCase& c = pc.conv;
    const std::string what = std::string(Conv2DPathName(pc.expected)) + " " +
                             std::to_string(c.h) + "x" + std::to_string(c.w) +
                             "x" + std::to_string(c.cin) + " -> " +
                             std::to_string(c.cout);
    std::vector<Conv2DPath> paths;
    observed_paths = &paths;
    SetConv2DPathObserver(RecordPath);
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {c.batch, c.h, c.w, c.cin});
    int n = c.cout * c.kh * c.kw * c.cin;
    int w = m.AddConst<float>({c.cout, c.kh, c.kw, c.cin}, RandomFloats(n, n));
    int b = m.AddConst<float>({c.cout}, RandomFloats(c.cout, 3));
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::CONV_2D, {x, w, b}, {y},
            m.builder().Conv2D(c.padding, c.stride, c.stride,
                               ActivationFunctionType::RELU, c.dilation,
                               c.dilation));
    Status s = m.Build(2);
    SetConv2DPathObserver(nullptr);
    observed_paths = nullptr;
    ASSERT_TRUE(s.ok()) << what << ": " << s.message();
    // The optimized interpreter took the expected path, the reference
    // interpreter the plain loops, and nothing else was chosen.
    EXPECT_EQ(std::set<Conv2DPath>(paths.begin(), paths.end()),
              (std::set<Conv2DPath>{pc.expected, Conv2DPath::kReference}))
        << what;
    m.SetInput<float>(0, RandomFloats(c.batch * c.h * c.w * c.cin, 4));
    ASSERT_TRUE(m.Invoke().ok()) << what;
    EXPECT_EQ(m.CompareWithReference(), "") << what;
  }
}

TEST(Conv2DTest, ChoosePathDirectly) {
  // LeNet conv1 as prepare computes it (28x28x1, 5x5 VALID, 6 outputs).
  Conv2DGeometry g = {1, 28, 28, 1, 24, 24, 6, 5, 5, 1, 1, 1, 1, 0, 0};
  EXPECT_EQ(ChooseConv2DPath(g, false), Conv2DPath::kDirectRows);
  EXPECT_EQ(ChooseConv2DPath(g, true), Conv2DPath::kReference);
  // Over 64 filter rows: the direct path's tables do not hold them.
  Conv2DGeometry tall = {1, 100, 8, 1, 31, 8, 6, 70, 1, 1, 1, 1, 1, 0, 0};
  EXPECT_EQ(ChooseConv2DPath(tall, false), Conv2DPath::kTransposedIm2col);
  EXPECT_STREQ(Conv2DPathName(Conv2DPath::kInPlaceRows), "in_place_rows");
  // ResNet-18's 3x3 layers: Winograd from 56x56 down to 14x14; at 7x7x512
  // (4 tiles, the largest filter) im2col, at batch 2 (8 tiles) Winograd.
  for (int side : {56, 28, 14, 7}) {
    const int c = 64 * 56 / side;
    Conv2DGeometry r = {1, side, side, c, side, side, c, 3,
                        3, 1,    1,    1, 1,    1,    1};
    EXPECT_EQ(ChooseConv2DPath(r, false),
              side == 7 ? Conv2DPath::kIm2col : Conv2DPath::kWinograd)
        << side;
    r.batch = 2;
    EXPECT_EQ(ChooseConv2DPath(r, false), Conv2DPath::kWinograd) << side;
  }
  // Few tiles but a smaller filter: Winograd (8x8x256, 4 tiles).
  Conv2DGeometry eight = {1, 8, 8, 256, 8, 8, 256, 3, 3, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(ChooseConv2DPath(eight, false), Conv2DPath::kWinograd);
  // A 2x2 output (one tile for 4 values) and 5x5 filters are not.
  Conv2DGeometry small = {1, 2, 2, 64, 2, 2, 64, 3, 3, 1, 1, 1, 1, 1, 1};
  EXPECT_NE(ChooseConv2DPath(small, false), Conv2DPath::kWinograd);
  Conv2DGeometry five = {1, 9, 9, 64, 9, 9, 64, 5, 5, 1, 1, 1, 1, 2, 2};
  EXPECT_NE(ChooseConv2DPath(five, false), Conv2DPath::kWinograd);
  EXPECT_STREQ(Conv2DPathName(Conv2DPath::kWinograd), "winograd");
}

}  // namespace
}  // namespace twl
