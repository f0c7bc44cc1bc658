// Softmax, LogSoftmax, their gradients, the two cross-entropies and L2Loss
// against plain double-precision formulas written here, and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::ExpectAllNear;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

// softmax (or log_softmax) of each row of `cols` values, in double.
std::vector<double> RowSoftmax(const std::vector<double>& x, int64_t cols,
                               bool log) {
  std::vector<double> out(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    const double* in = &x[r * cols];
    double max = in[0];
    for (int64_t i = 1; i < cols; ++i) max = std::max(max, in[i]);
    double sum = 0;
    for (int64_t i = 0; i < cols; ++i) sum += std::exp(in[i] - max);
    for (int64_t i = 0; i < cols; ++i) {
      out[r * cols + i] =
          log ? in[i] - max - std::log(sum) : std::exp(in[i] - max) / sum;
    }
  }
  return out;
}

template <typename T>
std::vector<double> AsDouble(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

template <typename T>
void CheckSoftmaxFamily(double tol) {
  const std::vector<TensorShape> shapes = {
      TensorShape({7}), TensorShape({3, 5}), TensorShape({2, 3, 4}),
      TensorShape({64, 10}), TensorShape({2, 1})};
  for (const TensorShape& shape : shapes) {
    const std::string what = shape.ToString();
    const int64_t cols = shape.dim(shape.rank() - 1);
    // Large logits: exp would overflow without subtracting the row max.
    auto x = RandomValues<T>(shape.num_elements(), 3, -50, 50);
    x[0] = T(700);
    auto g = RandomValues<T>(shape.num_elements(), 4);
    const auto xd = AsDouble(x), gd = AsDouble(g);
    const auto y = RowSoftmax(xd, cols, false);
    const auto log_y = RowSoftmax(xd, cols, true);
    const Tensor xt = MakeTensor<T>(shape, x), gt = MakeTensor<T>(shape, g);
    ExpectAllNear(ToVector<T>(test::RunOne("Softmax", {xt})), y, tol,
                  what + " Softmax");
    ExpectAllNear(ToVector<T>(test::RunOne("LogSoftmax", {xt})), log_y, tol,
                  what + " LogSoftmax");
    // SoftmaxGrad(g, y) = (g - sum(g * y)) * y; LogSoftmaxGrad(g, log_y) =
    // g - exp(log_y) * sum(g), per row.
    std::vector<double> dsm(y.size()), dlsm(y.size());
    for (size_t r = 0; r < y.size() / cols; ++r) {
      double gy = 0, gs = 0;
      for (int64_t i = 0; i < cols; ++i) {
        gy += gd[r * cols + i] * y[r * cols + i];
        gs += gd[r * cols + i];
      }
      for (int64_t i = 0; i < cols; ++i) {
        const size_t k = r * cols + i;
        dsm[k] = (gd[k] - gy) * y[k];
        dlsm[k] = gd[k] - std::exp(log_y[k]) * gs;
      }
    }
    std::vector<T> yt(y.begin(), y.end()), log_yt(log_y.begin(), log_y.end());
    ExpectAllNear(ToVector<T>(test::RunOne("SoftmaxGrad",
                                           {gt, MakeTensor<T>(shape, yt)})),
                  dsm, tol, what + " SoftmaxGrad");
    ExpectAllNear(ToVector<T>(test::RunOne("LogSoftmaxGrad",
                                           {gt, MakeTensor<T>(shape, log_yt)})),
                  dlsm, tol, what + " LogSoftmaxGrad");
  }
}

TEST(SoftmaxOpsTest, FloatMatchesReference) { CheckSoftmaxFamily<float>(1e-5); }
TEST(SoftmaxOpsTest, DoubleMatchesReference) {
  CheckSoftmaxFamily<double>(1e-12);
}

TEST(SoftmaxOpsTest, CrossEntropiesMatchReference) {
  const int64_t rows = 6, cols = 5;
  const auto logits = RandomValues<float>(rows * cols, 5, -4, 4);
  auto labels = RandomValues<float>(rows * cols, 6, 0, 1);
  const std::vector<int32_t> sparse = {0, 4, 2, 2, 1, 3};
  const auto log_p = RowSoftmax(AsDouble(logits), cols, true);
  std::vector<double> loss(rows, 0.0), back(rows * cols);
  std::vector<double> sparse_loss(rows), sparse_back(rows * cols);
  // As TF: backprop = softmax(logits) - labels, whatever the labels sum to
  // (these rows do not sum to 1).
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < cols; ++i) {
      const int64_t k = r * cols + i;
      loss[r] -= labels[k] * log_p[k];
      back[k] = std::exp(log_p[k]) - labels[k];
      sparse_back[k] = std::exp(log_p[k]) - (i == sparse[r] ? 1.0 : 0.0);
    }
    sparse_loss[r] = -log_p[r * cols + sparse[r]];
  }
  const Tensor lt = MakeTensor<float>({rows, cols}, logits);
  std::vector<Tensor> out;
  TW_ASSERT_OK(test::RunOp("SoftmaxCrossEntropyWithLogits",
                           {lt, MakeTensor<float>({rows, cols}, labels)}, {},
                           &out, 2));
  ExpectAllNear(ToVector<float>(out[0]), loss, 1e-5, "loss");
  ExpectAllNear(ToVector<float>(out[1]), back, 1e-5, "backprop");
  TW_ASSERT_OK(test::RunOp("SparseSoftmaxCrossEntropyWithLogits",
                           {lt, MakeTensor<int32_t>({rows}, sparse)}, {}, &out,
                           2));
  ExpectAllNear(ToVector<float>(out[0]), sparse_loss, 1e-5, "sparse loss");
  ExpectAllNear(ToVector<float>(out[1]), sparse_back, 1e-5, "sparse backprop");
}

TEST(SoftmaxOpsTest, L2Loss) {
  const Tensor x = MakeTensor<double>({2, 2}, {1, -2, 3, 0.5});
  EXPECT_EQ(ToVector<double>(test::RunOne("L2Loss", {x})),
            (std::vector<double>{(1 + 4 + 9 + 0.25) / 2}));
}

TEST(SoftmaxOpsTest, BadInputsAreInvalidArgument) {
  Tensor out;
  ExpectInvalidArgument(test::RunOpOnPlaceholders(
                            "Softmax", {MakeTensor<float>({}, {1})}, {}, &out),
                        "rank");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("SoftmaxGrad",
                                {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                 Tensor(DT_FLOAT, TensorShape({3, 2}))},
                                {}, &out),
      "");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("SoftmaxCrossEntropyWithLogits",
                                {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                 Tensor(DT_FLOAT, TensorShape({2, 4}))},
                                {}, &out),
      "same shape");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("SoftmaxCrossEntropyWithLogits",
                                {Tensor(DT_FLOAT, TensorShape({6})),
                                 Tensor(DT_FLOAT, TensorShape({6}))},
                                {}, &out),
      "2-D");
  // A label outside [0, classes), either side.
  for (int32_t label : {3, -1}) {
    ExpectInvalidArgument(
        test::RunOpOnPlaceholders("SparseSoftmaxCrossEntropyWithLogits",
                                  {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                   MakeTensor<int32_t>({2}, {0, label})},
                                  {}, &out),
        "outside the valid range");
  }
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("SparseSoftmaxCrossEntropyWithLogits",
                                {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                 MakeTensor<int32_t>({3}, {0, 1, 2})},
                                {}, &out),
      "labels");
}

}  // namespace
}  // namespace tensorweave
