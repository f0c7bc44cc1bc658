#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

template <typename T>
DataType TypeOf() {
  return std::is_same<T, uint8_t>::value ? DataType::kUInt8 : DataType::kInt8;
}

// QUANTIZED_ADD of two [n] inputs against a naive loop in double; the
// products are exact, so their sum rounds once either way.
template <typename T>
void CheckAdd(const std::vector<T>& a, const std::vector<T>& b, T za, T zb,
              float ma, float mb, T zy, int threads) {
  const int n = static_cast<int>(a.size());
  OpModel m;
  int ia = m.AddInput(TypeOf<T>(), {1, n});
  int ib = m.AddInput(TypeOf<T>(), {1, n});
  int out = m.AddOutput(TypeOf<T>());
  m.AddOp(BuiltinOperator::QUANTIZED_ADD,
          {ia, ib, m.AddConst<T>({}, {za}), m.AddConst<T>({}, {zb}),
           m.AddConst<float>({}, {ma}), m.AddConst<float>({}, {mb}),
           m.AddConst<T>({}, {zy})},
          {out});
  Status status = m.Build(threads);
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<T>(0, a);
  m.SetInput<T>(1, b);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) {
    double v =
        std::nearbyint((a[i] - za) * double{ma} + (b[i] - zb) * double{mb});
    v = std::min<double>(
        std::max<double>(v + zy, std::numeric_limits<T>::min()),
        std::numeric_limits<T>::max());
    want[i] = static_cast<T>(v);
  }
  EXPECT_EQ(m.GetOutput<T>(0), want);
}

template <typename T>
void CheckRandomAndEdges() {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(std::numeric_limits<T>::min(),
                                          std::numeric_limits<T>::max());
  const int n = 70003;  // several tasks and a tail of 3
  std::vector<T> a(n), b(n);
  for (auto& v : a) v = byte(rng);
  for (auto& v : b) v = byte(rng);
  // The extremes: both terms at their largest and smallest.
  a[0] = b[0] = std::numeric_limits<T>::max();
  a[1] = b[1] = std::numeric_limits<T>::min();
  const T lo = std::numeric_limits<T>::min(),
          hi = std::numeric_limits<T>::max();
  for (int threads : {1, 2}) {
    CheckAdd<T>(a, b, T(lo + 3), T(hi - 7), 0.7f, 1.3f, T(lo + 100), threads);
    // Large multipliers saturate both ends; the zero points at T's ends.
    CheckAdd<T>(a, b, lo, hi, 300.0f, 1e9f, hi, threads);
  }
  // Ties to even: (a - za) * 0.5 with the b term 0.
  std::vector<T> small(16), zeros(16, T(0));
  for (int i = 0; i < 16; ++i) small[i] = T(i - 5 + (lo == 0 ? 5 : 0));
  CheckAdd<T>(small, zeros, T(lo == 0 ? 5 : 0), T(0), 0.5f, 0.25f, T(0), 1);
}

TEST(QuantizedAddTest, UInt8MatchesNaive) { CheckRandomAndEdges<uint8_t>(); }
TEST(QuantizedAddTest, Int8MatchesNaive) { CheckRandomAndEdges<int8_t>(); }

TEST(QuantizedAddTest, ExactRoundingOfAHalf) {
  // (3 - 0) * 0.5 + (1 - 0) * 0.5 = 2; (1) * 0.5 + 0 = 0.5 -> 0; 1.5 -> 2;
  // -2.5 -> -2.
  OpModel m;
  int ia = m.AddInput(DataType::kInt8, {4});
  int ib = m.AddInput(DataType::kInt8, {4});
  int out = m.AddOutput(DataType::kInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_ADD,
          {ia, ib, m.AddConst<int8_t>({}, {0}), m.AddConst<int8_t>({}, {0}),
           m.AddConst<float>({}, {0.5f}), m.AddConst<float>({}, {0.5f}),
           m.AddConst<int8_t>({}, {0})},
          {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {3, 1, 3, -5});
  m.SetInput<int8_t>(1, {1, 0, 0, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{2, 0, 2, -2}));
}

std::string BuildError(DataType a_type, DataType b_type,
                       std::vector<int32_t> b_shape, std::vector<float> ma,
                       int zp_elements) {
  OpModel m;
  int ia = m.AddInput(a_type, {2, 3});
  int ib = m.AddInput(b_type, b_shape);
  int out = m.AddOutput(a_type);
  std::vector<uint8_t> zp(zp_elements, 1);
  m.AddOp(BuiltinOperator::QUANTIZED_ADD,
          {ia, ib, m.AddConst<uint8_t>({zp_elements}, zp),
           m.AddConst<uint8_t>({}, {0}),
           m.AddConst<float>({static_cast<int32_t>(ma.size())}, ma),
           m.AddConst<float>({}, {1.0f}), m.AddConst<uint8_t>({}, {0})},
          {out});
  Status status = m.Build();
  return status.ok() ? "" : status.message();
}

TEST(QuantizedAddTest, RefusesBadOperands) {
  const DataType u8 = DataType::kUInt8;
  EXPECT_EQ(BuildError(u8, u8, {2, 3}, {0.5f}, 1), "");
  auto has = [](const std::string& message, const char* text) {
    return message.find(text) != std::string::npos;
  };
  EXPECT_PRED2(has, BuildError(u8, u8, {3, 2}, {0.5f}, 1), "one shape");
  EXPECT_PRED2(has, BuildError(u8, DataType::kInt8, {2, 3}, {0.5f}, 1), "b");
  EXPECT_PRED2(
      has,
      BuildError(DataType::kFloat32, DataType::kFloat32, {2, 3}, {0.5f}, 1),
      "int8 or uint8");
  EXPECT_PRED2(has, BuildError(u8, u8, {2, 3}, {0.5f}, 2), "one element");
  EXPECT_PRED2(has, BuildError(u8, u8, {2, 3}, {0.5f, 1.0f}, 1), "one element");
  EXPECT_PRED2(has, BuildError(u8, u8, {2, 3}, {0.0f}, 1),
               "positive and finite");
  EXPECT_PRED2(has, BuildError(u8, u8, {2, 3}, {NAN}, 1),
               "positive and finite");
}

}  // namespace
}  // namespace twl
