#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

std::vector<float> Random(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.5f, 2.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Double-precision layer norm (RMS norm: the mean taken as 0) over the last
// `depth` elements of each row.
std::vector<float> Expected(const std::vector<float>& x, int depth,
                            const std::vector<float>& scale,
                            const std::vector<float>& bias, float eps,
                            bool rms) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / depth; ++r) {
    const float* row = &x[r * depth];
    double mean = 0, var = 0;
    for (int i = 0; i < depth; ++i) mean += row[i];
    mean = rms ? 0.0 : mean / depth;
    for (int i = 0; i < depth; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= depth;
    for (int i = 0; i < depth; ++i) {
      y[r * depth + i] =
          static_cast<float>((row[i] - mean) / std::sqrt(var + eps) * scale[i] +
                             (bias.empty() ? 0.0 : bias[i]));
    }
  }
  return y;
}

void Check(const std::vector<int32_t>& shape, int axis, bool with_bias,
           float eps, bool rms = false) {
  int rank = static_cast<int>(shape.size());
  int a = axis < 0 ? axis + rank : axis;
  std::vector<int32_t> pshape(shape.begin() + a, shape.end());
  int depth = 1, total = 1;
  for (int d : pshape) depth *= d;
  for (int d : shape) total *= d;
  auto x = Random(total, 1), scale = Random(depth, 2);
  std::vector<float> bias = with_bias ? Random(depth, 3) : std::vector<float>();
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, shape);
  int s = m.AddConst<float>(pshape, scale);
  int b = with_bias ? m.AddConst<float>(pshape, bias) : -1;
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::LAYER_NORM, {in, s, b}, {out},
          m.builder().LayerNorm(axis, eps, rms));
  Status st = m.Build();
  ASSERT_TRUE(st.ok()) << st.message();
  m.SetInput<float>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  EXPECT_EQ(m.OutputShape(0), shape);
  auto got = m.GetOutput<float>(0);
  auto want = Expected(x, depth, scale, bias, eps, rms);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << i;
  }
}

TEST(LayerNormTest, LastAxisWithBias) { Check({2, 5, 64}, -1, true, 1e-5f); }
TEST(LayerNormTest, LastAxisWithoutBias) { Check({3, 7}, -1, false, 1e-3f); }
TEST(LayerNormTest, TwoTrailingAxes) { Check({2, 3, 4, 5}, 2, true, 1e-5f); }
TEST(LayerNormTest, OddDepthManyRows) { Check({300, 37}, 1, true, 0.f); }
TEST(LayerNormTest, RmsLastAxis) { Check({2, 5, 64}, -1, false, 1e-6f, true); }
TEST(LayerNormTest, RmsTrailingAxesWithBias) {
  Check({2, 3, 4, 5}, 1, true, 1e-3f, true);
}
TEST(LayerNormTest, RmsOddDepthManyRows) {
  Check({300, 37}, 1, false, 0.f, true);
}

TEST(LayerNormTest, RmsKeepsTheMean) {
  // RMS normalization does not center: a constant row of 3s is 3 / 3 = 1.
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {1, 4});
  int s = m.AddConst<float>({4}, {1, 2, 3, 4});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::LAYER_NORM, {in, s, -1}, {out},
          m.builder().LayerNorm(-1, 0.f, true));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {3, 3, 3, 3});
  ASSERT_TRUE(m.Invoke().ok());
  auto y = m.GetOutput<float>(0);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], i + 1, 1e-6f) << i;
}

TEST(LayerNormTest, ConstantRowGivesBias) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {1, 4});
  int s = m.AddConst<float>({4}, {1, 2, 3, 4});
  int b = m.AddConst<float>({4}, {5, 6, 7, 8});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::LAYER_NORM, {in, s, b}, {out},
          m.builder().LayerNorm(-1, 1e-5f));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {3, 3, 3, 3});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{5, 6, 7, 8}));
}

TEST(LayerNormTest, RejectsScaleOfTheWrongShape) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {2, 4});
  int s = m.AddConst<float>({3}, {1, 2, 3});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::LAYER_NORM, {in, s}, {out},
          m.builder().LayerNorm(-1, 1e-5f));
  Status st = m.Build();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("scale has shape [3]"),
            std::string::npos)
      << st.message();
}

TEST(LayerNormTest, RejectsAxisOutOfRange) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {2, 4});
  int s = m.AddConst<float>({4}, {1, 2, 3, 4});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::LAYER_NORM, {in, s}, {out},
          m.builder().LayerNorm(2, 1e-5f));
  EXPECT_FALSE(m.Build().ok());
}

TEST(LayerNormTest, RejectsIntegerInput) {
  OpModel m;
  int in = m.AddInput(DataType::kInt32, {2, 2});
  int s = m.AddConst<float>({2}, {1, 1});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::LAYER_NORM, {in, s}, {out},
          m.builder().LayerNorm(-1, 1e-5f));
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl
