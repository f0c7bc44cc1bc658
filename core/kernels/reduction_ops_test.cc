// Reductions, ArgMax/ArgMin and BroadcastGradientArgs against plain loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrBool;
using test::AttrType;
using test::MakeTensor;
using test::MessageHas;
using test::RunOne;
using test::RunOp;
using test::ToVector;

// The oracle: out[kept index] combines every input element mapping to it.
template <typename T, typename F>
std::vector<T> ReferenceReduce(const std::vector<T>& x,
                               const std::vector<int64_t>& dims,
                               const std::vector<bool>& reduced, T init, F f) {
  int64_t out_size = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!reduced[d]) out_size *= dims[d];
  }
  std::vector<T> out(out_size, init);
  std::vector<int64_t> idx(dims.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!reduced[d]) o = o * dims[d] + idx[d];
    }
    out[o] = f(out[o], x[i]);
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::vector<double> RandomValues(int64_t n, int seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

TEST(ReductionOpsTest, EverySubsetOfAxesMatchesTheReference) {
  const std::vector<int64_t> dims = {3, 1, 4, 5};
  const std::vector<double> x = RandomValues(60, 1);
  Tensor input = MakeTensor<double>(TensorShape(dims), x);
  for (int mask = 0; mask < 16; ++mask) {
    std::vector<int32_t> axes;
    std::vector<bool> reduced(4);
    for (int d = 0; d < 4; ++d) {
      reduced[d] = mask & (1 << d);
      // Negative spellings of the same axes are accepted too.
      if (reduced[d]) axes.push_back(d % 2 ? d - 4 : d);
    }
    Tensor axes_t = MakeTensor<int32_t>(
        TensorShape({static_cast<int64_t>(axes.size())}), axes);
    for (bool keep : {false, true}) {
      test::Attrs attrs = {{"keep_dims", AttrBool(keep)}};
      Tensor sum = RunOne("Sum", {input, axes_t}, attrs);
      Tensor max = RunOne("Max", {input, axes_t}, attrs);
      std::vector<double> want_sum = ReferenceReduce<double>(
          x, dims, reduced, 0.0, [](double a, double b) { return a + b; });
      std::vector<double> want_max = ReferenceReduce<double>(
          x, dims, reduced, -1e300,
          [](double a, double b) { return std::max(a, b); });
      std::vector<double> got_sum = ToVector<double>(sum);
      ASSERT_EQ(got_sum.size(), want_sum.size()) << mask;
      for (size_t i = 0; i < want_sum.size(); ++i) {
        EXPECT_NEAR(got_sum[i], want_sum[i], 1e-12) << mask;
      }
      EXPECT_EQ(ToVector<double>(max), want_max) << mask;
      EXPECT_EQ(sum.rank(), keep ? 4 : 4 - static_cast<int>(axes.size()));
    }
  }
}

TEST(ReductionOpsTest, LargeInputsInParallel) {
  // Bias-gradient shape (first axis), long rows (last axis), and a reduce-all
  // big enough to be split across threads.
  for (const auto& dims :
       std::vector<std::vector<int64_t>>{{128, 512}, {3, 200000}, {700000}}) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    Tensor input = MakeTensor<float>(TensorShape(dims), x);
    for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
      std::vector<bool> reduced(dims.size(), false);
      reduced[axis] = true;
      Tensor out = RunOne("Sum", {input, Tensor::Scalar<int32_t>(axis)});
      std::vector<float> want = ReferenceReduce<float>(
          x, dims, reduced, 0.0f, [](float a, float b) { return a + b; });
      std::vector<float> got = ToVector<float>(out);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-3 * (1 + std::abs(want[i]))) << i;
      }
    }
  }
}

TEST(ReductionOpsTest, MeanProdMinAllAny) {
  Tensor x = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 7});
  Tensor axis1 = Tensor::Scalar<int32_t>(1);
  EXPECT_EQ(ToVector<int32_t>(RunOne("Mean", {x, axis1})),
            (std::vector<int32_t>{2, 5}));  // 16 / 3 truncates
  EXPECT_EQ(ToVector<int32_t>(RunOne("Prod", {x, Tensor::Scalar<int64_t>(0)},
                                     {{"Tidx", AttrType(DT_INT64)}})),
            (std::vector<int32_t>{4, 10, 21}));
  EXPECT_EQ(ToVector<int32_t>(RunOne("Min", {x, axis1})),
            (std::vector<int32_t>{1, 4}));
  Tensor b = MakeTensor<bool>({2, 2}, {true, false, true, true});
  EXPECT_EQ(ToVector<bool>(RunOne("All", {b, axis1})),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(ToVector<bool>(RunOne("Any", {b, Tensor::Scalar<int32_t>(0)})),
            (std::vector<bool>{true, true}));
  // Empty reductions give the identity; an empty float mean is NaN.
  Tensor empty(DT_FLOAT, TensorShape({0, 2}));
  EXPECT_EQ(ToVector<float>(RunOne("Sum", {empty, Tensor::Scalar<int32_t>(0)})),
            (std::vector<float>{0, 0}));
  EXPECT_TRUE(std::isnan(
      ToVector<float>(RunOne("Mean", {empty, Tensor::Scalar<int32_t>(0)}))[0]));
}

TEST(ReductionOpsTest, MaxMinPropagateNaNAndSmallIntMeansDoNotOverflow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(100, 1.0f);
  v[77] = nan;
  Tensor x = MakeTensor<float>({2, 50}, v);
  for (const char* op : {"Max", "Min"}) {
    std::vector<float> rows =
        ToVector<float>(RunOne(op, {x, Tensor::Scalar<int32_t>(1)}));
    EXPECT_FALSE(std::isnan(rows[0])) << op;
    EXPECT_TRUE(std::isnan(rows[1])) << op;
    std::vector<float> cols =
        ToVector<float>(RunOne(op, {x, Tensor::Scalar<int32_t>(0)}));
    EXPECT_TRUE(std::isnan(cols[27])) << op;
    EXPECT_FALSE(std::isnan(cols[26])) << op;
  }
  Tensor u = MakeTensor<uint8_t>({2, 2}, {200, 250, 200, 254});
  EXPECT_EQ(ToVector<uint8_t>(RunOne("Mean", {u, Tensor::Scalar<int32_t>(0)})),
            (std::vector<uint8_t>{200, 252}));
  Tensor i = MakeTensor<int32_t>({2}, {2147483647, 2147483645});
  EXPECT_EQ(ToVector<int32_t>(RunOne("Mean", {i, Tensor::Scalar<int32_t>(0)})),
            (std::vector<int32_t>{2147483646}));
}

TEST(ReductionOpsTest, FloatSumsArePairwise) {
  // 2^20 additions of 0.1f: a running float sum drifts by ~1e-3 relative.
  const int64_t n = 1 << 20;
  Tensor row(DT_FLOAT, TensorShape({n}));
  std::fill(row.data<float>(), row.data<float>() + n, 0.1f);
  const float sum =
      ToVector<float>(RunOne("Sum", {row, Tensor::Scalar<int32_t>(0)}))[0];
  EXPECT_NEAR(sum, 0.1 * n, 0.1 * n * 1e-5);
  Tensor col(DT_FLOAT, TensorShape({n / 2, 2}));
  std::fill(col.data<float>(), col.data<float>() + n, 0.1f);
  const float col_sum =
      ToVector<float>(RunOne("Sum", {col, Tensor::Scalar<int32_t>(0)}))[1];
  EXPECT_NEAR(col_sum, 0.05 * n, 0.05 * n * 1e-5);
}

TEST(ReductionOpsTest, BadAxesAreRejected) {
  Tensor x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  std::vector<Tensor> out;
  Status s = RunOp("Sum", {x, MakeTensor<int32_t>({2}, {1, -1})}, {}, &out);
  EXPECT_TRUE(MessageHas(s, "Duplicate reduction dimension")) << s.ToString();
  s = RunOp("Sum", {x, Tensor::Scalar<int32_t>(2)}, {}, &out);
  EXPECT_TRUE(MessageHas(s, "Invalid reduction dimension")) << s.ToString();
  s = RunOp("ArgMax", {x, Tensor::Scalar<int32_t>(-3)}, {}, &out);
  EXPECT_TRUE(MessageHas(s, "Dimension (-3) must be in the range [-2, 2)"))
      << s.ToString();
}

TEST(ReductionOpsTest, ArgMaxArgMin) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 9, 9, 7, 2, 0});
  Tensor a1 = RunOne("ArgMax", {x, Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(a1.dtype(), DT_INT64);
  EXPECT_EQ(ToVector<int64_t>(a1), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ToVector<int32_t>(RunOne("ArgMin", {x, Tensor::Scalar<int32_t>(0)},
                                     {{"output_type", AttrType(DT_INT32)}})),
            (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(
      ToVector<int64_t>(RunOne("ArgMin", {x, Tensor::Scalar<int32_t>(-1)})),
      (std::vector<int64_t>{0, 2}));
}

TEST(ReductionOpsTest, BroadcastGradientArgs) {
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunOp(
      "BroadcastGradientArgs",
      {MakeTensor<int32_t>({3}, {2, 1, 3}), MakeTensor<int32_t>({2}, {4, 1})},
      {}, &out, 2));
  EXPECT_EQ(ToVector<int32_t>(out[0]), (std::vector<int32_t>{1}));
  EXPECT_EQ(ToVector<int32_t>(out[1]), (std::vector<int32_t>{0, 2}));
  Status s =
      RunOp("BroadcastGradientArgs",
            {MakeTensor<int64_t>({1}, {2}), MakeTensor<int64_t>({1}, {3})}, {},
            &out, 2);
  EXPECT_TRUE(MessageHas(s, "Incompatible shapes")) << s.ToString();
}

}  // namespace
}  // namespace tensorweave
