#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(MeanTest, AxesAndKeepDims) {
  for (bool keep : {false, true}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, 3, 2});
    int axes = m.AddConst<int32_t>({2}, {0, -1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::MEAN, {x, axes}, {y}, m.builder().Reducer(keep));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    ASSERT_TRUE(m.Invoke().ok());
    // numpy: np.arange(12).reshape(2,3,2).mean(axis=(0,2)) = [3.5, 5.5, 7.5]
    EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{3.5f, 5.5f, 7.5f}));
    EXPECT_EQ(m.OutputShape(0), keep ? (std::vector<int32_t>{1, 3, 1})
                                     : (std::vector<int32_t>{3}));
  }
}

// NHWC global pooling: H and W reduced, C (the last dim) kept, with more
// channels than the kernel sums at once, batch 2 (runs of C outputs), on
// 1 and 2 threads: each output is the double sum of its elements in order.
TEST(MeanTest, LastDimKeptMatchesOrderedDoubleSum) {
  const int n = 2, h = 5, w = 3, c = 70;
  std::vector<float> in(n * h * w * c);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = std::sin(static_cast<float>(i)) * 1e3f + 1e-3f * (i % 7);
  }
  for (auto op : {BuiltinOperator::MEAN, BuiltinOperator::REDUCE_SUM}) {
    for (int threads : {1, 2}) {
      OpModel m;
      int x = m.AddInput(DataType::kFloat32, {n, h, w, c});
      int axes = m.AddConst<int32_t>({2}, {1, 2});
      int y = m.AddOutput(DataType::kFloat32);
      m.AddOp(op, {x, axes}, {y}, m.builder().Reducer(true));
      ASSERT_TRUE(m.Build(threads).ok());
      m.SetInput<float>(0, in);
      ASSERT_TRUE(m.Invoke().ok());
      EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{n, 1, 1, c}));
      std::vector<float> want(n * c);
      for (int b = 0; b < n; ++b) {
        for (int k = 0; k < c; ++k) {
          double sum = 0;
          for (int p = 0; p < h * w; ++p) sum += in[(b * h * w + p) * c + k];
          if (op == BuiltinOperator::MEAN) sum /= h * w;
          want[b * c + k] = static_cast<float>(sum);
        }
      }
      EXPECT_EQ(m.GetOutput<float>(0), want);
    }
  }
}

TEST(MeanTest, Int32Truncates) {
  OpModel m;
  int x = m.AddInput(DataType::kInt32, {2, 2});
  int axes = m.AddConst<int32_t>({1}, {1});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::MEAN, {x, axes}, {y}, m.builder().Reducer(false));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(0, {1, 2, -3, -4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{1, -3}));
}

// Runs reduction `op` over `axes` of x [2, 3, 2] = arange(12) as type T.
template <typename T>
std::vector<T> Reduce(BuiltinOperator op, DataType type,
                      std::vector<int32_t> axes, bool keep,
                      std::vector<int32_t>* shape = nullptr) {
  OpModel m;
  int x = m.AddInput(type, {2, 3, 2});
  int a = m.AddConst<int32_t>({static_cast<int32_t>(axes.size())}, axes);
  int y = m.AddOutput(type);
  m.AddOp(op, {x, a}, {y}, m.builder().Reducer(keep));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  std::vector<T> in(12);
  for (int i = 0; i < 12; ++i) in[i] = static_cast<T>(i - 2);
  m.SetInput<T>(0, in);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  if (shape != nullptr) *shape = m.OutputShape(0);
  return m.GetOutput<T>(0);
}

TEST(ReduceTest, SumProdMaxMinOverNonAdjacentAxes) {
  // x = arange(12).reshape(2,3,2) - 2, reduced over axes (0, 2):
  // groups {-2,-1,4,5}, {0,1,6,7}, {2,3,8,9}.
  std::vector<int32_t> shape;
  EXPECT_EQ(Reduce<float>(BuiltinOperator::REDUCE_SUM, DataType::kFloat32,
                          {0, -1}, true, &shape),
            (std::vector<float>{6, 14, 22}));
  EXPECT_EQ(shape, (std::vector<int32_t>{1, 3, 1}));
  EXPECT_EQ(Reduce<int64_t>(BuiltinOperator::REDUCE_PROD, DataType::kInt64,
                            {0, 2}, false, &shape),
            (std::vector<int64_t>{40, 0, 432}));
  EXPECT_EQ(shape, (std::vector<int32_t>{3}));
  EXPECT_EQ(Reduce<int32_t>(BuiltinOperator::REDUCE_MAX, DataType::kInt32,
                            {0, 2}, false),
            (std::vector<int32_t>{5, 7, 9}));
  EXPECT_EQ(Reduce<double>(BuiltinOperator::REDUCE_MIN, DataType::kFloat64,
                           {0, 2}, false),
            (std::vector<double>{-2, 0, 2}));
  // All axes, and axis 1 alone (a strided inner loop).
  EXPECT_EQ(Reduce<float>(BuiltinOperator::REDUCE_SUM, DataType::kFloat32,
                          {0, 1, 2}, false, &shape),
            (std::vector<float>{42}));
  EXPECT_EQ(shape, (std::vector<int32_t>{}));
  EXPECT_EQ(Reduce<int64_t>(BuiltinOperator::REDUCE_SUM, DataType::kInt64, {1},
                            false),
            (std::vector<int64_t>{0, 3, 18, 21}));
}

TEST(ReduceTest, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (BuiltinOperator op :
       {BuiltinOperator::REDUCE_MAX, BuiltinOperator::REDUCE_MIN}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, 3});
    int a = m.AddConst<int32_t>({1}, {1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(op, {x, a}, {y}, m.builder().Reducer(false));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {1, nan, 3, 4, 5, 6});
    ASSERT_TRUE(m.Invoke().ok());
    std::vector<float> got = m.GetOutput<float>(0);
    EXPECT_TRUE(std::isnan(got[0]));
    EXPECT_EQ(got[1], op == BuiltinOperator::REDUCE_MAX ? 6.f : 4.f);
  }
}

TEST(ReduceTest, BoolMaxIsAnyMinIsAll) {
  for (BuiltinOperator op :
       {BuiltinOperator::REDUCE_MAX, BuiltinOperator::REDUCE_MIN}) {
    OpModel m;
    int x = m.AddInput(DataType::kBool, {3, 2});
    int a = m.AddConst<int32_t>({1}, {1});
    int y = m.AddOutput(DataType::kBool);
    m.AddOp(op, {x, a}, {y}, m.builder().Reducer(false));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<uint8_t>(0, {0, 0, 0, 9, 2, 1});  // any non-zero byte is true
    ASSERT_TRUE(m.Invoke().ok());
    std::vector<uint8_t> got(3);
    const uint8_t* out = m.interpreter()->output(0)->data_as<uint8_t>();
    got.assign(out, out + 3);  // written as 0 or 1
    EXPECT_EQ(got, op == BuiltinOperator::REDUCE_MAX
                       ? (std::vector<uint8_t>{0, 1, 1})
                       : (std::vector<uint8_t>{0, 0, 1}));
  }
}

TEST(ReduceTest, EmptySetGivesTheIdentity) {
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    BuiltinOperator op;
    float want;
  };
  for (const Case& c : {Case{BuiltinOperator::REDUCE_SUM, 0.f},
                        Case{BuiltinOperator::REDUCE_PROD, 1.f},
                        Case{BuiltinOperator::REDUCE_MAX, -inf},
                        Case{BuiltinOperator::REDUCE_MIN, inf}}) {
    // x [2, 0, 3]: an empty slice of a [2, 1, 3] input.
    OpModel m;
    int in = m.AddInput(DataType::kFloat32, {2, 1, 3});
    int begin = m.AddConst<int32_t>({3}, {0, 0, 0});
    int size = m.AddConst<int32_t>({3}, {2, 0, 3});
    int x = m.AddTensor(DataType::kFloat32);
    m.AddOp(BuiltinOperator::SLICE, {in, begin, size}, {x});
    int a = m.AddConst<int32_t>({1}, {1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(c.op, {x, a}, {y}, m.builder().Reducer(true));
    Status s = m.Build();
    ASSERT_TRUE(s.ok()) << s.message();
    m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 1, 3}));
    EXPECT_EQ(m.GetOutput<float>(0), std::vector<float>(6, c.want));
  }
}

TEST(ReduceTest, IntegerSumWrapsAndLargeInputSplitsAcrossThreads) {
  OpModel m;
  const int rows = 3000, cols = 20;
  int x = m.AddInput(DataType::kInt32, {rows, cols});
  int a = m.AddConst<int32_t>({1}, {1});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::REDUCE_SUM, {x, a}, {y}, m.builder().Reducer(false));
  ASSERT_TRUE(m.Build(4).ok());
  std::vector<int32_t> in(rows * cols);
  for (int i = 0; i < rows * cols; ++i) in[i] = i % 2 ? 0x7fffffff : i;
  m.SetInput<int32_t>(0, in);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  std::vector<int32_t> got = m.GetOutput<int32_t>(0);
  for (int r = 0; r < rows; ++r) {
    uint32_t want = 0;
    for (int c = 0; c < cols; ++c)
      want += static_cast<uint32_t>(in[r * cols + c]);
    ASSERT_EQ(got[r], static_cast<int32_t>(want)) << r;
  }
}

TEST(ReduceTest, RejectsBadAxesAndTypes) {
  {
    OpModel m;  // axis out of range
    int x = m.AddInput(DataType::kFloat32, {2, 3});
    int a = m.AddConst<int32_t>({1}, {2});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::REDUCE_SUM, {x, a}, {y},
            m.builder().Reducer(false));
    EXPECT_FALSE(m.Build().ok());
  }
  {
    OpModel m;  // axes not constant
    int x = m.AddInput(DataType::kFloat32, {2, 3});
    int a = m.AddInput(DataType::kInt32, {1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::REDUCE_MAX, {x, a}, {y},
            m.builder().Reducer(false));
    EXPECT_FALSE(m.Build().ok());
  }
  for (auto [op, type, out] : {
           std::tuple{BuiltinOperator::REDUCE_SUM, DataType::kBool,
                      DataType::kBool},
           std::tuple{BuiltinOperator::REDUCE_PROD, DataType::kInt8,
                      DataType::kInt8},
           std::tuple{BuiltinOperator::REDUCE_MIN, DataType::kFloat32,
                      DataType::kInt32},
       }) {
    OpModel m;
    int x = m.AddInput(type, {2, 3});
    int a = m.AddConst<int32_t>({1}, {0});
    int y = m.AddOutput(out);
    m.AddOp(op, {x, a}, {y}, m.builder().Reducer(false));
    EXPECT_FALSE(m.Build().ok());
  }
}

}  // namespace
}  // namespace twl
