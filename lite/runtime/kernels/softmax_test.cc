#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

std::vector<float> RunSoftmax(BuiltinOperator op, float beta) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {2, 3});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(op, {in}, {out}, m.builder().Softmax(beta));
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 1000, 1000, 1000});
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<float>(0);
}

TEST(SoftmaxTest, Values) {
  auto y = RunSoftmax(BuiltinOperator::SOFTMAX, 1.f);
  float sum = std::exp(1.f) + std::exp(2.f) + std::exp(3.f);
  EXPECT_NEAR(y[0], std::exp(1.f) / sum, 1e-6);
  EXPECT_NEAR(y[2], std::exp(3.f) / sum, 1e-6);
  for (int i = 3; i < 6; ++i) EXPECT_NEAR(y[i], 1.f / 3, 1e-6);  // stable
  auto half = RunSoftmax(BuiltinOperator::SOFTMAX, 0.5f);
  float s2 = std::exp(0.5f) + std::exp(1.f) + std::exp(1.5f);
  EXPECT_NEAR(half[0], std::exp(0.5f) / s2, 1e-6);
}

// A score 10000 below the row's max (an additive padding mask) gives a
// probability of exactly 0, not a subnormal float (whose products with V
// would cost x86 tens of cycles each).
TEST(SoftmaxTest, MaskedScoresGiveZeroNotSubnormal) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {1, 19});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SOFTMAX, {in}, {out}, m.builder().Softmax(1.f));
  ASSERT_TRUE(m.Build().ok());
  std::vector<float> x(19, 0.5f);
  for (int i = 10; i < 19; ++i) x[i] = 0.5f - 10000.f + i;
  x[3] = 0.5f - 87.5f;  // just past ln of the smallest normal float
  m.SetInput<float>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  std::vector<float> y = m.GetOutput<float>(0);
  for (int i = 0; i < 19; ++i) {
    EXPECT_NE(std::fpclassify(y[i]), FP_SUBNORMAL) << i;
    if (i == 3 || i >= 10) {
      EXPECT_EQ(y[i], 0.f) << i;
    } else {
      EXPECT_NEAR(y[i], 1.f / 9, 1e-6) << i;
    }
  }
}

// Long rows (the vector lanes and the tail), wide ranges and -inf (masked
// attention scores): within 1e-6 of a double softmax, and of the reference.
void CheckAgainstDouble(int rows, int depth, int threads) {
  std::vector<float> x(rows * depth);
  for (int i = 0; i < rows * depth; ++i) {
    x[i] = std::sin(i * 0.37f) * (1 + i % 5) * 8.f;
  }
  x[5] = -INFINITY;
  x[depth + 3] = -INFINITY;
  x[depth + 70] = -INFINITY;
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {rows, depth});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SOFTMAX, {in}, {out}, m.builder().Softmax(1.f));
  ASSERT_TRUE(m.Build(threads).ok());
  m.SetInput<float>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  auto y = m.GetOutput<float>(0);
  for (int r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (int i = 0; i < depth; ++i)
      max = std::max<double>(max, x[r * depth + i]);
    for (int i = 0; i < depth; ++i) sum += std::exp(x[r * depth + i] - max);
    for (int i = 0; i < depth; ++i) {
      double want = std::exp(x[r * depth + i] - max) / sum;
      ASSERT_NEAR(y[r * depth + i], want, 1e-6 + 1e-5 * want) << r << " " << i;
    }
  }
}

TEST(SoftmaxTest, WideRowsAgainstDouble) { CheckAgainstDouble(7, 77, 2); }

// Enough rows to be split between 2 or 3 threads (unequal shares).
TEST(SoftmaxTest, RowsSplitBetweenThreads) {
  for (int threads : {1, 2, 3}) CheckAgainstDouble(301, 100, threads);
}

TEST(SoftmaxTest, LogSoftmax) {
  auto y = RunSoftmax(BuiltinOperator::LOG_SOFTMAX, 1.f);
  float sum = std::exp(1.f) + std::exp(2.f) + std::exp(3.f);
  EXPECT_NEAR(y[1], 2.f - std::log(sum), 1e-5);
  EXPECT_NEAR(y[4], -std::log(3.f), 1e-5);
}

}  // namespace
}  // namespace twl
