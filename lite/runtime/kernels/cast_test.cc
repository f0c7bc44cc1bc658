#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// Runs one CAST of `in` (type `from`) to type `to`; returns the output bytes.
template <typename From, typename To>
std::vector<To> Cast(DataType from, DataType to, const std::vector<From>& in) {
  OpModel m;
  int x = m.AddInput(from, {static_cast<int32_t>(in.size())});
  int y = m.AddOutput(to);
  m.AddOp(BuiltinOperator::CAST, {x}, {y});
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<From>(0, in);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<To>(0);
}

TEST(CastTest, FloatToIntSaturatesAndTruncates) {
  EXPECT_EQ((Cast<float, int32_t>(DataType::kFloat32, DataType::kInt32,
                                  {1.9f, -1.9f, 1e20f, -1e20f, NAN})),
            (std::vector<int32_t>{1, -1, INT_MAX, INT_MIN, 0}));
  EXPECT_EQ((Cast<double, uint8_t>(DataType::kFloat64, DataType::kUInt8,
                                   {255.9, -3.5, 300, 7.99})),
            (std::vector<uint8_t>{255, 0, 255, 7}));
  EXPECT_EQ((Cast<double, uint64_t>(DataType::kFloat64, DataType::kUInt64,
                                    {1e30, 4294967296.5})),
            (std::vector<uint64_t>{UINT64_MAX, 4294967296ULL}));
}

TEST(CastTest, IntToFloatAndBool) {
  OpModel m;
  int x = m.AddInput(DataType::kInt64, {3});
  int f = m.AddOutput(DataType::kFloat32);
  int b = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::CAST, {x}, {f});
  m.AddOp(BuiltinOperator::CAST, {x}, {b});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(0, {0, -3, 7});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{0, -3, 7}));
  EXPECT_EQ(m.GetOutput<uint8_t>(1), (std::vector<uint8_t>{0, 1, 1}));
}

TEST(CastTest, IntegersWrap) {
  EXPECT_EQ((Cast<int64_t, int8_t>(DataType::kInt64, DataType::kInt8,
                                   {127, 128, -129, 256 + 5})),
            (std::vector<int8_t>{127, -128, 127, 5}));
  EXPECT_EQ(
      (Cast<int16_t, uint32_t>(DataType::kInt16, DataType::kUInt32, {-1, 300})),
      (std::vector<uint32_t>{4294967295u, 300}));
  EXPECT_EQ((Cast<uint64_t, int64_t>(DataType::kUInt64, DataType::kInt64,
                                     {UINT64_MAX, 5})),
            (std::vector<int64_t>{-1, 5}));
  EXPECT_EQ(
      (Cast<uint8_t, uint16_t>(DataType::kBool, DataType::kUInt16, {0, 1})),
      (std::vector<uint16_t>{0, 1}));
}

TEST(CastTest, Int64ToFloatRoundsOnce) {
  // 2^60 + 2^36 + 1: via double it would round to 2^60 + 2^36 (a tie, then
  // to even: 2^60); directly it rounds up to 2^60 + 2^37.
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  EXPECT_EQ((Cast<int64_t, float>(DataType::kInt64, DataType::kFloat32, {v})),
            (std::vector<float>{static_cast<float>(v)}));
  EXPECT_EQ(static_cast<float>(v), 0x1p60f + 0x1p37f);
}

TEST(CastTest, FloatToHalfRoundsToNearestEven) {
  // Expected bits from numpy's np.float32(x).astype(np.float16).view(uint16).
  std::vector<float> in = {0.0f,
                           -0.0f,
                           1.0f,
                           -2.5f,
                           65504.0f,
                           65519.0f,  // rounds down to the largest half
                           65520.0f,  // rounds to Inf
                           1e10f,
                           INFINITY,
                           -INFINITY,
                           0x1p-24f,         // smallest subnormal
                           0x1p-25f,         // a tie: to even (0)
                           0x1.8p-25f,       // above the tie: 2^-24
                           0x1.8p-24f,       // a tie between 1 and 2 units: 2
                           0x1p-14f,         // smallest normal
                           1.0f + 0x1p-11f,  // a tie: to even (1.0)
                           1.0f + 0x3p-11f,  // a tie: to even (1 + 2^-9)
                           0.1f};
  std::vector<uint16_t> want = {0x0000, 0x8000, 0x3c00, 0xc100, 0x7bff, 0x7bff,
                                0x7c00, 0x7c00, 0x7c00, 0xfc00, 0x0001, 0x0000,
                                0x0001, 0x0002, 0x0400, 0x3c00, 0x3c02, 0x2e66};
  EXPECT_EQ((Cast<float, uint16_t>(DataType::kFloat32, DataType::kFloat16, in)),
            want);
  auto nan =
      Cast<float, uint16_t>(DataType::kFloat32, DataType::kFloat16, {NAN});
  EXPECT_EQ(nan[0] & 0x7e00, 0x7e00);
}

TEST(CastTest, DoubleToHalfRoundsOnce) {
  // 1 + 2^-11 + 2^-40: above the tie, so up to 1 + 2^-10; via float (which
  // drops 2^-40) it would be a tie rounding down to 1.
  EXPECT_EQ((Cast<double, uint16_t>(DataType::kFloat64, DataType::kFloat16,
                                    {1.0 + 0x1p-11 + 0x1p-40})),
            (std::vector<uint16_t>{0x3c01}));
}

TEST(CastTest, HalfToFloatIsExact) {
  std::vector<uint16_t> in = {0x0000, 0x8000, 0x3c00, 0xc100, 0x7bff,
                              0x0001, 0x03ff, 0x0400, 0x7c00, 0xfc00};
  std::vector<float> want = {0.0f,     -0.0f,    1.0f,       -2.5f,
                             65504.0f, 0x1p-24f, 0x3ffp-24f, 0x1p-14f,
                             INFINITY, -INFINITY};
  auto got = Cast<uint16_t, float>(DataType::kFloat16, DataType::kFloat32, in);
  EXPECT_EQ(got, want);
  EXPECT_TRUE(std::signbit(got[1]));
  auto nan =
      Cast<uint16_t, double>(DataType::kFloat16, DataType::kFloat64, {0x7e00});
  EXPECT_TRUE(std::isnan(nan[0]));
  // float16 -> int32 truncates; -> bool is x != 0.
  EXPECT_EQ((Cast<uint16_t, int32_t>(DataType::kFloat16, DataType::kInt32,
                                     {0xc100, 0x7c00})),
            (std::vector<int32_t>{-2, INT_MAX}));
  EXPECT_EQ((Cast<uint16_t, uint8_t>(DataType::kFloat16, DataType::kBool,
                                     {0x8000, 0x0001})),
            (std::vector<uint8_t>{0, 1}));
}

TEST(CastTest, IntToHalf) {
  EXPECT_EQ((Cast<int32_t, uint16_t>(DataType::kInt32, DataType::kFloat16,
                                     {2049, 65519, 65520, -70000})),
            (std::vector<uint16_t>{0x6800, 0x7bff, 0x7c00, 0xfc00}));
}

TEST(CastTest, LargeInputSplitAcrossThreads) {
  std::vector<int32_t> in(100000);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<int32_t>(i) - 50000;
  auto out = Cast<int32_t, double>(DataType::kInt32, DataType::kFloat64, in);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i]);
}

TEST(CastTest, SameTypeCopies) {
  EXPECT_EQ((Cast<uint16_t, uint16_t>(DataType::kUInt16, DataType::kUInt16,
                                      {1, 65535})),
            (std::vector<uint16_t>{1, 65535}));
}

TEST(CastTest, RejectsTwoInputs) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::CAST, {x, x}, {y});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl
