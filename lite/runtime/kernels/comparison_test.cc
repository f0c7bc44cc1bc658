#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// Runs `op` on a [2, 1] and b [1, 2] (broadcast to [2, 2]).
template <typename T>
std::vector<bool> Compare(BuiltinOperator op, DataType type, std::vector<T> a,
                          std::vector<T> b) {
  OpModel m;
  m.AddInput(type, {2, 1});
  m.AddInput(type, {1, 2});
  int out = m.AddOutput(DataType::kBool);
  m.AddOp(op, {0, 1}, {out});
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  m.SetInput<T>(0, a);
  m.SetInput<T>(1, b);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  return m.GetOutput<bool>(0);
}

using B = std::vector<bool>;

TEST(ComparisonTest, AllSixOpsOnFloatWithNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Pairs (1, 1), (1, nan), (2, 1), (2, nan).
  std::vector<float> a = {1, 2}, b = {1, nan};
  EXPECT_EQ(Compare<float>(BuiltinOperator::EQUAL, DataType::kFloat32, a, b),
            (B{true, false, false, false}));
  EXPECT_EQ(
      Compare<float>(BuiltinOperator::NOT_EQUAL, DataType::kFloat32, a, b),
      (B{false, true, true, true}));
  EXPECT_EQ(Compare<float>(BuiltinOperator::LESS, DataType::kFloat32, a, b),
            (B{false, false, false, false}));
  EXPECT_EQ(
      Compare<float>(BuiltinOperator::LESS_EQUAL, DataType::kFloat32, a, b),
      (B{true, false, false, false}));
  EXPECT_EQ(Compare<float>(BuiltinOperator::GREATER, DataType::kFloat32, a, b),
            (B{false, false, true, false}));
  EXPECT_EQ(
      Compare<float>(BuiltinOperator::GREATER_EQUAL, DataType::kFloat32, a, b),
      (B{true, false, true, false}));
}

TEST(ComparisonTest, SignednessOfSmallAndWideIntegers) {
  // int8 -1 < 1, but uint8 255 > 1; uint64 max > 0.
  EXPECT_EQ(
      Compare<int8_t>(BuiltinOperator::LESS, DataType::kInt8, {-1, 1}, {1, -1}),
      (B{true, false, false, false}));
  EXPECT_EQ(Compare<uint8_t>(BuiltinOperator::LESS, DataType::kUInt8, {255, 1},
                             {1, 255}),
            (B{false, false, false, true}));
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(Compare<uint64_t>(BuiltinOperator::GREATER_EQUAL, DataType::kUInt64,
                              {big, 0}, {0, big}),
            (B{true, true, true, false}));
  EXPECT_EQ(Compare<int16_t>(BuiltinOperator::EQUAL, DataType::kInt16,
                             {-300, 7}, {-300, 7}),
            (B{true, false, false, true}));
  EXPECT_EQ(Compare<double>(BuiltinOperator::LESS_EQUAL, DataType::kFloat64,
                            {0.5, 1.5}, {1.0, 0.5}),
            (B{true, true, false, false}));
}

TEST(ComparisonTest, BoolEqualityReadsAnyNonZeroByteAsTrue) {
  // Bytes 2 and 1 are both true.
  EXPECT_EQ(
      Compare<uint8_t>(BuiltinOperator::EQUAL, DataType::kBool, {2, 0}, {1, 0}),
      (B{true, false, false, true}));
  EXPECT_EQ(Compare<uint8_t>(BuiltinOperator::NOT_EQUAL, DataType::kBool,
                             {2, 0}, {1, 0}),
            (B{false, true, true, false}));
}

TEST(ComparisonTest, LargeBroadcastSplitAcrossThreads) {
  OpModel m;
  const int n = 40000;
  int a = m.AddInput(DataType::kInt32, {2, n});
  int b = m.AddInput(DataType::kInt32, {n});
  int out = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::GREATER, {a, b}, {out});
  ASSERT_TRUE(m.Build(4).ok());
  std::vector<int32_t> x(2 * n), y(n);
  for (int i = 0; i < 2 * n; ++i) x[i] = i % 7;
  for (int i = 0; i < n; ++i) y[i] = i % 5;
  m.SetInput<int32_t>(0, x);
  m.SetInput<int32_t>(1, y);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  std::vector<bool> got = m.GetOutput<bool>(0);
  for (int i = 0; i < 2 * n; ++i) {
    ASSERT_EQ(got[i], x[i] > y[i % n]) << i;
  }
}

TEST(ComparisonTest, RejectsMixedTypesBoolOrderAndNonBoolOutput) {
  struct Case {
    BuiltinOperator op;
    DataType a, b, out;
  };
  for (const Case& c : {
           Case{BuiltinOperator::EQUAL, DataType::kFloat32, DataType::kInt32,
                DataType::kBool},
           Case{BuiltinOperator::LESS, DataType::kBool, DataType::kBool,
                DataType::kBool},
           Case{BuiltinOperator::LESS, DataType::kFloat16, DataType::kFloat16,
                DataType::kBool},
           Case{BuiltinOperator::GREATER, DataType::kInt32, DataType::kInt32,
                DataType::kInt32},
       }) {
    OpModel m;
    int a = m.AddInput(c.a, {2});
    int b = m.AddInput(c.b, {2});
    int out = m.AddOutput(c.out);
    m.AddOp(c.op, {a, b}, {out});
    EXPECT_FALSE(m.Build().ok());
  }
  OpModel m;  // 3 and 2 do not broadcast
  int a = m.AddInput(DataType::kInt32, {3});
  int b = m.AddInput(DataType::kInt32, {2});
  int out = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::LESS, {a, b}, {out});
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
}

TEST(EqualTest, Int64MaskAgainstZero) {
  OpModel m;
  int a = m.AddInput(DataType::kInt64, {1, 4});
  int zero = m.AddConst<int64_t>({}, {0});
  int out = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::EQUAL, {a, zero}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(0, {1, 0, 1, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  EXPECT_EQ(m.GetOutput<bool>(0),
            (std::vector<bool>{false, true, false, true}));
}

TEST(EqualTest, FloatBroadcastAndTypeErrors) {
  OpModel m;
  int a = m.AddInput(DataType::kFloat32, {2, 1});
  int b = m.AddInput(DataType::kFloat32, {1, 2});
  int out = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::EQUAL, {a, b}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2});
  m.SetInput<float>(1, {2, 1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<bool>(0),
            (std::vector<bool>{false, true, true, false}));
  OpModel bad;
  int x = bad.AddInput(DataType::kFloat32, {2});
  int y = bad.AddInput(DataType::kInt32, {2});
  int o = bad.AddOutput(DataType::kBool);
  bad.AddOp(BuiltinOperator::EQUAL, {x, y}, {o});
  EXPECT_FALSE(bad.Build().ok());
}

}  // namespace
}  // namespace twl
