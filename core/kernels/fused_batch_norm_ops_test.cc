// FusedBatchNorm (training and inference) and FusedBatchNormGrad against
// the formulas in double written here, and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrBool;
using test::Attrs;
using test::ExpectAllNear;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

Attrs BnAttrs(bool training, float epsilon) {
  Attrs a = {{"is_training", AttrBool(training)}};
  a["epsilon"].set_f(epsilon);
  return a;
}

template <typename T>
void CheckBatchNorm(double tol) {
  const TensorShape shape({2, 3, 4, 5});
  const int64_t depth = 5, rows = 2 * 3 * 4;
  const float eps = 1e-3f;
  const auto x = RandomValues<T>(shape.num_elements(), 41, -3, 5);
  const auto scale = RandomValues<T>(depth, 42, 0.5, 2);
  const auto offset = RandomValues<T>(depth, 43);
  const auto mean_in = RandomValues<T>(depth, 44);
  const auto var_in = RandomValues<T>(depth, 45, 0.1, 2);
  const auto dy = RandomValues<T>(shape.num_elements(), 46);
  // Batch statistics per channel (biased variance normalizes; the reported
  // batch variance is unbiased, as TF).
  std::vector<double> mean(depth, 0), var(depth, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < depth; ++c)
      mean[c] += x[r * depth + c] / double(rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < depth; ++c) {
      const double d = x[r * depth + c] - mean[c];
      var[c] += d * d / rows;
    }
  std::vector<double> y_train(x.size()), y_infer(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < depth; ++c) {
      const int64_t i = r * depth + c;
      y_train[i] =
          (x[i] - mean[c]) / std::sqrt(var[c] + double(eps)) * scale[c] +
          offset[c];
      y_infer[i] =
          (x[i] - mean_in[c]) / std::sqrt(var_in[c] + double(eps)) * scale[c] +
          offset[c];
    }
  std::vector<double> unbiased(depth);
  for (int64_t c = 0; c < depth; ++c) unbiased[c] = var[c] * rows / (rows - 1);

  const Tensor xt = MakeTensor<T>(shape, x);
  const Tensor st = MakeTensor<T>({depth}, scale);
  const Tensor ot = MakeTensor<T>({depth}, offset);
  const Tensor mt = MakeTensor<T>({depth}, mean_in);
  const Tensor vt = MakeTensor<T>({depth}, var_in);
  std::vector<Tensor> out;
  // Training: mean and variance inputs are empty, as TF1's batch_norm feeds.
  TW_ASSERT_OK(
      test::RunOp("FusedBatchNorm",
                  {xt, st, ot, MakeTensor<T>({0}, {}), MakeTensor<T>({0}, {})},
                  BnAttrs(true, eps), &out, 5));
  ExpectAllNear(ToVector<T>(out[0]), y_train, tol, "training y");
  ExpectAllNear(ToVector<T>(out[1]), mean, tol, "batch mean");
  ExpectAllNear(ToVector<T>(out[2]), unbiased, tol, "batch variance");
  ExpectAllNear(ToVector<T>(out[3]), mean, tol, "reserve 1");
  ExpectAllNear(ToVector<T>(out[4]), var, tol, "reserve 2");
  TW_ASSERT_OK(test::RunOp("FusedBatchNorm", {xt, st, ot, mt, vt},
                           BnAttrs(false, eps), &out, 5));
  ExpectAllNear(ToVector<T>(out[0]), y_infer, tol, "inference y");

  // Gradients (training): with x_hat = (x - mean) * inv,
  //   dx = scale * inv * (dy - mean(dy) - x_hat * mean(dy * x_hat)),
  //   dscale = sum(dy * x_hat), doffset = sum(dy).
  // Inference: dx = dy * scale * inv over the given mean and variance.
  for (bool training : {true, false}) {
    const std::vector<double>& m =
        training ? mean : std::vector<double>(mean_in.begin(), mean_in.end());
    const std::vector<double>& v =
        training ? var : std::vector<double>(var_in.begin(), var_in.end());
    std::vector<double> inv(depth), sum_dy(depth, 0), sum_dyx(depth, 0);
    for (int64_t c = 0; c < depth; ++c)
      inv[c] = 1 / std::sqrt(v[c] + double(eps));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < depth; ++c) {
        const int64_t i = r * depth + c;
        sum_dy[c] += dy[i];
        sum_dyx[c] += dy[i] * (x[i] - m[c]) * inv[c];
      }
    std::vector<double> dx(x.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < depth; ++c) {
        const int64_t i = r * depth + c;
        const double xhat = (x[i] - m[c]) * inv[c];
        dx[i] = training
                    ? scale[c] * inv[c] *
                          (dy[i] - sum_dy[c] / rows - xhat * sum_dyx[c] / rows)
                    : dy[i] * scale[c] * inv[c];
      }
    std::vector<T> mv(m.begin(), m.end()), vv(v.begin(), v.end());
    TW_ASSERT_OK(
        test::RunOp("FusedBatchNormGrad",
                    {MakeTensor<T>(shape, dy), xt, st,
                     MakeTensor<T>({depth}, mv), MakeTensor<T>({depth}, vv)},
                    BnAttrs(training, eps), &out, 5));
    const std::string what = training ? "training " : "inference ";
    ExpectAllNear(ToVector<T>(out[0]), dx, tol, what + "dx");
    ExpectAllNear(ToVector<T>(out[1]), sum_dyx, tol, what + "dscale");
    ExpectAllNear(ToVector<T>(out[2]), sum_dy, tol, what + "doffset");
  }
}

TEST(FusedBatchNormOpsTest, FloatMatchesReference) {
  CheckBatchNorm<float>(1e-4);
}
TEST(FusedBatchNormOpsTest, DoubleMatchesReference) {
  CheckBatchNorm<double>(1e-10);
}

// NCHW gives the NHWC results on the transposed x (both modes, and the
// gradients).
TEST(FusedBatchNormOpsTest, NchwMatchesNhwc) {
  const int64_t n = 2, c = 3, h = 4, w = 5;
  const auto x = RandomValues<double>(n * c * h * w, 51, -2, 3);
  const auto dy = RandomValues<double>(n * c * h * w, 52);
  std::vector<double> x_nhwc(x.size()), dy_nhwc(x.size());
  auto nchw = [&](int64_t b, int64_t k, int64_t y, int64_t q) {
    return ((b * c + k) * h + y) * w + q;
  };
  auto nhwc = [&](int64_t b, int64_t k, int64_t y, int64_t q) {
    return ((b * h + y) * w + q) * c + k;
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t q = 0; q < w; ++q) {
          x_nhwc[nhwc(b, k, y, q)] = x[nchw(b, k, y, q)];
          dy_nhwc[nhwc(b, k, y, q)] = dy[nchw(b, k, y, q)];
        }
  const Tensor scale = MakeTensor<double>({c}, RandomValues<double>(c, 53));
  const Tensor offset = MakeTensor<double>({c}, RandomValues<double>(c, 54));
  const Tensor mean = MakeTensor<double>({c}, RandomValues<double>(c, 55));
  const Tensor var =
      MakeTensor<double>({c}, RandomValues<double>(c, 56, 0.5, 2));
  for (bool training : {true, false}) {
    Attrs nchw_attrs = BnAttrs(training, 1e-3f);
    nchw_attrs["data_format"].set_s("NCHW");
    const Tensor m = training ? MakeTensor<double>({0}, {}) : mean;
    const Tensor v = training ? MakeTensor<double>({0}, {}) : var;
    std::vector<Tensor> a, b, ga, gb;
    TW_ASSERT_OK(
        test::RunOp("FusedBatchNorm",
                    {MakeTensor<double>({n, c, h, w}, x), scale, offset, m, v},
                    nchw_attrs, &a, 5));
    TW_ASSERT_OK(test::RunOp(
        "FusedBatchNorm",
        {MakeTensor<double>({n, h, w, c}, x_nhwc), scale, offset, m, v},
        BnAttrs(training, 1e-3f), &b, 5));
    const auto ya = ToVector<double>(a[0]), yb = ToVector<double>(b[0]);
    std::vector<double> yb_nchw(ya.size());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t q = 0; q < w; ++q)
            yb_nchw[nchw(i, k, y, q)] = yb[nhwc(i, k, y, q)];
    ExpectAllNear(ya, yb_nchw, 1e-12, "y");
    for (int i = 1; i < 5; ++i) {
      const auto sb = ToVector<double>(b[i]);
      ExpectAllNear(ToVector<double>(a[i]),
                    std::vector<double>(sb.begin(), sb.end()), 1e-12,
                    "statistic");
    }
    TW_ASSERT_OK(
        test::RunOp("FusedBatchNormGrad",
                    {MakeTensor<double>({n, c, h, w}, dy),
                     MakeTensor<double>({n, c, h, w}, x), scale, a[3], a[4]},
                    nchw_attrs, &ga, 5));
    TW_ASSERT_OK(test::RunOp(
        "FusedBatchNormGrad",
        {MakeTensor<double>({n, h, w, c}, dy_nhwc),
         MakeTensor<double>({n, h, w, c}, x_nhwc), scale, b[3], b[4]},
        BnAttrs(training, 1e-3f), &gb, 5));
    const auto dxa = ToVector<double>(ga[0]), dxb = ToVector<double>(gb[0]);
    std::vector<double> dxb_nchw(dxa.size());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t q = 0; q < w; ++q)
            dxb_nchw[nchw(i, k, y, q)] = dxb[nhwc(i, k, y, q)];
    ExpectAllNear(dxa, dxb_nchw, 1e-10, "dx");
    for (int i = 1; i < 3; ++i) {
      const auto sb = ToVector<double>(gb[i]);
      ExpectAllNear(ToVector<double>(ga[i]),
                    std::vector<double>(sb.begin(), sb.end()), 1e-10,
                    "dscale/doffset");
    }
  }
}

TEST(FusedBatchNormOpsTest, BadInputsAreInvalidArgument) {
  Tensor out;
  const Tensor x = Tensor(DT_FLOAT, TensorShape({1, 2, 2, 3}));
  const Tensor v3 = Tensor(DT_FLOAT, TensorShape({3}));
  const Tensor v2 = Tensor(DT_FLOAT, TensorShape({2}));
  const Tensor empty = Tensor(DT_FLOAT, TensorShape({0}));
  // A 3-D x.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders(
          "FusedBatchNorm",
          {Tensor(DT_FLOAT, TensorShape({2, 2, 3})), v3, v3, empty, empty},
          BnAttrs(true, 1e-3f), &out),
      "4-D");
  // scale and offset of the wrong length.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("FusedBatchNorm", {x, v2, v3, empty, empty},
                                BnAttrs(true, 1e-3f), &out),
      "scale");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("FusedBatchNorm", {x, v3, v2, empty, empty},
                                BnAttrs(true, 1e-3f), &out),
      "offset");
  // Inference needs the mean and variance of every channel.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("FusedBatchNorm", {x, v3, v3, empty, v3},
                                BnAttrs(false, 1e-3f), &out),
      "mean");
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("FusedBatchNorm", {x, v3, v3, v3, v2},
                                BnAttrs(false, 1e-3f), &out),
      "variance");
  // The gradient with y_backprop not of x's shape.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders(
          "FusedBatchNormGrad",
          {Tensor(DT_FLOAT, TensorShape({1, 2, 3, 3})), x, v3, v3, v3},
          BnAttrs(true, 1e-3f), &out),
      "y_backprop");
}

}  // namespace
}  // namespace tensorweave
