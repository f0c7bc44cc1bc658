#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::Padding;
using testing::RandomFloats;

std::vector<float> Pool(BuiltinOperator op, Padding padding) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 3, 3, 1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(op, {x}, {y}, m.builder().Pool2D(padding, 2, 2, 2, 2));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<float>(0);
}

TEST(PoolingTest, HandComputed) {
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, Padding::VALID),
            (std::vector<float>{5}));
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, Padding::SAME),
            (std::vector<float>{5, 6, 8, 9}));
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, Padding::VALID),
            (std::vector<float>{3}));
  // Padding is not counted: (3+6)/2, (7+8)/2, 9/1.
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, Padding::SAME),
            (std::vector<float>{3, 4.5f, 7.5f, 9}));
}

TEST(PoolingTest, OptimizedMatchesReference) {
  // Strides (h, w) and kernels that leave input columns unused (VALID),
  // clip windows (SAME), overlap (stride < kernel); channel counts with and
  // without a compile-time specialization, and one whose combined row
  // exceeds the on-stack buffer.
  const int strides[][2] = {{2, 1}, {2, 2}, {1, 3}};
  for (auto op :
       {BuiltinOperator::MAX_POOL_2D, BuiltinOperator::AVERAGE_POOL_2D}) {
    for (auto padding : {Padding::SAME, Padding::VALID}) {
      for (const auto& stride : strides) {
        for (int k : {1, 2, 3}) {
          for (int channels : {1, 3, 6, 16, 19, 40, 400}) {
            for (auto act :
                 {ActivationFunctionType::RELU, ActivationFunctionType::NONE}) {
              OpModel m;
              int x = m.AddInput(DataType::kFloat32, {2, 13, 11, channels});
              int y = m.AddOutput(DataType::kFloat32);
              m.AddOp(
                  op, {x}, {y},
                  m.builder().Pool2D(padding, stride[0], stride[1], k, k, act));
              ASSERT_TRUE(m.Build(2).ok());
              m.SetInput<float>(0, RandomFloats(2 * 13 * 11 * channels, k));
              ASSERT_TRUE(m.Invoke().ok());
              ASSERT_EQ(m.CompareWithReference(), "")
                  << channels << " channels, k " << k << ", strides "
                  << stride[0] << "x" << stride[1];
            }
          }
        }
      }
    }
  }
}

// Pool2DOptions with the ONNX fields (VALID with explicit pads).
struct PoolSpec {
  int k_h, k_w, stride_h = 1, stride_w = 1;
  int pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
  int dilation_h = 1, dilation_w = 1;
  bool count_include_pad = false, ceil_mode = false;
  int p = 2;
  Padding padding = Padding::VALID;
  ActivationFunctionType act = ActivationFunctionType::NONE;
};

testing::Options Options(OpModel& m, const PoolSpec& s) {
  return {schema::BuiltinOptions::Pool2DOptions,
          schema::CreatePool2DOptions(
              m.builder().fbb(), s.padding, s.stride_w, s.stride_h, s.k_w,
              s.k_h, s.act, s.pads[0], s.pads[1], s.pads[2], s.pads[3],
              s.dilation_h, s.dilation_w, s.count_include_pad, s.ceil_mode, s.p)
              .Union()};
}

template <typename T>
std::vector<T> Pool(BuiltinOperator op, const PoolSpec& spec,
                    const std::vector<int32_t>& shape,
                    const std::vector<T>& values) {
  OpModel m;
  int x = m.AddInput(DataTypeOf<T>::value, shape);
  int y = m.AddOutput(DataTypeOf<T>::value);
  m.AddOp(op, {x}, {y}, Options(m, spec));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  m.SetInput<T>(0, values);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<T>(0);
}

const std::vector<float> kOneToNine = {1, 2, 3, 4, 5, 6, 7, 8, 9};

TEST(PoolingTest, ExplicitPadsAndCountIncludePad) {
  PoolSpec s{2, 2, 2, 2, {1, 1, 0, 0}};
  // Windows: rows {0} and {1, 2}, columns likewise.
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, s, {1, 3, 3, 1}, kOneToNine),
            (std::vector<float>{1, 3, 7, 9}));
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, s, {1, 3, 3, 1}, kOneToNine),
            (std::vector<float>{1, 2.5f, 5.5f, 7}));
  s.count_include_pad = true;
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, s, {1, 3, 3, 1}, kOneToNine),
            (std::vector<float>{0.25f, 1.25f, 2.75f, 7}));
}

TEST(PoolingTest, CeilModeKeepsThePartialLastWindow) {
  PoolSpec s{2, 2, 2, 2};
  s.ceil_mode = true;
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, s, {1, 3, 3, 1}, kOneToNine),
            (std::vector<float>{5, 6, 8, 9}));
  // The part past the padded input is not counted, even with padding.
  s.count_include_pad = true;
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, s, {1, 3, 3, 1}, kOneToNine),
            (std::vector<float>{3, 4.5f, 7.5f, 9}));
  // A last window that would start in the bottom padding is dropped:
  // in 4, pad 0/1, k 2, stride 2: ceil(3 / 2) + 1 = 3 starts at 4.
  PoolSpec t{1, 2, 1, 2, {0, 0, 0, 1}};
  t.ceil_mode = true;
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, t, {1, 1, 4, 1},
                 std::vector<float>{1, 2, 3, 4}),
            (std::vector<float>{2, 4}));
}

TEST(PoolingTest, Dilation) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  PoolSpec s{2, 2};
  s.dilation_h = s.dilation_w = 2;
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, s, {1, 4, 4, 1}, x),
            (std::vector<float>{10, 11, 14, 15}));
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, s, {1, 4, 4, 1}, x),
            (std::vector<float>{5, 6, 9, 10}));
  // Padding 2 on a dilated window: the window at -2 has taps -2 and 1.
  s.pads[0] = 2;
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, s, {1, 4, 4, 1}, x),
            (std::vector<float>{2, 3, 6, 7, 10, 11, 14, 15}));
}

TEST(PoolingTest, AWindowOfPaddingOnlyGivesZero) {
  // Width 1, k 2 dilated by 3, pads 2 and 1: taps -2 and 1, both outside.
  PoolSpec s{1, 2, 1, 1, {0, 2, 0, 1}};
  s.dilation_w = 3;
  const std::vector<float> x = {-7, -8};
  EXPECT_EQ(Pool(BuiltinOperator::MAX_POOL_2D, s, {1, 2, 1, 1}, x),
            (std::vector<float>{0, 0}));
  EXPECT_EQ(Pool(BuiltinOperator::AVERAGE_POOL_2D, s, {1, 2, 1, 1}, x),
            (std::vector<float>{0, 0}));
}

TEST(PoolingTest, LpPool) {
  PoolSpec s{1, 2};
  const std::vector<float> x = {3, -4};
  EXPECT_EQ(Pool(BuiltinOperator::LP_POOL_2D, s, {1, 1, 2, 1}, x),
            (std::vector<float>{5}));
  s.p = 1;
  EXPECT_EQ(Pool(BuiltinOperator::LP_POOL_2D, s, {1, 1, 2, 1}, x),
            (std::vector<float>{7}));
  s.p = 3;
  EXPECT_NEAR(Pool(BuiltinOperator::LP_POOL_2D, s, {1, 1, 2, 1}, x)[0],
              std::cbrt(91.0), 1e-5);
  // Padding adds nothing to the sum.
  PoolSpec padded{1, 2, 1, 1, {0, 1, 0, 0}};
  EXPECT_EQ(Pool(BuiltinOperator::LP_POOL_2D, padded, {1, 1, 2, 1}, x),
            (std::vector<float>{3, 5}));
}

TEST(PoolingTest, MaxPoolOnIntegers) {
  PoolSpec s{2, 2};
  s.pads[2] = s.pads[3] = 1;
  EXPECT_EQ(Pool<uint8_t>(BuiltinOperator::MAX_POOL_2D, s, {1, 2, 2, 1},
                          {200, 3, 7, 255}),
            (std::vector<uint8_t>{255, 255, 255, 255}));
  EXPECT_EQ(Pool<int8_t>(BuiltinOperator::MAX_POOL_2D, s, {1, 2, 2, 1},
                         {-5, -100, -3, -128}),
            (std::vector<int8_t>{-3, -100, -3, -128}));
}

template <typename T>
void CheckIntegerMaxPoolMatchesReference() {
  for (int channels : {1, 5, 16}) {
    for (int dilation : {1, 2}) {
      PoolSpec s{3, 2, 2, 1, {1, 0, 2, 1}};
      s.ceil_mode = true;
      s.dilation_w = dilation;
      OpModel m;
      int x = m.AddInput(DataTypeOf<T>::value, {2, 9, 10, channels});
      int y = m.AddOutput(DataTypeOf<T>::value);
      m.AddOp(BuiltinOperator::MAX_POOL_2D, {x}, {y}, Options(m, s));
      ASSERT_TRUE(m.Build(2).ok());
      std::vector<T> values(2 * 9 * 10 * channels);
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = static_cast<T>(i * 37 % 256);  // wraps for int8
      }
      m.SetInput<T>(0, values);
      ASSERT_TRUE(m.Invoke().ok());
      ASSERT_EQ(m.CompareWithReference(), "") << channels << " " << dilation;
    }
  }
}

TEST(PoolingTest, IntegerMaxPoolOptimizedMatchesReference) {
  CheckIntegerMaxPoolMatchesReference<int8_t>();
  CheckIntegerMaxPoolMatchesReference<uint8_t>();
}

TEST(PoolingTest, OptimizedMatchesReferenceWithOnnxOptions) {
  for (auto op :
       {BuiltinOperator::MAX_POOL_2D, BuiltinOperator::AVERAGE_POOL_2D}) {
    for (bool ceil_mode : {false, true}) {
      for (bool include : {false, true}) {
        for (int channels : {1, 5, 16}) {
          for (int dilation : {1, 2}) {
            PoolSpec s{3, 2, 2, 3, {1, 0, 2, 1}};
            s.ceil_mode = ceil_mode;
            s.count_include_pad = include;
            s.dilation_h = dilation;
            s.dilation_w = 3 - dilation;
            OpModel m;
            int x = m.AddInput(DataType::kFloat32, {2, 9, 10, channels});
            int y = m.AddOutput(DataType::kFloat32);
            m.AddOp(op, {x}, {y}, Options(m, s));
            ASSERT_TRUE(m.Build(2).ok());
            m.SetInput<float>(0, RandomFloats(2 * 9 * 10 * channels, 3));
            ASSERT_TRUE(m.Invoke().ok());
            ASSERT_EQ(m.CompareWithReference(), "") << channels;
          }
        }
      }
    }
  }
}

TEST(PoolingTest, MaxPoolIndicesAreFlattenedNchwPositions) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 2, 2});
  int y = m.AddOutput(DataType::kFloat32);
  int i = m.AddOutput(DataType::kInt64);
  PoolSpec s{2, 2};
  m.AddOp(BuiltinOperator::MAX_POOL_2D, {x}, {y, i}, Options(m, s));
  ASSERT_TRUE(m.Build().ok());
  // Channel 0 is [[1, 4], [3, 2]], channel 1 [[5, 5], [0, -1]].
  m.SetInput<float>(0, {1, 5, 4, 5, 3, 0, 2, -1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{4, 5}));
  // (0, 1) of channel 0; the first 5, (0, 0), of channel 1: 4 + 0.
  EXPECT_EQ(m.GetOutput<int64_t>(1), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(m.CompareWithReference(), "");
}

TEST(PoolingTest, MaxPoolIndicesColumnMajor) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 3, 1});
  int y = m.AddOutput(DataType::kFloat32);
  int i = m.AddOutput(DataType::kInt64);
  auto options = schema::CreatePool2DOptions(
      m.builder().fbb(), Padding::VALID, 1, 1, 3, 2,
      ActivationFunctionType::NONE, 0, 0, 0, 0, 1, 1, false, false, 2,
      /*indices_column_major=*/true);
  m.AddOp(BuiltinOperator::MAX_POOL_2D, {x}, {y, i},
          {schema::BuiltinOptions::Pool2DOptions, options.Union()});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0, 1, 2, 3, 9, 5});  // the 9 at y 1, x 1
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int64_t>(1), (std::vector<int64_t>{1 * 2 + 1}));
}

TEST(PoolingTest, IndicesOutputErrors) {
  for (auto [op, type] :
       {std::pair{BuiltinOperator::MAX_POOL_2D, DataType::kInt32},
        std::pair{BuiltinOperator::AVERAGE_POOL_2D, DataType::kInt64}}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {1, 2, 2, 1});
    int y = m.AddOutput(DataType::kFloat32);
    int i = m.AddOutput(type);
    m.AddOp(op, {x}, {y, i}, Options(m, PoolSpec{2, 2}));
    EXPECT_FALSE(m.Build().ok());
  }
}

Status BuildError(BuiltinOperator op, DataType type, const PoolSpec& s) {
  OpModel m;
  int x = m.AddInput(type, {1, 4, 4, 1});
  int y = m.AddOutput(type);
  m.AddOp(op, {x}, {y}, Options(m, s));
  return m.Build();
}

TEST(PoolingTest, Errors) {
  PoolSpec ok{2, 2};
  EXPECT_TRUE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kInt8, ok).ok());
  EXPECT_FALSE(
      BuildError(BuiltinOperator::AVERAGE_POOL_2D, DataType::kInt8, ok).ok());
  EXPECT_FALSE(
      BuildError(BuiltinOperator::LP_POOL_2D, DataType::kUInt8, ok).ok());
  EXPECT_FALSE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kInt32, ok).ok());
  PoolSpec relu = ok;
  relu.act = ActivationFunctionType::RELU;
  EXPECT_FALSE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kUInt8, relu).ok());
  PoolSpec pad_too_big{2, 2, 1, 1, {2, 0, 0, 0}};
  Status s =
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kFloat32, pad_too_big);
  EXPECT_NE(std::string(s.message()).find("padding"), std::string::npos)
      << s.message();
  PoolSpec negative{2, 2, 1, 1, {0, -1, 0, 0}};
  EXPECT_FALSE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kFloat32, negative)
          .ok());
  PoolSpec same_ceil = ok;
  same_ceil.padding = Padding::SAME;
  same_ceil.ceil_mode = true;
  EXPECT_FALSE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kFloat32, same_ceil)
          .ok());
  PoolSpec p0 = ok;
  p0.p = 0;
  EXPECT_FALSE(
      BuildError(BuiltinOperator::LP_POOL_2D, DataType::kFloat32, p0).ok());
  PoolSpec big{5, 5};
  EXPECT_FALSE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kFloat32, big).ok());
  PoolSpec dilation0 = ok;
  dilation0.dilation_w = 0;
  EXPECT_FALSE(
      BuildError(BuiltinOperator::MAX_POOL_2D, DataType::kFloat32, dilation0)
          .ok());
}

}  // namespace
}  // namespace twl
