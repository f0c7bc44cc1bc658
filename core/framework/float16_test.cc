#include "core/framework/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/framework/tensor.h"
#include "core/framework/types.h"

namespace tensorweave {
namespace {

// The value of half bits `h`, computed from the IEEE 754 definition.
double ReferenceValue(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// The nearest half to `f` (ties to the even mantissa), by search over all
// finite halves of f's sign: the definition, not the bit tricks.
uint16_t ReferenceRound(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double x = std::fabs(static_cast<double>(f));
  // Overflow: at or beyond 65520 (halfway between 65504 and 2^16).
  if (x >= 65520.0) return sign | 0x7c00;
  uint16_t best = 0;
  for (uint16_t h = 1; h < 0x7c00; ++h) {
    const double d = std::fabs(ReferenceValue(h) - x);
    const double best_d = std::fabs(ReferenceValue(best) - x);
    if (d < best_d || (d == best_d && (h & 1) == 0)) best = h;
  }
  return sign | best;
}

TEST(Float16Test, EveryHalfConvertsToFloatExactlyAndBack) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const half h = half::FromBits(static_cast<uint16_t>(bits));
    const float f = static_cast<float>(h);
    const double want = ReferenceValue(static_cast<uint16_t>(bits));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(f)) << bits;
      EXPECT_TRUE(std::isnan(static_cast<float>(half(f)))) << bits;
      continue;
    }
    EXPECT_EQ(static_cast<double>(f), want) << bits;
    EXPECT_EQ(std::signbit(f), (bits & 0x8000) != 0) << bits;
    EXPECT_EQ(half(f).bits, bits) << bits;
  }
}

TEST(Float16Test, FloatsRoundToTheNearestHalfTiesToEven) {
  std::vector<float> values = {
      0.0f,     -0.0f,     1.0f + 0x1p-11f, 1.0f + 0x3p-11f,
      65504,    65519.99f, 65520.0f,        1e-8f,
      3e-8f,    0x1p-25f,  0x1.000002p-25f, 0x1p-24f,
      0x3p-25f, 0x1p-14f,  0x1.ff8p-15f,    2049.0f,
      0.1f,     -3.3f,     1e10f,           -1e-10f};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-26.0f, 17.0f);
  for (int i = 0; i < 2000; ++i) {
    float v = std::exp2(exponent(rng)) * (rng() % 2 ? 1.0f : -1.0f);
    values.push_back(v);
  }
  for (float v : values) {
    EXPECT_EQ(half(v).bits, ReferenceRound(v)) << v;
  }
  EXPECT_EQ(half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_EQ(half(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_TRUE(std::isnan(ToFloat(half(std::nanf("")))));
}

TEST(Float16Test, ArithmeticRoundsEachResult) {
  EXPECT_EQ(ToFloat(half(2048.0f) + half(1.0f)), 2048.0f);
  EXPECT_EQ(ToFloat(half(2048.0f) + half(3.0f)), 2052.0f);
  EXPECT_EQ(ToFloat(half(60000.0f) + half(60000.0f)),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ((half(0.1f) * half(3.0f)).bits,
            half(ToFloat(half(0.1f)) * 3.0f).bits);
  EXPECT_EQ(ToFloat(-half(2.5f)), -2.5f);
  EXPECT_TRUE(half(1.0f) < half(2.0f));
  EXPECT_FALSE(half(std::nanf("")) == half(std::nanf("")));
}

TEST(Float16Test, SmallDtypesHaveTheirSizesAndNames) {
  struct Expected {
    DataType dtype;
    size_t size;
    const char* name;
  };
  for (const Expected& e :
       {Expected{DT_INT8, 1, "int8"}, Expected{DT_INT16, 2, "int16"},
        Expected{DT_UINT16, 2, "uint16"}, Expected{DT_UINT32, 4, "uint32"},
        Expected{DT_UINT64, 8, "uint64"}, Expected{DT_HALF, 2, "float16"}}) {
    EXPECT_EQ(DataTypeSize(e.dtype), e.size);
    EXPECT_EQ(DataTypeName(e.dtype), e.name);
    DataType parsed;
    ASSERT_TRUE(DataTypeFromName(e.name, &parsed));
    EXPECT_EQ(parsed, e.dtype);
    EXPECT_TRUE(IsValidDataType(e.dtype));
  }
  EXPECT_TRUE(DataTypeIsFloating(DT_HALF));
  EXPECT_TRUE(DataTypeIsInteger(DT_UINT64));
  EXPECT_FALSE(DataTypeIsInteger(DT_HALF));
}

TEST(Float16Test, TensorProtoRoundTripsAndReadsHalfVal) {
  Tensor t(DT_HALF, TensorShape({3}));
  t.data<half>()[0] = half(1.5f);
  t.data<half>()[1] = half(-65504.0f);
  t.data<half>()[2] = half(6e-8f);
  TensorProto proto;
  t.ToProto(&proto);
  Tensor back;
  ASSERT_TRUE(Tensor::FromProto(proto, &back).ok());
  EXPECT_TRUE(back.SameContents(t));

  TensorProto vals;
  vals.set_dtype(DT_HALF);
  vals.mutable_tensor_shape()->add_dim()->set_size(2);
  vals.add_half_val(half(2.5f).bits);
  vals.add_half_val(half(-1.0f).bits);
  ASSERT_TRUE(Tensor::FromProto(vals, &back).ok());
  EXPECT_EQ(ToFloat(back.data<half>()[0]), 2.5f);
  EXPECT_EQ(ToFloat(back.data<half>()[1]), -1.0f);

  TensorProto ints;
  ints.set_dtype(DT_INT8);
  ints.mutable_tensor_shape()->add_dim()->set_size(2);
  ints.add_int_val(-128);
  ASSERT_TRUE(Tensor::FromProto(ints, &back).ok());  // one value broadcast
  EXPECT_EQ(back.data<int8_t>()[1], -128);
}

}  // namespace
}  // namespace tensorweave
