#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

template <typename T>
std::vector<T> Unary(BuiltinOperator op, DataType type,
                     const std::vector<T>& x) {
  OpModel m;
  int in = m.AddInput(type, {static_cast<int>(x.size())});
  int out = m.AddOutput(type);
  m.AddOp(op, {in}, {out});
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<T>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<T>(0);
}

TEST(ElementwiseMathTest, Float) {
  auto f = DataType::kFloat32;
  std::vector<float> x = {0.25f, 1, 4};
  auto e = Unary<float>(BuiltinOperator::EXP, f, x);
  auto l = Unary<float>(BuiltinOperator::LOG, f, x);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(e[i], std::exp(x[i]), 1e-5);
    EXPECT_NEAR(l[i], std::log(x[i]), 1e-6);
  }
  EXPECT_EQ(Unary<float>(BuiltinOperator::SQRT, f, x),
            (std::vector<float>{0.5f, 1, 2}));
  EXPECT_EQ(Unary<float>(BuiltinOperator::RSQRT, f, x),
            (std::vector<float>{2, 1, 0.5f}));
  EXPECT_EQ(Unary<float>(BuiltinOperator::SQUARE, f, {-3, 0.5f}),
            (std::vector<float>{9, 0.25f}));
  EXPECT_EQ(Unary<float>(BuiltinOperator::NEG, f, {-3, 2}),
            (std::vector<float>{3, -2}));
  EXPECT_EQ(Unary<float>(BuiltinOperator::ABS, f, {-3, 2}),
            (std::vector<float>{3, 2}));
}

TEST(ElementwiseMathTest, IntegersWrap) {
  auto i32 = DataType::kInt32;
  EXPECT_EQ(Unary<int32_t>(BuiltinOperator::NEG, i32, {5, INT_MIN}),
            (std::vector<int32_t>{-5, INT_MIN}));
  EXPECT_EQ(Unary<int32_t>(BuiltinOperator::ABS, i32, {-5, INT_MIN}),
            (std::vector<int32_t>{5, INT_MIN}));
  EXPECT_EQ(Unary<int64_t>(BuiltinOperator::SQUARE, DataType::kInt64, {-7}),
            (std::vector<int64_t>{49}));
}

TEST(ElementwiseMathTest, ExpRejectsIntegers) {
  OpModel m;
  int in = m.AddInput(DataType::kInt32, {2});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::EXP, {in}, {out});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl
