#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "lite/runtime/quantization.h"
#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

void ExpectFails(const Status& status, const char* text) {
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find(text), std::string::npos)
      << status.message();
}

// The portable builds of this test (BUILD) each ask for one int8 kernel
// set: sse2, avx2, avx512 (AVX2's: no variant for AVX-512 without VNNI) or
// avx512vnni.
TEST(QuantizedProductsTest, RunsTheInt8KernelSetAsked) {
  const char* asked = getenv("TWL_LITE_MAX_ISA");
  if (asked == nullptr) GTEST_SKIP() << "a native build";
#if defined(__x86_64__)
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool vnni = avx2 && __builtin_cpu_supports("avx512f") &&
                    __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512vl") &&
                    __builtin_cpu_supports("avx512dq") &&
                    __builtin_cpu_supports("avx512vnni");
  const bool wants_vnni = strcmp(asked, "avx512vnni") == 0;
  const bool wants_avx2 =
      strcmp(asked, "avx2") == 0 || strcmp(asked, "avx512") == 0;
  if ((wants_vnni && !vnni) || (wants_avx2 && !avx2)) {
    GTEST_SKIP() << "this CPU lacks " << asked;
  }
  EXPECT_STREQ(Int8KernelIsa(), wants_vnni   ? "avx512vnni"
                                : wants_avx2 ? "avx2"
                                             : "sse2");
#endif
}

TEST(QuantizedBatchMatMulTest, Int32OutputOnnxExample) {
  // ONNX's MatMulInteger example.
  OpModel m;
  int a = m.AddInput(DataType::kUInt8, {4, 3});
  int b = m.AddConst<uint8_t>({3, 2}, {1, 4, 2, 5, 3, 6});
  int a_zp = m.AddConst<uint8_t>({}, {12});
  int b_zp = m.AddConst<uint8_t>({1}, {0});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL, {a, b, a_zp, b_zp}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(m.GetOutput<int32_t>(0),
            (std::vector<int32_t>{-38, -83, -44, -98, -50, -113, -56, -128}));
}

TEST(QuantizedBatchMatMulTest, RequantizesPerColumnWithTiesToEven) {
  OpModel m;
  int a = m.AddInput(DataType::kInt8, {1, 2});
  int b = m.AddConst<int8_t>({2, 2}, {1, 2, 3, 4});
  int a_zp = m.AddConst<int8_t>({}, {1});
  int b_zp = m.AddConst<int8_t>({2}, {1, -2});
  int multiplier = m.AddConst<float>({2}, {0.3125f, 0.5f});
  int y_zp = m.AddConst<int8_t>({}, {5});
  int out = m.AddOutput(DataType::kInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
          {a, b, a_zp, b_zp, multiplier, y_zp}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {2, -3});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  // acc = [(1)(0) + (-4)(2), (1)(4) + (-4)(6)] = [-8, -20];
  // -8 * 0.3125 = -2.5 -> -2 (even), + 5; -20 * 0.5 = -10, + 5.
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{3, -5}));
}

TEST(QuantizedBatchMatMulTest, BroadcastsBatchesAndSaturates) {
  OpModel m;
  int a = m.AddInput(DataType::kUInt8, {2, 1, 2});
  int b = m.AddConst<uint8_t>({2, 1}, {5, 6});
  int multiplier = m.AddConst<float>({}, {8});
  int y_zp = m.AddConst<uint8_t>({}, {0});
  int out = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
          {a, b, -1, -1, multiplier, y_zp}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {1, 2, 3, 4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 1, 1}));
  EXPECT_EQ(m.GetOutput<uint8_t>(0), (std::vector<uint8_t>{136, 255}));
}

TEST(QuantizedBatchMatMulTest, LargeMixedSignsMatchNaiveProducts) {
  const int batch = 2, rows = 37, depth = 301, cols = 29;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(batch * rows * depth);
  std::vector<int8_t> b(batch * depth * cols), b_zp(cols);
  for (auto& v : a) v = byte(rng);
  for (auto& v : b) v = byte(rng) - 128;
  for (auto& v : b_zp) v = byte(rng) - 128;
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {batch, rows, depth});
  int bt = m.AddConst<int8_t>({batch, depth, cols}, b);
  int a_zp = m.AddConst<uint8_t>({}, {131});
  int bz = m.AddConst<int8_t>({cols}, b_zp);
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL, {in, bt, a_zp, bz}, {out});
  ASSERT_TRUE(m.Build(3).ok());
  m.SetInput<uint8_t>(0, a);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  auto y = m.GetOutput<int32_t>(0);
  for (int n = 0; n < batch; ++n) {
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        int64_t want = 0;
        for (int k = 0; k < depth; ++k) {
          want += (a[(n * rows + i) * depth + k] - 131) *
                  (b[(n * depth + k) * cols + j] - b_zp[j]);
        }
        ASSERT_EQ(y[(n * rows + i) * cols + j], want) << n << i << j;
      }
    }
  }
}

TEST(QuantizedBatchMatMulTest, ComputedRightOperandAndZeroPoint) {
  // b and its zero point are graph inputs: packed per batch in eval.
  OpModel m;
  int a = m.AddInput(DataType::kUInt8, {2, 1, 3});
  int b = m.AddInput(DataType::kInt8, {2, 3, 2});
  int b_zp = m.AddInput(DataType::kInt8, {2});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL, {a, b, -1, b_zp}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {1, 2, 3, 4, 5, 6});
  m.SetInput<int8_t>(1, {1, 0, 0, 1, 1, 1, -1, 2, 0, 0, 3, -3});
  m.SetInput<int8_t>(2, {1, -1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  // Batch 0: b - zp = [[0, 1], [-1, 2], [0, 2]] -> [1*0 + 2*-1 + 3*0,
  // 1 + 4 + 6]; batch 1: [[-2, 3], [-1, 1], [2, -2]] -> [-8-5+12, 12+5-12].
  EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{-2, 11, -1, 5}));
}

// QUANTIZED_BATCH_MATMUL of int8 a [1, k] and b [k, n]; Build's status.
Status BuildMatMul(int k, int k_b, int n, int b_zp_count,
                   std::vector<float> multiplier, DataType out_type,
                   DataType a_type = DataType::kInt8) {
  OpModel m;
  int a = m.AddInput(a_type, {1, k});
  int b = m.AddConst<int8_t>({k_b, n}, std::vector<int8_t>(k_b * n, 1));
  int a_zp = m.AddConst<int8_t>({}, {0});
  int b_zp =
      m.AddConst<int8_t>({b_zp_count}, std::vector<int8_t>(b_zp_count, 0));
  std::vector<int32_t> inputs = {a, b, a_zp, b_zp};
  if (!multiplier.empty()) {
    inputs.push_back(
        m.AddConst<float>({static_cast<int>(multiplier.size())}, multiplier));
    inputs.push_back(m.AddConst<int8_t>({}, {0}));
  }
  int out = m.AddOutput(out_type);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL, inputs, {out});
  return m.Build();
}

TEST(QuantizedBatchMatMulTest, RefusesBadOperands) {
  EXPECT_TRUE(BuildMatMul(3, 3, 2, 2, {0.5f, 2}, DataType::kInt8).ok());
  for (float bad : {0.f, -1.f, NAN, INFINITY}) {
    ExpectFails(BuildMatMul(3, 3, 2, 1, {bad}, DataType::kInt8),
                "positive and finite");
  }
  ExpectFails(BuildMatMul(3, 3, 2, 1, {1, 1, 1}, DataType::kInt8),
              "needs 1 or 2");
  ExpectFails(BuildMatMul(3, 3, 2, 3, {}, DataType::kInt32),
              "one per output column");
  ExpectFails(BuildMatMul(3, 4, 2, 1, {}, DataType::kInt32),
              "inner dims differ");
  ExpectFails(BuildMatMul(3, 3, 2, 1, {}, DataType::kInt8),
              "needs a multiplier");
  ExpectFails(BuildMatMul(3, 3, 2, 1, {}, DataType::kInt32, DataType::kFloat32),
              "must be int8 or uint8");
  ExpectFails(BuildMatMul(3, 3, 2, 1, {}, DataType::kInt32, DataType::kUInt8),
              "zero point");
  ExpectFails(BuildMatMul(33026, 33026, 1, 1, {}, DataType::kInt32),
              "depth 33026 exceeds");
}

TEST(QuantizedBatchMatMulTest, ComputedMultiplierIsCheckedInEval) {
  OpModel m;
  int a = m.AddInput(DataType::kInt8, {1, 1});
  int b = m.AddConst<int8_t>({1, 1}, {3});
  int multiplier = m.AddInput(DataType::kFloat32, {});
  int y_zp = m.AddConst<int8_t>({}, {0});
  int out = m.AddOutput(DataType::kInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
          {a, b, -1, -1, multiplier, y_zp}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {5});
  m.SetInput<float>(1, {2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), std::vector<int8_t>{30});
  m.SetInput<float>(1, {0});
  ExpectFails(m.Invoke(), "positive and finite");
}

// QUANTIZED_CONV_2D of a uint8 NHWC input with an int32 output.
std::vector<int32_t> Conv(const std::vector<int32_t>& x_shape,
                          const std::vector<uint8_t>& x, uint8_t x_zp,
                          const std::vector<int32_t>& f_shape,
                          const std::vector<int8_t>& filter,
                          testing::Options options, OpModel* m) {
  int in = m->AddInput(DataType::kUInt8, x_shape);
  int f = m->AddConst<int8_t>(f_shape, filter);
  int zp = m->AddConst<uint8_t>({}, {x_zp});
  int out = m->AddOutput(DataType::kInt32);
  m->AddOp(BuiltinOperator::QUANTIZED_CONV_2D, {in, f, zp}, {out}, options);
  Status status = m->Build();
  EXPECT_TRUE(status.ok()) << status.message();
  m->SetInput<uint8_t>(0, x);
  EXPECT_TRUE(m->Invoke().ok());
  EXPECT_EQ(m->CompareWithReference(), "");
  return m->GetOutput<int32_t>(0);
}

TEST(QuantizedConv2DTest, PaddingHoldsTheZeroPoint) {
  // ONNX's ConvInteger example with pads 1.
  OpModel m;
  auto y = Conv({1, 3, 3, 1}, {2, 3, 4, 5, 6, 7, 8, 9, 10}, 1, {1, 2, 2, 1},
                {1, 1, 1, 1},
                m.builder().QuantizedConv2D(1, 1, 1, 1, 1, 1, 1, 1), &m);
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 4, 4, 1}));
  EXPECT_EQ(y, (std::vector<int32_t>{1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15,
                                     7, 15, 17, 9}));
}

TEST(QuantizedConv2DTest, StridesAndDilations) {
  std::vector<uint8_t> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i;
  OpModel strided;
  EXPECT_EQ(
      Conv({1, 4, 4, 1}, x, 0, {1, 2, 2, 1}, {1, 0, 0, 1},
           strided.builder().QuantizedConv2D(2, 2, 1, 1, 0, 0, 0, 0), &strided),
      (std::vector<int32_t>{5, 9, 21, 25}));
  OpModel dilated;
  EXPECT_EQ(
      Conv({1, 4, 4, 1}, x, 0, {1, 2, 2, 1}, {1, 0, 0, 1},
           dilated.builder().QuantizedConv2D(1, 1, 2, 2, 0, 0, 0, 0), &dilated),
      (std::vector<int32_t>{10, 12, 18, 20}));
}

TEST(QuantizedConv2DTest, PerChannelZeroPointsAndRequantization) {
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {1, 1, 1, 2});
  int f = m.AddConst<int8_t>({2, 1, 1, 2}, {1, 2, 3, 4});
  int x_zp = m.AddConst<uint8_t>({}, {1});
  int f_zp = m.AddConst<int8_t>({2}, {0, 1});
  int multiplier = m.AddConst<float>({2}, {0.25f, 0.5f});
  int y_zp = m.AddConst<uint8_t>({}, {10});
  int out = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
          {in, f, x_zp, f_zp, multiplier, y_zp}, {out},
          m.builder().QuantizedConv2D(1, 1, 1, 1, 0, 0, 0, 0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {3, 5});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  // acc = [2 * 1 + 4 * 2, 2 * 2 + 4 * 3] = [10, 16]; 2.5 -> 2, 8.
  EXPECT_EQ(m.GetOutput<uint8_t>(0), (std::vector<uint8_t>{12, 18}));
}

TEST(QuantizedConv2DTest, LargeInputOnThreadsMatchesReference) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> x(2 * 13 * 11 * 5);
  std::vector<int8_t> f(7 * 3 * 3 * 5);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  OpModel m;
  Conv({2, 13, 11, 5}, x, 100, {7, 3, 3, 5}, f,
       m.builder().QuantizedConv2D(2, 1, 1, 2, 1, 0, 2, 1), &m);
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 7, 8, 7}));
}

TEST(QuantizedConv2DTest, GroupsAndBias) {
  // x [1, 1, 2, 4]: 2 groups of 2 input channels, 4 output channels (2 per
  // group), 1x1 filter; bias per output channel.
  OpModel m;
  int in = m.AddInput(DataType::kInt8, {1, 1, 2, 4});
  int f = m.AddConst<int8_t>({4, 1, 1, 2}, {1, 0, 0, 1, 1, 1, 2, -1});
  int bias = m.AddConst<int32_t>({4}, {100, 0, -100, 2147483647});
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D, {in, f, -1, -1, -1, -1, bias},
          {out}, m.builder().QuantizedConv2D(1, 1, 1, 1, 0, 0, 0, 0));
  Status status = m.Build();
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<int8_t>(0, {1, 2, 3, 4, -1, -2, -3, -4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  // Pixel 0: group 0 (1, 2) -> [1, 2]; group 1 (3, 4) -> [7, 2]; pixel 1
  // negated. The last bias wraps: 2 + INT32_MAX -> INT32_MIN + 1.
  EXPECT_EQ(m.GetOutput<int32_t>(0),
            (std::vector<int32_t>{101, 2, -93, -2147483647, 99, -2, -107,
                                  2147483645}));
}

TEST(QuantizedConv2DTest, DepthwiseMatchesReferenceOnThreads) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> x(1 * 10 * 9 * 6);
  std::vector<int8_t> f(12 * 3 * 3 * 1);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  OpModel m;
  Conv({1, 10, 9, 6}, x, 7, {12, 3, 3, 1}, f,
       m.builder().QuantizedConv2D(1, 2, 1, 1, 1, 1, 1, 1), &m);
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 10, 5, 12}));
}

TEST(QuantizedBatchMatMulTest, BiasBeforeRequantization) {
  OpModel m;
  int a = m.AddInput(DataType::kUInt8, {1, 2});
  int b = m.AddConst<uint8_t>({2, 2}, {1, 2, 3, 4});
  int multiplier = m.AddConst<float>({}, {0.5f});
  int y_zp = m.AddConst<uint8_t>({}, {0});
  int bias = m.AddConst<int32_t>({2}, {-3, 9});
  int out = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
          {a, b, -1, -1, multiplier, y_zp, bias}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint8_t>(0, {1, 1});
  ASSERT_TRUE(m.Invoke().ok());
  // acc [4, 6] + bias [-3, 9] = [1, 15]; * 0.5 = [0.5, 7.5] -> [0, 8].
  EXPECT_EQ(m.GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 8}));
}

Status BuildConv(const std::vector<int32_t>& x_shape,
                 const std::vector<int32_t>& f_shape, int stride, int pad) {
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, x_shape);
  int64_t count = 1;
  for (int d : f_shape) count *= d;
  int f = m.AddConst<int8_t>(f_shape, std::vector<int8_t>(count, 1));
  int out = m.AddOutput(DataType::kInt32);
  m.AddOp(
      BuiltinOperator::QUANTIZED_CONV_2D, {in, f}, {out},
      m.builder().QuantizedConv2D(stride, stride, 1, 1, pad, pad, pad, pad));
  return m.Build();
}

TEST(QuantizedConv2DTest, RefusesBadGeometry) {
  EXPECT_TRUE(BuildConv({1, 3, 3, 2}, {1, 2, 2, 2}, 1, 0).ok());
  ExpectFails(BuildConv({1, 3, 3, 2}, {1, 2, 2, 3}, 1, 0), "input channels");
  ExpectFails(BuildConv({1, 3, 3, 2}, {1, 2, 2, 2}, 0, 0), "positive");
  ExpectFails(BuildConv({1, 3, 3, 2}, {1, 2, 2, 2}, 1, -1), "negative");
  ExpectFails(BuildConv({1, 3, 3, 2}, {1, 4, 4, 2}, 1, 0), "filter spans");
  ExpectFails(BuildConv({1, 3, 3}, {1, 2, 2, 2}, 1, 0), "rank");
  // 4 channels in groups of 2, but 3 output channels.
  ExpectFails(BuildConv({1, 3, 3, 4}, {3, 2, 2, 2}, 1, 0), "split into groups");
}

// The fast paths (AVX2 GEMM blocks of 4 x 3 with a k % 16 tail, the direct
// depthwise kernel in blocks of 32 channels, the vectorized requantization)
// against plain int32 loops written here, and the kernel's reference path.
TEST(QuantizedBatchMatMulTest, EdgeSizesMatchNaiveProducts) {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int m : {1, 5, 8}) {
    for (int n : {1, 2, 4, 7}) {
      for (int k : {1, 15, 16, 35}) {
        std::vector<uint8_t> a(m * k);
        std::vector<int8_t> b(k * n);
        for (auto& v : a) v = byte(rng);
        for (auto& v : b) v = byte(rng) - 128;
        OpModel model;
        int in = model.AddInput(DataType::kUInt8, {m, k});
        int rhs = model.AddConst<int8_t>({k, n}, b);
        int a_zp = model.AddConst<uint8_t>({}, {131});
        int b_zp = model.AddConst<int8_t>({}, {-3});
        int out = model.AddOutput(DataType::kInt32);
        model.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
                    {in, rhs, a_zp, b_zp}, {out});
        ASSERT_TRUE(model.Build().ok());
        model.SetInput<uint8_t>(0, a);
        ASSERT_TRUE(model.Invoke().ok());
        std::vector<int32_t> want(m * n);
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j) {
            for (int t = 0; t < k; ++t) {
              want[i * n + j] += (a[i * k + t] - 131) * (b[t * n + j] + 3);
            }
          }
        }
        EXPECT_EQ(model.GetOutput<int32_t>(0), want)
            << "m " << m << " n " << n << " k " << k;
      }
    }
  }
}

TEST(QuantizedBatchMatMulTest, RequantizationOfOddWidthsMatchesReference) {
  std::mt19937 rng(22);
  std::uniform_int_distribution<int> byte(0, 255);
  const int m = 3, k = 20, n = 11;
  std::vector<int8_t> a(m * k), b(k * n);
  for (auto& v : a) v = byte(rng) - 128;
  for (auto& v : b) v = byte(rng) - 128;
  OpModel model;
  int in = model.AddInput(DataType::kInt8, {m, k});
  int rhs = model.AddConst<int8_t>({k, n}, b);
  int multiplier =
      model.AddConst<float>({n}, {1e-3f, 2e-3f, 5e-4f, 1e-2f, 3e-3f, 7e-4f,
                                  0.5f, 4e-3f, 1e-3f, 2e-4f, 6e-3f});
  int y_zp = model.AddConst<int8_t>({}, {-5});
  int out = model.AddOutput(DataType::kInt8);
  model.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
              {in, rhs, -1, -1, multiplier, y_zp}, {out});
  ASSERT_TRUE(model.Build().ok());
  model.SetInput<int8_t>(0, a);
  ASSERT_TRUE(model.Invoke().ok());
  EXPECT_EQ(model.CompareWithReference(), "");
  // Column 6 (multiplier 0.5) saturates; eight columns run vectorized.
  std::vector<int8_t> y = model.GetOutput<int8_t>(0);
  int saturated = 0;
  for (int i = 0; i < m; ++i)
    saturated += y[i * n + 6] == -128 || y[i * n + 6] == 127;
  EXPECT_GT(saturated, 0);
}

TEST(QuantizedConv2DTest, DepthwiseDirectKernelMatchesNaive) {
  // 37 channels: one block of 32 and a tail of 5; stride 2 x 1, dilation
  // 1 x 2, uneven pads, per-channel filter zero points and a bias.
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> byte(0, 255);
  const int n = 2, h = 9, w = 11, c = 37, kh = 3, kw = 2;
  std::vector<int8_t> x(n * h * w * c), f(c * kh * kw);
  std::vector<int8_t> f_zp(c);
  std::vector<int32_t> bias(c);
  for (auto& v : x) v = byte(rng) - 128;
  for (auto& v : f) v = byte(rng) - 128;
  for (auto& v : f_zp) v = byte(rng) % 7 - 3;
  for (auto& v : bias) v = byte(rng) * 97 - 12000;
  OpModel m;
  int in = m.AddInput(DataType::kInt8, {n, h, w, c});
  int filter = m.AddConst<int8_t>({c, kh, kw, 1}, f);
  int x_zp = m.AddConst<int8_t>({}, {-20});
  int filter_zp = m.AddConst<int8_t>({c}, f_zp);
  int b = m.AddConst<int32_t>({c}, bias);
  int out = m.AddOutput(DataType::kInt32);
  // stride_h, stride_w, dilation_h, dilation_w, top, left, bottom, right.
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
          {in, filter, x_zp, filter_zp, -1, -1, b}, {out},
          m.builder().QuantizedConv2D(2, 1, 1, 2, 1, 2, 0, 1));
  Status status = m.Build();
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<int8_t>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  const int oh = (h + 1 - kh) / 2 + 1, ow = (w + 3 - (2 * (kw - 1) + 1)) + 1;
  ASSERT_EQ(m.OutputShape(0), (std::vector<int32_t>{n, oh, ow, c}));
  std::vector<int32_t> want(n * oh * ow * c);
  for (int b0 = 0; b0 < n; ++b0) {
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        for (int ch = 0; ch < c; ++ch) {
          int32_t sum = bias[ch];
          for (int ky = 0; ky < kh; ++ky) {
            for (int kx = 0; kx < kw; ++kx) {
              const int iy = oy * 2 - 1 + ky, ix = ox - 2 + 2 * kx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              sum += (x[((b0 * h + iy) * w + ix) * c + ch] + 20) *
                     (f[(ch * kh + ky) * kw + kx] - f_zp[ch]);
            }
          }
          want[((b0 * oh + oy) * ow + ox) * c + ch] = sum;
        }
      }
    }
  }
  EXPECT_EQ(m.GetOutput<int32_t>(0), want);
}

TEST(QuantizedConv2DTest, DepthwiseRequantizedOnThreadsMatchesReference) {
  std::mt19937 rng(24);
  std::uniform_int_distribution<int> byte(0, 255);
  const int c = 70;
  std::vector<uint8_t> x(1 * 15 * 14 * c);
  std::vector<int8_t> f(c * 9);
  std::vector<float> multiplier(c);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  for (auto& v : multiplier) v = 1e-4f * (1 + byte(rng));
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {1, 15, 14, c});
  int filter = m.AddConst<int8_t>({c, 3, 3, 1}, f);
  int x_zp = m.AddConst<uint8_t>({}, {128});
  int mult = m.AddConst<float>({c}, multiplier);
  int y_zp = m.AddConst<uint8_t>({}, {100});
  int out = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
          {in, filter, x_zp, -1, mult, y_zp}, {out},
          m.builder().QuantizedConv2D(1, 1, 1, 1, 1, 1, 1, 1));
  ASSERT_TRUE(m.Build(3).ok());
  m.SetInput<uint8_t>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
}

// Naive requantization: saturate(round_half_to_even(acc * multiplier) + zp).
template <typename T>
T NaiveRequantize(int32_t acc, float multiplier, int32_t zp) {
  double v = std::nearbyint(acc * static_cast<double>(multiplier)) + zp;
  v = std::min<double>(std::max<double>(v, std::numeric_limits<T>::min()),
                       std::numeric_limits<T>::max());
  return static_cast<T>(v);
}

// The panel GEMM's fused bias and requantization (the int32 accumulators
// never stored) against naive loops: 2 groups of 11 output channels (a
// block of 16 split over groups, partial vectors), stride 2 and uneven
// pads, per-channel multipliers from ties (0.5) to ones that saturate at
// both ends, int8 and uint8 outputs, one and two threads.
template <typename Y>
void CheckFusedRequantization(int threads) {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> byte(0, 255);
  const int h = 9, w = 10, c = 6, o = 22, groups = 2, cg = c / groups;
  std::vector<uint8_t> x(h * w * c);
  std::vector<int8_t> f(o * 3 * 3 * cg);
  std::vector<int32_t> bias(o);
  std::vector<float> mult(o);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  for (int j = 0; j < o; ++j) {
    bias[j] = byte(rng) * 37 - 4000;
    mult[j] = j % 3 == 0 ? 0.5f : j % 3 == 1 ? 0.25f / (j + 1) : 0.01f;
  }
  x[0] = 255;  // an extreme at the padded corner
  const int32_t x_zp = 131, y_zp = std::is_same<Y, uint8_t>::value ? 100 : -9;
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {1, h, w, c});
  int filter = m.AddConst<int8_t>({o, 3, 3, cg}, f);
  int xz = m.AddConst<uint8_t>({}, {static_cast<uint8_t>(x_zp)});
  int multiplier = m.AddConst<float>({o}, mult);
  int yz = m.AddConst<Y>({}, {static_cast<Y>(y_zp)});
  int b = m.AddConst<int32_t>({o}, bias);
  int out = m.AddOutput(std::is_same<Y, uint8_t>::value ? DataType::kUInt8
                                                        : DataType::kInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
          {in, filter, xz, -1, multiplier, yz, b}, {out},
          m.builder().QuantizedConv2D(2, 2, 1, 1, 1, 0, 2, 1));
  Status status = m.Build(threads);
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<uint8_t>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  const int oh = (h + 3 - 3) / 2 + 1, ow = (w + 1 - 3) / 2 + 1;
  ASSERT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, oh, ow, o}));
  std::vector<Y> want(oh * ow * o);
  int saturated_low = 0, saturated_high = 0;
  for (int oy = 0; oy < oh; ++oy) {
    for (int ox = 0; ox < ow; ++ox) {
      for (int j = 0; j < o; ++j) {
        const int g = j / (o / groups);
        int32_t acc = bias[j];
        for (int ky = 0; ky < 3; ++ky) {
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy * 2 - 1 + ky, ix = ox * 2 + kx;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            for (int ci = 0; ci < cg; ++ci) {
              acc += (x[(iy * w + ix) * c + g * cg + ci] - x_zp) *
                     f[((j * 3 + ky) * 3 + kx) * cg + ci];
            }
          }
        }
        const Y y = NaiveRequantize<Y>(acc, mult[j], y_zp);
        saturated_low += y == std::numeric_limits<Y>::min();
        saturated_high += y == std::numeric_limits<Y>::max();
        want[(oy * ow + ox) * o + j] = y;
      }
    }
  }
  EXPECT_GT(saturated_low, 0);
  EXPECT_GT(saturated_high, 0);
  EXPECT_EQ(m.GetOutput<Y>(0), want);
}

// 3x3 depthwise from a uint8 x into an 8-bit output (AVX-512 VNNI builds:
// DepthwiseVnniRow, 64 channels a block from byte quads of three input
// rows) against naive loops: channel counts below one block, one block,
// a block and a tail and two blocks and a tail; strides 1 and 2; pads
// from none to uneven ones wider than one; a bias; multipliers from ties to
// saturation at both ends; one and two threads.
template <typename Y>
void CheckDepthwise3x3(int c, int stride, int top, int left, int bottom,
                       int right, int threads) {
  std::mt19937 rng(c * 131 + stride * 7 + top + 3 * left);
  std::uniform_int_distribution<int> byte(0, 255);
  const int h = 9, w = 13;
  std::vector<uint8_t> x(2 * h * w * c);
  std::vector<int8_t> f(c * 9);
  std::vector<int32_t> bias(c);
  std::vector<float> mult(c);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  for (int j = 0; j < c; ++j) {
    bias[j] = byte(rng) * 61 - 7000;
    mult[j] = j % 3 == 0 ? 0.5f : j % 3 == 1 ? 0.002f * (j % 7 + 1) : 0.03f;
  }
  x[0] = 255;
  const int32_t x_zp = 117, y_zp = std::is_same<Y, uint8_t>::value ? 90 : -7;
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {2, h, w, c});
  int filter = m.AddConst<int8_t>({c, 3, 3, 1}, f);
  int xz = m.AddConst<uint8_t>({}, {static_cast<uint8_t>(x_zp)});
  int multiplier = m.AddConst<float>({c}, mult);
  int yz = m.AddConst<Y>({}, {static_cast<Y>(y_zp)});
  int b = m.AddConst<int32_t>({c}, bias);
  int out = m.AddOutput(std::is_same<Y, uint8_t>::value ? DataType::kUInt8
                                                        : DataType::kInt8);
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
          {in, filter, xz, -1, multiplier, yz, b}, {out},
          m.builder().QuantizedConv2D(stride, stride, 1, 1, top, left, bottom,
                                      right));
  Status status = m.Build(threads);
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<uint8_t>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  const int oh = (h + top + bottom - 3) / stride + 1;
  const int ow = (w + left + right - 3) / stride + 1;
  ASSERT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, oh, ow, c}));
  std::vector<Y> want(2 * oh * ow * c);
  int saturated_low = 0, saturated_high = 0;
  for (int n = 0; n < 2; ++n) {
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        for (int j = 0; j < c; ++j) {
          int32_t acc = bias[j];
          for (int ky = 0; ky < 3; ++ky) {
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = oy * stride - top + ky;
              const int ix = ox * stride - left + kx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              acc += (x[((n * h + iy) * w + ix) * c + j] - x_zp) *
                     f[j * 9 + ky * 3 + kx];
            }
          }
          const Y y = NaiveRequantize<Y>(acc, mult[j], y_zp);
          saturated_low += y == std::numeric_limits<Y>::min();
          saturated_high += y == std::numeric_limits<Y>::max();
          want[((n * oh + oy) * ow + ox) * c + j] = y;
        }
      }
    }
  }
  EXPECT_GT(saturated_low, 0);
  EXPECT_GT(saturated_high, 0);
  EXPECT_EQ(m.GetOutput<Y>(0), want)
      << "c " << c << " stride " << stride << " pads " << top << left << bottom
      << right << " threads " << threads;
}

TEST(QuantizedConv2DTest, Depthwise3x3UInt8MatchesNaive) {
  for (int c : {5, 32, 64, 70, 144}) {
    CheckDepthwise3x3<uint8_t>(c, 1, 1, 1, 1, 1, 1);
    CheckDepthwise3x3<uint8_t>(c, 2, 1, 1, 1, 1, 2);
    CheckDepthwise3x3<uint8_t>(c, 2, 0, 0, 1, 1, 1);
  }
  CheckDepthwise3x3<uint8_t>(37, 1, 0, 2, 2, 0, 2);
  CheckDepthwise3x3<uint8_t>(37, 2, 2, 0, 0, 3, 1);
}

TEST(QuantizedConv2DTest, Depthwise3x3Int8OutputMatchesNaive) {
  for (int c : {19, 96}) {
    CheckDepthwise3x3<int8_t>(c, 1, 1, 1, 1, 1, 2);
    CheckDepthwise3x3<int8_t>(c, 2, 0, 1, 1, 0, 1);
  }
}

// Requantization next to ties: multipliers one float ulp above and below
// 0.5 and 0.25 and ones with full mantissas (whose float products can round
// onto a half), with biases that keep every sum within 2^24 (the VNNI
// kernels requantize in float) and biases past it (in double), for a
// pointwise convolution and a 3x3 depthwise one, against naive loops.
void CheckNearTies(bool depthwise, int32_t bias_base) {
  std::mt19937 rng(depthwise ? 41 : 43);
  std::uniform_int_distribution<int> byte(0, 255);
  const int h = 6, w = 7, c = 40, o = depthwise ? c : 48;
  const int kernel = depthwise ? 3 : 1, fc = depthwise ? 1 : c;
  std::vector<uint8_t> x(h * w * c);
  std::vector<int8_t> f(o * kernel * kernel * fc);
  std::vector<int32_t> bias(o);
  std::vector<float> mult(o);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  const float near[] = {std::nextafter(0.5f, 1.0f), std::nextafter(0.5f, 0.0f),
                        std::nextafter(0.25f, 1.0f),
                        std::nextafter(0.25f, 0.0f)};
  for (int j = 0; j < o; ++j) {
    bias[j] = bias_base + byte(rng) * 3;
    const float m = j % 2 ? near[j / 2 % 4] : 0.3f / (j + 7);
    mult[j] = bias_base == 0 ? m : m / 2097152;
  }
  const int32_t x_zp = 120, y_zp = 128;
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {1, h, w, c});
  int filter = m.AddConst<int8_t>({o, kernel, kernel, fc}, f);
  int xz = m.AddConst<uint8_t>({}, {static_cast<uint8_t>(x_zp)});
  int multiplier = m.AddConst<float>({o}, mult);
  int yz = m.AddConst<uint8_t>({}, {static_cast<uint8_t>(y_zp)});
  int b = m.AddConst<int32_t>({o}, bias);
  int out = m.AddOutput(DataType::kUInt8);
  const int pad = kernel / 2;
  m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
          {in, filter, xz, -1, multiplier, yz, b}, {out},
          m.builder().QuantizedConv2D(1, 1, 1, 1, pad, pad, pad, pad));
  Status status = m.Build();
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<uint8_t>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  std::vector<uint8_t> want(h * w * o);
  for (int oy = 0; oy < h; ++oy) {
    for (int ox = 0; ox < w; ++ox) {
      for (int j = 0; j < o; ++j) {
        int32_t acc = bias[j];
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            const int iy = oy - pad + ky, ix = ox - pad + kx;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            for (int ci = 0; ci < fc; ++ci) {
              const int channel = depthwise ? j : ci;
              acc += (x[(iy * w + ix) * c + channel] - x_zp) *
                     f[((j * kernel + ky) * kernel + kx) * fc + ci];
            }
          }
        }
        want[(oy * w + ox) * o + j] =
            NaiveRequantize<uint8_t>(acc, mult[j], y_zp);
      }
    }
  }
  EXPECT_EQ(m.GetOutput<uint8_t>(0), want)
      << (depthwise ? "depthwise" : "pointwise") << " bias " << bias_base;
}

TEST(QuantizedConv2DTest, RequantizationNextToTiesMatchesNaive) {
  for (bool depthwise : {false, true}) {
    CheckNearTies(depthwise, 0);
    CheckNearTies(depthwise, 1 << 25);
    CheckNearTies(depthwise, -(1 << 25));
  }
}

TEST(QuantizedConv2DTest, FusedRequantizationMatchesNaiveUInt8) {
  CheckFusedRequantization<uint8_t>(1);
  CheckFusedRequantization<uint8_t>(2);
}

TEST(QuantizedConv2DTest, FusedRequantizationMatchesNaiveInt8) {
  CheckFusedRequantization<int8_t>(1);
  CheckFusedRequantization<int8_t>(2);
}

// The AVX2 pair kernel of depthwise at the operands' extremes: (x - x_zp) =
// -255 and (w - w_zp) = -255 in every tap, two taps per int32 lane
// (130050), 3x3 stride 2 with padding, 48 channels (three blocks of 16) and
// an odd 19 (one block and a tail); the count of taps inside the image
// times 65025 per output.
TEST(QuantizedConv2DTest, DepthwiseAtTheExtremesStride2) {
  for (int c : {48, 19}) {
    const int h = 7, w = 6;
    OpModel m;
    int in = m.AddInput(DataType::kUInt8, {1, h, w, c});
    int filter = m.AddConst<int8_t>({c, 3, 3, 1},
                                    std::vector<int8_t>(c * 9, int8_t{-128}));
    int x_zp = m.AddConst<uint8_t>({}, {255});
    int f_zp = m.AddConst<int8_t>({}, {127});
    int out = m.AddOutput(DataType::kInt32);
    m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D, {in, filter, x_zp, f_zp}, {out},
            m.builder().QuantizedConv2D(2, 2, 1, 1, 1, 1, 1, 1));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<uint8_t>(0, std::vector<uint8_t>(h * w * c, 0));
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.CompareWithReference(), "");
    const int oh = (h + 2 - 3) / 2 + 1, ow = (w + 2 - 3) / 2 + 1;
    ASSERT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, oh, ow, c}));
    std::vector<int32_t> want;
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        int inside = 0;
        for (int ky = 0; ky < 3; ++ky) {
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
            inside += iy >= 0 && iy < h && ix >= 0 && ix < w;
          }
        }
        for (int ch = 0; ch < c; ++ch) want.push_back(inside * 65025);
      }
    }
    EXPECT_EQ(m.GetOutput<int32_t>(0), want) << c << " channels";
  }
}

// Ungrouped convolutions of a uint8 x with an int8 filter and an 8-bit
// output (the VNNI GEMM where the build has it) against naive loops:
// `kernel` x `kernel` at `stride` with pads of kernel / 2, c input and o
// output channels (o = 40: two blocks of 16 and a partial one), a filter
// zero point f_zp (100 puts w - f_zp outside int8: the other GEMM runs),
// per-channel multipliers from ties to saturation at both ends.
template <typename Y>
void CheckUngroupedConv(int threads, int h, int w, int c, int o, int kernel,
                        int stride, int f_zp) {
  std::mt19937 rng(37);
  std::uniform_int_distribution<int> byte(0, 255);
  const int pad = kernel / 2;
  std::vector<uint8_t> x(h * w * c);
  std::vector<int8_t> f(o * kernel * kernel * c);
  std::vector<int32_t> bias(o);
  std::vector<float> mult(o);
  for (auto& v : x) v = byte(rng);
  for (auto& v : f) v = byte(rng) - 128;
  for (int j = 0; j < o; ++j) {
    bias[j] = byte(rng) * 37 - 4000;
    mult[j] = j % 3 == 0 ? 0.5f : j % 3 == 1 ? 0.25f / (j + 1) : 0.002f;
  }
  const int32_t x_zp = 131, y_zp = std::is_same<Y, uint8_t>::value ? 100 : -9;
  OpModel m;
  int in = m.AddInput(DataType::kUInt8, {1, h, w, c});
  int filter = m.AddConst<int8_t>({o, kernel, kernel, c}, f);
  int xz = m.AddConst<uint8_t>({}, {static_cast<uint8_t>(x_zp)});
  int fz = m.AddConst<int8_t>({}, {static_cast<int8_t>(f_zp)});
  int multiplier = m.AddConst<float>({o}, mult);
  int yz = m.AddConst<Y>({}, {static_cast<Y>(y_zp)});
  int b = m.AddConst<int32_t>({o}, bias);
  int out = m.AddOutput(std::is_same<Y, uint8_t>::value ? DataType::kUInt8
                                                        : DataType::kInt8);
  m.AddOp(
      BuiltinOperator::QUANTIZED_CONV_2D,
      {in, filter, xz, fz, multiplier, yz, b}, {out},
      m.builder().QuantizedConv2D(stride, stride, 1, 1, pad, pad, pad, pad));
  Status status = m.Build(threads);
  ASSERT_TRUE(status.ok()) << status.message();
  m.SetInput<uint8_t>(0, x);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  const int oh = (h + 2 * pad - kernel) / stride + 1;
  const int ow = (w + 2 * pad - kernel) / stride + 1;
  ASSERT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, oh, ow, o}));
  std::vector<Y> want(oh * ow * o);
  int saturated_low = 0, saturated_high = 0;
  for (int oy = 0; oy < oh; ++oy) {
    for (int ox = 0; ox < ow; ++ox) {
      for (int j = 0; j < o; ++j) {
        int32_t acc = bias[j];
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            const int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            for (int ci = 0; ci < c; ++ci) {
              acc += (x[(iy * w + ix) * c + ci] - x_zp) *
                     (f[((j * kernel + ky) * kernel + kx) * c + ci] - f_zp);
            }
          }
        }
        const Y y = NaiveRequantize<Y>(acc, mult[j], y_zp);
        saturated_low += y == std::numeric_limits<Y>::min();
        saturated_high += y == std::numeric_limits<Y>::max();
        want[(oy * ow + ox) * o + j] = y;
      }
    }
  }
  EXPECT_GT(saturated_low, 0);
  EXPECT_GT(saturated_high, 0);
  EXPECT_EQ(m.GetOutput<Y>(0), want);
}

TEST(QuantizedConv2DTest, PointwiseMatchesNaive) {
  for (int threads : {1, 2}) {
    // Depth 24: the GEMM reads x itself; 56x56 rows span several chunks.
    CheckUngroupedConv<uint8_t>(threads, 56, 56, 24, 40, 1, 1, 0);
    CheckUngroupedConv<int8_t>(threads, 13, 11, 24, 40, 1, 1, 0);
    // Depth 6: byte patches padded to 8.
    CheckUngroupedConv<uint8_t>(threads, 13, 11, 6, 40, 1, 1, 0);
    // Values of w - f_zp outside int8.
    CheckUngroupedConv<uint8_t>(threads, 13, 11, 24, 40, 1, 1, 100);
    // Six output channels: only a partial vector of columns (AVX2 builds:
    // the panel GEMM's masked bias and multipliers).
    CheckUngroupedConv<uint8_t>(threads, 7, 6, 4, 6, 3, 2, 0);
    CheckUngroupedConv<uint8_t>(threads, 7, 6, 4, 6, 1, 1, 0);
  }
}

TEST(QuantizedConv2DTest, UngroupedStridedMatchesNaive) {
  for (int threads : {1, 2}) {
    // A stem: 3x3 stride 2 over 3 channels (depth 27), 1x1 stride 2.
    CheckUngroupedConv<uint8_t>(threads, 17, 15, 3, 40, 3, 2, 0);
    CheckUngroupedConv<int8_t>(threads, 17, 15, 3, 40, 3, 2, -3);
    CheckUngroupedConv<uint8_t>(threads, 17, 15, 8, 40, 1, 2, 0);
  }
}

// Depthwise with an int8 output from one multiplier (AVX-512 builds
// requantize in registers, the last block of 32 channels masked) at channel
// counts below, at and past the blocks, against the reference.
TEST(QuantizedConv2DTest, DepthwiseInt8OutputMatchesReference) {
  for (int c : {5, 16, 37, 96}) {
    std::mt19937 rng(c);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<int8_t> x(2 * 9 * 8 * c), f(c * 9);
    for (auto& v : x) v = byte(rng) - 128;
    for (auto& v : f) v = byte(rng) - 128;
    OpModel m;
    int in = m.AddInput(DataType::kInt8, {2, 9, 8, c});
    int filter = m.AddConst<int8_t>({c, 3, 3, 1}, f);
    int x_zp = m.AddConst<int8_t>({}, {-3});
    int mult = m.AddConst<float>({}, {0.02f});
    int y_zp = m.AddConst<int8_t>({}, {7});
    int out = m.AddOutput(DataType::kInt8);
    m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
            {in, filter, x_zp, -1, mult, y_zp}, {out},
            m.builder().QuantizedConv2D(2, 1, 1, 1, 1, 1, 1, 1));
    ASSERT_TRUE(m.Build(2).ok());
    m.SetInput<int8_t>(0, x);
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.CompareWithReference(), "") << c << " channels";
    const auto y = m.GetOutput<int8_t>(0);
    EXPECT_NE(std::find(y.begin(), y.end(), int8_t{127}), y.end());
    EXPECT_NE(std::find(y.begin(), y.end(), int8_t{-128}), y.end());
  }
}

// 5x5 depthwise from an int8 x (25 taps: the pair kernels' last pair has
// one tap) at 48 channels (three blocks of 16: AVX2 builds requantize in
// registers, in float while every sum stays within 2^24) and 40 (a tail),
// stride 2 with uneven pads, per-channel multipliers and a bias, then a
// bias past 2^24 (requantized in double), against naive loops.
TEST(QuantizedConv2DTest, Depthwise5x5Int8InputMatchesNaive) {
  for (int c : {48, 40}) {
    for (int32_t bias_base : {-3000, 20000000}) {
      std::mt19937 rng(c + bias_base);
      std::uniform_int_distribution<int> byte(0, 255);
      const int h = 11, w = 10;
      std::vector<int8_t> x(h * w * c), f(c * 25);
      std::vector<int32_t> bias(c);
      std::vector<float> mult(c);
      for (auto& v : x) v = byte(rng) - 128;
      for (auto& v : f) v = byte(rng) - 128;
      for (int j = 0; j < c; ++j) {
        bias[j] = bias_base + byte(rng) * 41 * (j % 2 ? 1 : -1);
        mult[j] = bias_base > 1000000 ? 1.0f / (1 << 17) * (j % 5 + 1)
                  : j % 3 == 0        ? 0.5f
                                      : 0.001f * (j % 7 + 1);
      }
      const int32_t x_zp = -5, y_zp = 11;
      OpModel m;
      int in = m.AddInput(DataType::kInt8, {1, h, w, c});
      int filter = m.AddConst<int8_t>({c, 5, 5, 1}, f);
      int xz = m.AddConst<int8_t>({}, {static_cast<int8_t>(x_zp)});
      int multiplier = m.AddConst<float>({c}, mult);
      int yz = m.AddConst<uint8_t>({}, {static_cast<uint8_t>(y_zp)});
      int b = m.AddConst<int32_t>({c}, bias);
      int out = m.AddOutput(DataType::kUInt8);
      m.AddOp(BuiltinOperator::QUANTIZED_CONV_2D,
              {in, filter, xz, -1, multiplier, yz, b}, {out},
              m.builder().QuantizedConv2D(2, 2, 1, 1, 2, 1, 1, 2));
      ASSERT_TRUE(m.Build(2).ok());
      m.SetInput<int8_t>(0, x);
      ASSERT_TRUE(m.Invoke().ok());
      EXPECT_EQ(m.CompareWithReference(), "");
      const int oh = (h + 3 - 5) / 2 + 1, ow = (w + 3 - 5) / 2 + 1;
      ASSERT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, oh, ow, c}));
      std::vector<uint8_t> want(oh * ow * c);
      for (int oy = 0; oy < oh; ++oy) {
        for (int ox = 0; ox < ow; ++ox) {
          for (int j = 0; j < c; ++j) {
            int32_t acc = bias[j];
            for (int ky = 0; ky < 5; ++ky) {
              for (int kx = 0; kx < 5; ++kx) {
                const int iy = oy * 2 - 2 + ky, ix = ox * 2 - 1 + kx;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                acc +=
                    (x[(iy * w + ix) * c + j] - x_zp) * f[j * 25 + ky * 5 + kx];
              }
            }
            want[(oy * ow + ox) * c + j] =
                NaiveRequantize<uint8_t>(acc, mult[j], y_zp);
          }
        }
      }
      EXPECT_EQ(m.GetOutput<uint8_t>(0), want)
          << c << " channels, bias " << bias_base;
    }
  }
}

// uint8 a times one int8 b (the VNNI GEMM where the build has it at a depth
// that is a multiple of 4; 30 runs the other GEMM) over batches of a, a
// bias and per-column multipliers from ties to saturation, against naive
// loops.
TEST(QuantizedBatchMatMulTest, UInt8TimesInt8MatchesNaive) {
  for (int k : {64, 30}) {
    std::mt19937 rng(k);
    std::uniform_int_distribution<int> byte(0, 255);
    const int batches = 2, m = 5, n = 40;
    const int32_t a_zp = 120, y_zp = 90;
    std::vector<uint8_t> a(batches * m * k);
    std::vector<int8_t> b(k * n);
    std::vector<int32_t> bias(n);
    std::vector<float> mult(n);
    for (auto& v : a) v = byte(rng);
    for (auto& v : b) v = byte(rng) - 128;
    for (int j = 0; j < n; ++j) {
      bias[j] = byte(rng) * 41 - 5000;
      mult[j] = j % 3 == 0 ? 0.5f : j % 3 == 1 ? 0.02f / (j + 1) : 0.004f;
    }
    OpModel model;
    int in = model.AddInput(DataType::kUInt8, {batches, m, k});
    int rhs = model.AddConst<int8_t>({k, n}, b);
    int az = model.AddConst<uint8_t>({}, {static_cast<uint8_t>(a_zp)});
    int multiplier = model.AddConst<float>({n}, mult);
    int yz = model.AddConst<uint8_t>({}, {static_cast<uint8_t>(y_zp)});
    int bb = model.AddConst<int32_t>({n}, bias);
    int out = model.AddOutput(DataType::kUInt8);
    model.AddOp(BuiltinOperator::QUANTIZED_BATCH_MATMUL,
                {in, rhs, az, -1, multiplier, yz, bb}, {out});
    ASSERT_TRUE(model.Build().ok());
    model.SetInput<uint8_t>(0, a);
    ASSERT_TRUE(model.Invoke().ok());
    EXPECT_EQ(model.CompareWithReference(), "");
    std::vector<uint8_t> want(batches * m * n);
    for (int i = 0; i < batches * m; ++i) {
      for (int j = 0; j < n; ++j) {
        int32_t acc = bias[j];
        for (int kk = 0; kk < k; ++kk) {
          acc += (a[i * k + kk] - a_zp) * b[kk * n + j];
        }
        want[i * n + j] = NaiveRequantize<uint8_t>(acc, mult[j], y_zp);
      }
    }
    EXPECT_EQ(model.GetOutput<uint8_t>(0), want) << "depth " << k;
    EXPECT_NE(std::find(want.begin(), want.end(), 0), want.end());
    EXPECT_NE(std::find(want.begin(), want.end(), 255), want.end());
  }
}

}  // namespace
}  // namespace twl
