#include "core/framework/bfloat16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "core/framework/tensor.h"
#include "core/framework/types.h"

namespace tensorweave {
namespace {

// The value of bfloat16 bits `b`, from the definition (8 exponent bits, 7
// mantissa bits, bias 127).
double ReferenceValue(uint16_t b) {
  const int exponent = (b >> 7) & 0xff;
  const int mantissa = b & 0x7f;
  const double sign = (b & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -133);
  if (exponent == 255) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  return sign * std::ldexp(128 + mantissa, exponent - 134);
}

// The nearest bfloat16 to `f` (ties to the even mantissa), from the two
// neighbours truncation gives: the definition, not the bit trick.
uint16_t ReferenceRound(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  const uint16_t down = static_cast<uint16_t>(u >> 16);
  const uint16_t up = static_cast<uint16_t>(down + 1);
  const double x = static_cast<double>(f);
  const double d_down = std::fabs(ReferenceValue(down) - x);
  // Past the largest finite value the upper neighbour is infinity: the
  // rounding boundary is max + half an ulp.
  const double up_value = (up & 0x7fff) == 0x7f80
                              ? std::copysign(std::ldexp(511.0, 119), x)
                              : ReferenceValue(up);
  const double d_up = std::fabs(up_value - x);
  if (d_down < d_up || (d_down == d_up && (down & 1) == 0)) return down;
  return up;
}

TEST(Bfloat16Test, EveryBfloat16ConvertsToFloatExactlyAndBack) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const bfloat16 b = bfloat16::FromBits(static_cast<uint16_t>(bits));
    const float f = static_cast<float>(b);
    const double want = ReferenceValue(static_cast<uint16_t>(bits));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(f)) << bits;
      EXPECT_EQ(bfloat16(f).bits, 0x7fc0) << bits;
      continue;
    }
    EXPECT_EQ(static_cast<double>(f), want) << bits;
    EXPECT_EQ(std::signbit(f), (bits & 0x8000) != 0) << bits;
    EXPECT_EQ(bfloat16(f).bits, bits) << bits;
  }
}

TEST(Bfloat16Test, RoundsToNearestTiesToEven) {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: the even one (1) wins.
  EXPECT_EQ(bfloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3f82);
  // Just above the tie rounds up.
  EXPECT_EQ(bfloat16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)).bits,
            0x3f81);
  EXPECT_EQ(bfloat16(-1.0f - std::ldexp(1.0f, -8)).bits, 0xbf80);
  // Past max + half an ulp is infinity; the largest float too.
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::max()).bits, 0x7f80);
  EXPECT_EQ(bfloat16(-std::numeric_limits<float>::max()).bits, 0xff80);
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  // Subnormals are kept, not flushed.
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(bfloat16(std::ldexp(1.0f, -133)).bits, 0x0001);
  // NaN of either sign is the quiet NaN 0x7fc0 (as TensorFlow's Cast).
  EXPECT_EQ(bfloat16(std::nanf("")).bits, 0x7fc0);
  EXPECT_EQ(bfloat16(-std::nanf("")).bits, 0x7fc0);
  // Doubles and integers go through float (as Eigen::bfloat16).
  EXPECT_EQ(bfloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)).bits,
            0x3f80);
  EXPECT_EQ(bfloat16(int64_t{257}).bits, 0x4380);  // 257 -> 256
  EXPECT_EQ(bfloat16(int64_t{259}).bits, 0x4382);  // 259 -> 260
}

TEST(Bfloat16Test, RandomFloatsRoundAsTheDefinition) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = any(gen);
    if (i % 4 == 0) u = (u & 0xffff0000u) | 0x8000u;  // exact ties
    float f;
    std::memcpy(&f, &u, sizeof(f));
    if (std::isnan(f)) continue;
    EXPECT_EQ(bfloat16(f).bits, ReferenceRound(f)) << u;
  }
}

TEST(Bfloat16Test, ArithmeticRoundsAfterEveryOperation) {
  const bfloat16 one(1.0f), tiny(std::ldexp(1.0f, -8));
  // 1 + 2^-8 is a tie: rounds back to 1, so adding it twice stays at 1.
  EXPECT_EQ((one + tiny).bits, one.bits);
  EXPECT_EQ(((one + tiny) + tiny).bits, one.bits);
  EXPECT_EQ((bfloat16(3.0f) * bfloat16(1.0f / 3)).bits,
            bfloat16(3.0f * static_cast<float>(bfloat16(1.0f / 3))).bits);
  EXPECT_EQ((-bfloat16(2.0f)).bits, 0xc000);
  EXPECT_TRUE(bfloat16(1.0f) < bfloat16(2.0f));
  EXPECT_TRUE(bfloat16(0.0f) == -bfloat16(0.0f));
  EXPECT_FALSE(bfloat16(std::nanf("")) == bfloat16(std::nanf("")));
}

TEST(Bfloat16Test, Limits) {
  using L = std::numeric_limits<bfloat16>;
  EXPECT_EQ(static_cast<float>(L::max()), 3.3895313892515355e38f);
  EXPECT_EQ(static_cast<float>(L::lowest()), -3.3895313892515355e38f);
  EXPECT_EQ(static_cast<float>(L::min()), std::ldexp(1.0f, -126));
  EXPECT_EQ(static_cast<float>(L::epsilon()), std::ldexp(1.0f, -7));
  EXPECT_TRUE(std::isinf(static_cast<float>(L::infinity())));
  EXPECT_TRUE(std::isnan(static_cast<float>(L::quiet_NaN())));
}

TEST(Bfloat16Test, DataType) {
  EXPECT_EQ(DataTypeOf<bfloat16>::value, DT_BFLOAT16);
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), 2u);
  EXPECT_EQ(DataTypeName(DT_BFLOAT16), "bfloat16");
  DataType dtype;
  ASSERT_TRUE(DataTypeFromName("bfloat16", &dtype));
  EXPECT_EQ(dtype, DT_BFLOAT16);
  EXPECT_TRUE(DataTypeIsFloating(DT_BFLOAT16));
  EXPECT_TRUE(IsValidDataType(DT_BFLOAT16));
}

TEST(Bfloat16Test, TensorProtoHalfVal) {
  TensorProto proto;
  proto.set_dtype(DT_BFLOAT16);
  proto.mutable_tensor_shape()->add_dim()->set_size(3);
  proto.add_half_val(0x3fc0);  // 1.5
  proto.add_half_val(0xc000);  // -2
  Tensor t;
  ASSERT_TRUE(Tensor::FromProto(proto, &t).ok());
  ASSERT_EQ(t.dtype(), DT_BFLOAT16);
  EXPECT_EQ(static_cast<float>(t.data<bfloat16>()[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(t.data<bfloat16>()[1]), -2.0f);
  EXPECT_EQ(static_cast<float>(t.data<bfloat16>()[2]), -2.0f);  // repeated
}

}  // namespace
}  // namespace tensorweave
