#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// QUANTIZE of float32 x to T with constant scale and zero point.
template <typename T>
std::vector<T> Quantize(DataType type, const std::vector<int32_t>& shape,
                        const std::vector<float>& x,
                        const std::vector<int32_t>& param_shape,
                        const std::vector<float>& scale,
                        const std::vector<T>& zero_point, int axis = 1,
                        int block = 0) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, shape);
  int s = m.AddConst<float>(param_shape, scale);
  int z = m.AddConst<T>(param_shape, zero_point);
  int out = m.AddOutput(type);
  m.AddOp(BuiltinOperator::QUANTIZE, {in, s, z}, {out},
          m.builder().Quantize(axis, block));
  Status status = m.Build();
  EXPECT_TRUE(status.ok()) << status.message();
  m.SetInput<float>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<T>(0);
}

template <typename T>
std::vector<float> Dequantize(DataType type, const std::vector<int32_t>& shape,
                              const std::vector<T>& x,
                              const std::vector<int32_t>& param_shape,
                              const std::vector<float>& scale,
                              const std::vector<T>& zero_point, int axis = 1,
                              int block = 0) {
  OpModel m;
  int in = m.AddInput(type, shape);
  int s = m.AddConst<float>(param_shape, scale);
  int z = m.AddConst<T>(param_shape, zero_point);
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::DEQUANTIZE, {in, s, z}, {out},
          m.builder().Quantize(axis, block));
  Status status = m.Build();
  EXPECT_TRUE(status.ok()) << status.message();
  m.SetInput<T>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<float>(0);
}

TEST(QuantizeTest, PerTensorUint8) {
  // ONNX's QuantizeLinear example: 3 / 2 = 1.5 rounds to 2.
  EXPECT_EQ(Quantize<uint8_t>(DataType::kUInt8, {6},
                              {0, 2, 3, 1000, -254, -1000}, {}, {2}, {128}),
            (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeTest, TiesRoundToEven) {
  EXPECT_EQ(
      Quantize<int8_t>(DataType::kInt8, {8},
                       {0.5f, 1.5f, 2.5f, 3.5f, -0.5f, -1.5f, -2.5f, -3.5f}, {},
                       {1}, {0}),
      (std::vector<int8_t>{0, 2, 2, 4, 0, -2, -2, -4}));
}

TEST(QuantizeTest, SaturatesEveryType) {
  const std::vector<float> x = {1e9f, -1e9f, INFINITY, -INFINITY, NAN, 1.f};
  EXPECT_EQ(Quantize<int8_t>(DataType::kInt8, {6}, x, {}, {1}, {-3}),
            (std::vector<int8_t>{127, -128, 127, -128, -3, -2}));
  EXPECT_EQ(Quantize<uint8_t>(DataType::kUInt8, {6}, x, {}, {1}, {3}),
            (std::vector<uint8_t>{255, 0, 255, 0, 3, 4}));
  EXPECT_EQ(Quantize<int16_t>(DataType::kInt16, {6}, x, {}, {1}, {-3}),
            (std::vector<int16_t>{32767, -32768, 32767, -32768, -3, -2}));
  EXPECT_EQ(Quantize<uint16_t>(DataType::kUInt16, {6}, x, {}, {1}, {3}),
            (std::vector<uint16_t>{65535, 0, 65535, 0, 3, 4}));
}

// The same over 24 elements (AVX-512 builds quantize 16 at a time).
TEST(QuantizeTest, SaturatesEveryTypeInLongRuns) {
  auto tiled = [](auto v) {
    decltype(v) out;
    for (int i = 0; i < 4; ++i) out.insert(out.end(), v.begin(), v.end());
    return out;
  };
  const std::vector<float> x =
      tiled(std::vector<float>{1e9f, -1e9f, INFINITY, -INFINITY, NAN, 2.5f});
  EXPECT_EQ(Quantize<int8_t>(DataType::kInt8, {24}, x, {}, {1}, {-3}),
            tiled(std::vector<int8_t>{127, -128, 127, -128, -3, -1}));
  EXPECT_EQ(Quantize<uint8_t>(DataType::kUInt8, {24}, x, {}, {1}, {3}),
            tiled(std::vector<uint8_t>{255, 0, 255, 0, 3, 5}));
  EXPECT_EQ(Quantize<int16_t>(DataType::kInt16, {24}, x, {}, {1}, {-3}),
            tiled(std::vector<int16_t>{32767, -32768, 32767, -32768, -3, -1}));
  EXPECT_EQ(Quantize<uint16_t>(DataType::kUInt16, {24}, x, {}, {1}, {3}),
            tiled(std::vector<uint16_t>{65535, 0, 65535, 0, 3, 5}));
}

TEST(QuantizeTest, PerAxisAndNegativeAxis) {
  // x [2, 3], one scale and zero point per column (axis 1 == -1).
  const std::vector<float> x = {1, 2, 3, -4, 5, 60};
  const std::vector<uint8_t> want = {11, 21, 31, 6, 22, 45};
  for (int axis : {1, -1}) {
    EXPECT_EQ(Quantize<uint8_t>(DataType::kUInt8, {2, 3}, x, {3}, {1, 2, 4},
                                {10, 20, 30}, axis),
              want);
  }
}

TEST(QuantizeTest, Blocked) {
  // x [2, 4] in blocks of 3 along axis 1: scales [2, 2].
  const std::vector<float> x = {3, 6, 9, 8, -3, -6, -9, 8};
  EXPECT_EQ(Quantize<int8_t>(DataType::kInt8, {2, 4}, x, {2, 2}, {3, 2, 1, 4},
                             {0, 1, 0, -1}, 1, 3),
            (std::vector<int8_t>{1, 2, 3, 5, -3, -6, -9, 1}));
}

TEST(QuantizeTest, LargeInputRunsOnThreadsPerAxis) {
  std::vector<float> x(3 * 40000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 1001) * 0.37f - 150;
  auto y = Quantize<int8_t>(DataType::kInt8, {3, 40000}, x, {3}, {0.5f, 1, 2},
                            {-1, 0, 1}, 0);
  const float scales[] = {0.5f, 1, 2};
  const int zps[] = {-1, 0, 1};
  for (size_t i = 0; i < x.size(); ++i) {
    const int c = i / 40000;
    const float q = std::nearbyint(x[i] / scales[c]) + zps[c];
    ASSERT_EQ(y[i], std::max(-128.f, std::min(127.f, q))) << i;
  }
}

TEST(DequantizeTest, EveryInputType) {
  EXPECT_EQ(Dequantize<uint8_t>(DataType::kUInt8, {4}, {0, 3, 128, 255}, {},
                                {2}, {128}),
            (std::vector<float>{-256, -250, 0, 254}));
  EXPECT_EQ(Dequantize<int8_t>(DataType::kInt8, {3}, {-128, 0, 127}, {}, {0.5f},
                               {-1}),
            (std::vector<float>{-63.5f, 0.5f, 64}));
  EXPECT_EQ(Dequantize<int16_t>(DataType::kInt16, {2}, {-32768, 32767}, {}, {1},
                                {-32768}),
            (std::vector<float>{0, 65535}));
  EXPECT_EQ(
      Dequantize<uint16_t>(DataType::kUInt16, {2}, {0, 65535}, {}, {1}, {1}),
      (std::vector<float>{-1, 65534}));
  // int32: x - zero_point exactly (it overflows int32), then scaled.
  EXPECT_EQ(
      Dequantize<int32_t>(DataType::kInt32, {2}, {2147483647, -2147483647 - 1},
                          {}, {1}, {-2147483647 - 1}),
      (std::vector<float>{4294967295.f, 0}));
}

TEST(DequantizeTest, PerAxisAndBlocked) {
  EXPECT_EQ(Dequantize<int8_t>(DataType::kInt8, {2, 2}, {4, 4, 4, 4}, {2},
                               {1, 2}, {0, 2}, 0),
            (std::vector<float>{4, 4, 4, 4}));
  EXPECT_EQ(Dequantize<int8_t>(DataType::kInt8, {1, 3}, {4, 4, 4}, {1, 2},
                               {1, 3}, {0, 1}, 1, 2),
            (std::vector<float>{4, 4, 9}));
}

TEST(QuantizeTest, ComputedScaleAndZeroPoint) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {3});
  int s = m.AddInput(DataType::kFloat32, {});
  int z = m.AddInput(DataType::kUInt8, {});
  int out = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::QUANTIZE, {in, s, z}, {out},
          m.builder().Quantize(1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3});
  m.SetInput<float>(1, {0.5f});
  m.SetInput<uint8_t>(2, {1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<uint8_t>(0), (std::vector<uint8_t>{3, 5, 7}));
  // A computed bad scale fails in eval.
  for (float bad : {0.f, -1.f, NAN}) {
    m.SetInput<float>(1, {bad});
    Status status = m.Invoke();
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_NE(std::string(status.message()).find("positive and finite"),
              std::string::npos)
        << status.message();
  }
}

// Builds QUANTIZE with the given operands; returns the Build status.
Status BuildQuantize(const std::vector<int32_t>& x_shape,
                     const std::vector<int32_t>& scale_shape,
                     const std::vector<float>& scale,
                     const std::vector<int32_t>& zp_shape, DataType out_type,
                     DataType zp_type, int axis = 1, int block = 0) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, x_shape);
  int s = m.AddConst<float>(scale_shape, scale);
  int64_t zp_count = 1;
  for (int d : zp_shape) zp_count *= d;
  int z = zp_type == DataType::kInt8
              ? m.AddConst<int8_t>(zp_shape, std::vector<int8_t>(zp_count))
              : m.AddConst<uint8_t>(zp_shape, std::vector<uint8_t>(zp_count));
  int out = m.AddOutput(out_type);
  m.AddOp(BuiltinOperator::QUANTIZE, {in, s, z}, {out},
          m.builder().Quantize(axis, block));
  return m.Build();
}

void ExpectFails(const Status& status, const char* text) {
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
      << status.message();
}

TEST(QuantizeTest, RefusesBadConstantScales) {
  for (float bad : {0.f, -2.f, NAN, INFINITY}) {
    ExpectFails(BuildQuantize({2, 3}, {3}, {1, bad, 1}, {3}, DataType::kInt8,
                              DataType::kInt8),
                "positive and finite");
  }
}

TEST(QuantizeTest, RefusesMismatchedShapesAndTypes) {
  ExpectFails(
      BuildQuantize({2, 3}, {2}, {1, 1}, {2}, DataType::kInt8, DataType::kInt8),
      "per-axis scales");
  ExpectFails(BuildQuantize({2, 3}, {3}, {1, 1, 1}, {2}, DataType::kInt8,
                            DataType::kInt8),
              "must have the scale's shape");
  ExpectFails(BuildQuantize({2, 3}, {3}, {1, 1, 1}, {3}, DataType::kInt8,
                            DataType::kInt8, 2),
              "axis");
  ExpectFails(BuildQuantize({2, 4}, {2, 3}, {1, 1, 1, 1, 1, 1}, {2, 3},
                            DataType::kInt8, DataType::kInt8, 1, 3),
              "blocks of 3");
  ExpectFails(
      BuildQuantize({2, 3}, {}, {1}, {}, DataType::kInt8, DataType::kUInt8),
      "zero_point");
  ExpectFails(
      BuildQuantize({2, 3}, {}, {1}, {}, DataType::kInt32, DataType::kInt8),
      "must be int8, uint8, int16 or uint16");
}

TEST(DequantizeTest, RefusesFloatInput) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {2});
  int s = m.AddConst<float>({}, {1});
  int out = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::DEQUANTIZE, {in, s}, {out}, m.builder().Quantize(1));
  ExpectFails(m.Build(), "or int32");
}

struct Dynamic {
  std::vector<uint8_t> y;
  float scale;
  uint8_t zero_point;
};

Dynamic RunDynamic(const std::vector<float>& x, Status* status = nullptr) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, {static_cast<int>(x.size())});
  int y = m.AddOutput(DataType::kUInt8);
  int s = m.AddOutput(DataType::kFloat32);
  int z = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::DYNAMIC_QUANTIZE, {in}, {y, s, z});
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<float>(0, x);
  Status result = m.Invoke();
  if (status != nullptr) {
    *status = result;
    return {};
  }
  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(m.OutputShape(1), std::vector<int32_t>{});
  return {m.GetOutput<uint8_t>(0), m.GetOutput<float>(1)[0],
          m.GetOutput<uint8_t>(2)[0]};
}

TEST(DynamicQuantizeTest, OnnxExamples) {
  // ONNX's DynamicQuantizeLinear example.
  Dynamic d = RunDynamic({0, 2, -3, -2.5f, 1.34f, 0.5f});
  EXPECT_FLOAT_EQ(d.scale, 5.f / 255);
  EXPECT_EQ(d.zero_point, 153);
  EXPECT_EQ(d.y, (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  // All positive: the range starts at 0, zero point 0.
  d = RunDynamic({1, 2.1f, 1.3f, 2.5f, 3.34f, 10});
  EXPECT_FLOAT_EQ(d.scale, 10.f / 255);
  EXPECT_EQ(d.zero_point, 0);
  EXPECT_EQ(d.y, (std::vector<uint8_t>{26, 54, 33, 64, 85, 255}));
}

TEST(DynamicQuantizeTest, AllZerosAndNan) {
  Dynamic d = RunDynamic({0, 0, 0});
  EXPECT_FLOAT_EQ(d.scale, 1.f / 255);
  EXPECT_EQ(d.zero_point, 0);
  EXPECT_EQ(d.y, (std::vector<uint8_t>{0, 0, 0}));
  Status status;
  RunDynamic({1, NAN}, &status);
  ExpectFails(status, "NaN");
  RunDynamic({1, INFINITY}, &status);
  ExpectFails(status, "no finite uint8 scale");
}

}  // namespace
}  // namespace twl
