#include <gtest/gtest.h>

#include <cmath>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

std::vector<float> Unary(BuiltinOperator op, const std::vector<float>& x) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {static_cast<int>(x.size())});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(op, {in}, {out});
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<float>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<float>(0);
}

TEST(ActivationsTest, Values) {
  std::vector<float> x = {-3, -0.5f, 0, 2, 7};
  EXPECT_EQ(Unary(BuiltinOperator::RELU, x),
            (std::vector<float>{0, 0, 0, 2, 7}));
  EXPECT_EQ(Unary(BuiltinOperator::RELU6, x),
            (std::vector<float>{0, 0, 0, 2, 6}));
  auto s = Unary(BuiltinOperator::SIGMOID, x);
  auto t = Unary(BuiltinOperator::TANH, x);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(s[i], 1 / (1 + std::exp(-x[i])), 1e-6);
    EXPECT_NEAR(t[i], std::tanh(x[i]), 1e-6);
  }
}

TEST(ActivationsTest, LargeInputUsesThreads) {
  auto x = testing::RandomFloats(200000, 1, 5.f);
  auto y = Unary(BuiltinOperator::RELU6, x);
  for (size_t i = 0; i < x.size(); i += 997) {
    ASSERT_EQ(y[i], std::min(std::max(x[i], 0.f), 6.f));
  }
}

TEST(ActivationsTest, RejectsIntegers) {
  OpModel m;
  int in = m.AddInput(DataType::kInt32, {2});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::SIGMOID, {in}, {out});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl
