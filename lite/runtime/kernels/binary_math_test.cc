#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// Runs `op` on a (type A, shape sa) and b (type B, shape sb) into an output
// of type O, checking the optimized path against the reference.
template <typename A, typename B, typename O = A>
std::vector<O> RunBinary(BuiltinOperator op, std::vector<int32_t> sa,
                         std::vector<A> a, std::vector<int32_t> sb,
                         std::vector<B> b) {
  OpModel m;
  int x = m.AddInput(DataTypeOf<A>::value, sa);
  int y = m.AddInput(DataTypeOf<B>::value, sb);
  int z = m.AddOutput(DataTypeOf<O>::value);
  m.AddOp(op, {x, y}, {z});
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<A>(0, a);
  m.SetInput<B>(1, b);
  s = m.Invoke();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<O>(0);
}

// The error of building (or, if that succeeds, invoking) a model with `op`.
template <typename A, typename B>
std::string Error(BuiltinOperator op, DataType out_type,
                  std::vector<int32_t> sa, std::vector<A> a,
                  std::vector<int32_t> sb, std::vector<B> b) {
  OpModel m;
  int x = m.AddInput(DataTypeOf<A>::value, sa);
  int y = m.AddInput(DataTypeOf<B>::value, sb);
  int z = m.AddOutput(out_type);
  m.AddOp(op, {x, y}, {z});
  Status s = m.Build();
  if (!s.ok()) return s.message();
  m.SetInput<A>(0, a);
  m.SetInput<B>(1, b);
  s = m.Invoke();
  return s.ok() ? "" : s.message();
}

TEST(BinaryMathTest, PreluBroadcastsSlopeToX) {
  // x [2, 3], slope [3] (per channel of the last dim).
  EXPECT_EQ(
      (RunBinary<float, float>(BuiltinOperator::PRELU, {2, 3},
                               {-1, 2, -3, 4, -5, 0}, {3}, {0.5f, 2, 0.1f})),
      (std::vector<float>{-0.5f, 2, -0.3f, 4, -10, 0}));
  // A slope of x's shape.
  EXPECT_EQ((RunBinary<float, float>(BuiltinOperator::PRELU, {2}, {-2, -2}, {2},
                                     {1, 3})),
            (std::vector<float>{-2, -6}));
}

TEST(BinaryMathTest, PreluRejectsASlopeWiderThanX) {
  std::string e =
      Error<float, float>(BuiltinOperator::PRELU, DataType::kFloat32, {3},
                          {1, 2, 3}, {2, 3}, {1, 1, 1, 1, 1, 1});
  EXPECT_NE(e.find("does not broadcast to x's shape"), std::string::npos) << e;
  e = Error<int32_t, int32_t>(BuiltinOperator::PRELU, DataType::kInt32, {1},
                              {1}, {1}, {1});
  EXPECT_NE(e.find("must be float32"), std::string::npos) << e;
}

TEST(BinaryMathTest, PowFloat) {
  auto y =
      RunBinary<float, float>(BuiltinOperator::POW, {3}, {2, 4, 9}, {}, {0.5f});
  EXPECT_NEAR(y[0], std::sqrt(2.f), 1e-6);
  EXPECT_EQ(y[1], 2.f);
  EXPECT_EQ(y[2], 3.f);
  // Integer exponents of other types, broadcast per row.
  EXPECT_EQ((RunBinary<float, uint32_t>(BuiltinOperator::POW, {2, 2},
                                        {2, 3, 2, 3}, {2}, {3, 2})),
            (std::vector<float>{8, 9, 8, 9}));
  EXPECT_EQ((RunBinary<double, int64_t>(BuiltinOperator::POW, {2}, {-2, 0.5},
                                        {2}, {3, -1})),
            (std::vector<double>{-8, 2}));
}

TEST(BinaryMathTest, PowIntegers) {
  EXPECT_EQ(
      (RunBinary<int32_t, int32_t>(BuiltinOperator::POW, {5}, {2, -3, 0, 7, 1},
                                   {5}, {10, 3, 0, 1, 100})),
      (std::vector<int32_t>{1024, -27, 1, 7, 1}));
  // Negative exponents: 1 / base^-e truncated.
  EXPECT_EQ(
      (RunBinary<int64_t, int64_t>(BuiltinOperator::POW, {4}, {1, -1, -1, 2},
                                   {4}, {-5, -1, -2, -1})),
      (std::vector<int64_t>{1, -1, 1, 0}));
  // Wrapping as numpy: 3^40 mod 2^32, and 3^21 past INT32_MAX.
  EXPECT_EQ(
      (RunBinary<int32_t, int32_t>(BuiltinOperator::POW, {1}, {3}, {1}, {40})),
      (std::vector<int32_t>{689956897}));
  EXPECT_EQ(
      (RunBinary<int32_t, int32_t>(BuiltinOperator::POW, {1}, {3}, {1}, {21})),
      (std::vector<int32_t>{
          static_cast<int32_t>(10460353203ull & 0xffffffffu)}));
  // A float exponent: pow rounded toward zero, saturating, NaN giving 0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(
      (RunBinary<int32_t, float>(BuiltinOperator::POW, {4}, {4, 10, -8, 2}, {4},
                                 {0.5f, 20, 1.f / 3, nan})),
      (std::vector<int32_t>{2, std::numeric_limits<int32_t>::max(), 0, 0}));
}

TEST(BinaryMathTest, PowRejectsBadTypes) {
  std::string e = Error<uint8_t, int32_t>(BuiltinOperator::POW,
                                          DataType::kUInt8, {1}, {2}, {1}, {2});
  EXPECT_NE(e.find("base type uint8"), std::string::npos) << e;
  e = Error<float, float>(BuiltinOperator::POW, DataType::kFloat64, {1}, {2},
                          {1}, {2});
  EXPECT_NE(e.find("must be the base's"), std::string::npos) << e;
}

TEST(BinaryMathTest, RemaindersOfMixedSigns) {
  const std::vector<int32_t> a = {7, -7, 7, -7, 0};
  const std::vector<int32_t> b = {3, 3, -3, -3, 5};
  EXPECT_EQ(
      (RunBinary<int32_t, int32_t>(BuiltinOperator::FLOOR_MOD, {5}, a, {5}, b)),
      (std::vector<int32_t>{1, 2, -2, -1, 0}));
  EXPECT_EQ(
      (RunBinary<int32_t, int32_t>(BuiltinOperator::FMOD, {5}, a, {5}, b)),
      (std::vector<int32_t>{1, -1, 1, -1, 0}));
  // INT_MIN % -1 is 0, not a trap.
  EXPECT_EQ((RunBinary<int8_t, int8_t>(BuiltinOperator::FLOOR_MOD, {2},
                                       {-128, -7}, {2}, {-1, 2})),
            (std::vector<int8_t>{0, 1}));
  EXPECT_EQ((RunBinary<int64_t, int64_t>(BuiltinOperator::FMOD, {1},
                                         {INT64_MIN}, {1}, {-1})),
            (std::vector<int64_t>{0}));
  EXPECT_EQ((RunBinary<uint16_t, uint16_t>(BuiltinOperator::FLOOR_MOD, {2},
                                           {65535, 10}, {}, {7})),
            (std::vector<uint16_t>{65535 % 7, 3}));
  auto f = RunBinary<float, float>(BuiltinOperator::FLOOR_MOD, {3},
                                   {5.5f, -5.5f, 5.5f}, {3}, {2, 2, -2});
  EXPECT_EQ(f, (std::vector<float>{1.5f, 0.5f, -0.5f}));
  auto d = RunBinary<double, double>(BuiltinOperator::FMOD, {3},
                                     {5.5, -5.5, 5.5}, {3}, {2, 2, -2});
  EXPECT_EQ(d, (std::vector<double>{1.5, -1.5, 1.5}));
}

TEST(BinaryMathTest, IntegerRemainderByZeroIsAnError) {
  for (auto op : {BuiltinOperator::FLOOR_MOD, BuiltinOperator::FMOD}) {
    std::string e =
        Error<int32_t, int32_t>(op, DataType::kInt32, {2}, {1, 2}, {2}, {1, 0});
    EXPECT_NE(e.find("integer division by zero"), std::string::npos) << e;
  }
  // Floats give NaN.
  auto f = RunBinary<float, float>(BuiltinOperator::FMOD, {1}, {1}, {1}, {0});
  EXPECT_TRUE(std::isnan(f[0]));
}

TEST(BinaryMathTest, RemainderRejectsMixedTypes) {
  std::string e = Error<int32_t, int64_t>(BuiltinOperator::FMOD,
                                          DataType::kInt32, {1}, {1}, {1}, {1});
  EXPECT_NE(e.find("must match"), std::string::npos) << e;
}

}  // namespace
}  // namespace twl
