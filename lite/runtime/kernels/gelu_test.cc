#include <gtest/gtest.h>

#include <cmath>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// Every 1/64 in [-10, 10], plus extremes.
std::vector<float> Grid() {
  std::vector<float> x;
  for (int i = -640; i <= 640; ++i) x.push_back(i / 64.f);
  for (float v : {-1e30f, -100.f, 1e-20f, 100.f, 1e30f}) x.push_back(v);
  return x;
}

std::vector<float> RunOp(BuiltinOperator op, bool approximate,
                         const std::vector<float>& x) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {static_cast<int>(x.size())});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(op, {in}, {out},
          op == BuiltinOperator::GELU ? m.builder().Gelu(approximate)
                                      : testing::Options());
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<float>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<float>(0);
}

TEST(GeluTest, ErfMatchesTheStandardLibrary) {
  auto x = Grid();
  auto y = RunOp(BuiltinOperator::ERF, false, x);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(y[i], std::erf(static_cast<double>(x[i])), 3e-7) << x[i];
  }
}

TEST(GeluTest, ExactGelu) {
  auto x = Grid();
  auto y = RunOp(BuiltinOperator::GELU, false, x);
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    ASSERT_NEAR(y[i], want, 1e-6 + 1e-6 * std::fabs(want)) << x[i];
  }
}

TEST(GeluTest, TanhGelu) {
  auto x = Grid();
  auto y = RunOp(BuiltinOperator::GELU, true, x);
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double want =
        0.5 * v *
        (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    ASSERT_NEAR(y[i], want, 1e-6 + 1e-6 * std::fabs(want)) << x[i];
  }
}

TEST(GeluTest, LargeInputRunsOnThreads) {
  std::vector<float> x(100000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2001) / 100.f - 10.f;
  RunOp(BuiltinOperator::GELU, false, x);  // compares with the reference
}

TEST(GeluTest, RejectsIntegers) {
  OpModel m;
  int in = m.AddInput(DataType::kInt32, {2});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::ERF, {in}, {out});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl
