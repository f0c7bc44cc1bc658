// Conv3D (and its backprops by the adjoint identities), MaxPool3D/AvgPool3D,
// LRN and MaxPoolWithArgmax against plain loops written here, and their
// errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrInts;
using test::Attrs;
using test::ExpectAllNear;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

Attrs WindowAttrs(const char* window_attr, std::vector<int64_t> window,
                  std::vector<int64_t> strides, const char* padding) {
  Attrs a = {{"strides", AttrInts(strides)}};
  if (window_attr != nullptr) a[window_attr] = AttrInts(window);
  a["padding"].set_s(padding);
  return a;
}

// Conv3D VALID, strides (1, 2, 1), by the definition.
TEST(VolumeOpsTest, Conv3DMatchesLoops) {
  const int64_t n = 2, d = 3, h = 5, w = 4, c = 2, kd = 2, kh = 3, kw = 2,
                m = 3;
  const auto x = RandomValues<double>(n * d * h * w * c, 1);
  const auto f = RandomValues<double>(kd * kh * kw * c * m, 2);
  const int64_t od = d - kd + 1, oh = (h - kh) / 2 + 1, ow = w - kw + 1;
  std::vector<double> want(n * od * oh * ow * m, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t z = 0; z < od; ++z)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t q = 0; q < ow; ++q)
          for (int64_t o = 0; o < m; ++o) {
            double sum = 0;
            for (int64_t a = 0; a < kd; ++a)
              for (int64_t e = 0; e < kh; ++e)
                for (int64_t g = 0; g < kw; ++g)
                  for (int64_t i = 0; i < c; ++i)
                    sum +=
                        x[(((b * d + z + a) * h + 2 * y + e) * w + q + g) * c +
                          i] *
                        f[(((a * kh + e) * kw + g) * c + i) * m + o];
            want[(((b * od + z) * oh + y) * ow + q) * m + o] = sum;
          }
  const Tensor out =
      test::RunOne("Conv3D",
                   {MakeTensor<double>({n, d, h, w, c}, x),
                    MakeTensor<double>({kd, kh, kw, c, m}, f)},
                   WindowAttrs(nullptr, {}, {1, 1, 2, 1, 1}, "VALID"));
  ExpectAllNear(ToVector<double>(out), want, 1e-12, "Conv3D");
}

// <conv(x), dy> == <x, backprop_input(dy)> == <f, backprop_filter(x, dy)>.
TEST(VolumeOpsTest, Conv3DBackpropsAreAdjoints) {
  const std::vector<int64_t> xs = {1, 4, 3, 5, 2}, fs = {2, 2, 3, 2, 2};
  const auto x = RandomValues<double>(4 * 3 * 5 * 2, 3);
  const auto f = RandomValues<double>(2 * 2 * 3 * 2 * 2, 4);
  const Attrs attrs = WindowAttrs(nullptr, {}, {1, 2, 1, 2, 1}, "SAME");
  const Tensor y = test::RunOne("Conv3D",
                                {MakeTensor<double>(TensorShape(xs), x),
                                 MakeTensor<double>(TensorShape(fs), f)},
                                attrs);
  const auto dy = RandomValues<double>(y.num_elements(), 5);
  const Tensor dyt = MakeTensor<double>(y.shape(), dy);
  const Tensor dx = test::RunOne("Conv3DBackpropInputV2",
                                 {MakeTensor<int32_t>({5}, {1, 4, 3, 5, 2}),
                                  MakeTensor<double>(TensorShape(fs), f), dyt},
                                 attrs);
  const Tensor df =
      test::RunOne("Conv3DBackpropFilterV2",
                   {MakeTensor<double>(TensorShape(xs), x),
                    MakeTensor<int32_t>({5}, {2, 2, 3, 2, 2}), dyt},
                   attrs);
  double lhs = 0, rx = 0, rf = 0;
  const auto yv = ToVector<double>(y), dxv = ToVector<double>(dx),
             dfv = ToVector<double>(df);
  for (size_t i = 0; i < yv.size(); ++i) lhs += yv[i] * dy[i];
  for (size_t i = 0; i < x.size(); ++i) rx += x[i] * dxv[i];
  for (size_t i = 0; i < f.size(); ++i) rf += f[i] * dfv[i];
  EXPECT_NEAR(lhs, rx, 1e-10);
  EXPECT_NEAR(lhs, rf, 1e-10);
}

TEST(VolumeOpsTest, Pool3DMatchesLoops) {
  // SAME, window 2, stride 2 over [1, 3, 3, 3, 2]: windows [0,2) and [2,3).
  const auto x = RandomValues<float>(27 * 2, 6);
  std::vector<double> want_max, want_avg;
  for (int64_t z = 0; z < 2; ++z)
    for (int64_t y = 0; y < 2; ++y)
      for (int64_t q = 0; q < 2; ++q)
        for (int64_t c = 0; c < 2; ++c) {
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          int count = 0;
          for (int64_t a = 2 * z; a < std::min<int64_t>(2 * z + 2, 3); ++a)
            for (int64_t e = 2 * y; e < std::min<int64_t>(2 * y + 2, 3); ++e)
              for (int64_t g = 2 * q; g < std::min<int64_t>(2 * q + 2, 3);
                   ++g) {
                const double v = x[((a * 3 + e) * 3 + g) * 2 + c];
                best = std::max(best, v);
                sum += v;
                ++count;
              }
          want_max.push_back(best);
          want_avg.push_back(sum / count);
        }
  const Tensor xt = MakeTensor<float>({1, 3, 3, 3, 2}, x);
  const Attrs attrs =
      WindowAttrs("ksize", {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME");
  ExpectAllNear(ToVector<float>(test::RunOne("MaxPool3D", {xt}, attrs)),
                want_max, 1e-6, "MaxPool3D");
  ExpectAllNear(ToVector<float>(test::RunOne("AvgPool3D", {xt}, attrs)),
                want_avg, 1e-6, "AvgPool3D");
}

TEST(VolumeOpsTest, LrnMatchesFormula) {
  const auto x = RandomValues<double>(2 * 7, 7);
  Attrs attrs = {{"depth_radius", test::AttrInt(2)}};
  attrs["bias"].set_f(1.5f);
  attrs["alpha"].set_f(0.25f);
  attrs["beta"].set_f(0.5f);
  std::vector<double> want;
  for (int p = 0; p < 2; ++p)
    for (int c = 0; c < 7; ++c) {
      double sq = 0;
      for (int j = std::max(0, c - 2); j <= std::min(6, c + 2); ++j)
        sq += x[p * 7 + j] * x[p * 7 + j];
      want.push_back(x[p * 7 + c] / std::sqrt(1.5 + 0.25 * sq));
    }
  ExpectAllNear(ToVector<double>(test::RunOne(
                    "LRN", {MakeTensor<double>({1, 1, 2, 7}, x)}, attrs)),
                want, 1e-12, "LRN");
}

TEST(VolumeOpsTest, MaxPoolWithArgmaxFindsTheFirstMaximum) {
  // Two images of 2x2x1: the maximum of each 2x2 window, flat index with and
  // without the batch.
  const Tensor x = MakeTensor<float>({2, 2, 2, 1}, {1, 5, 5, 2, 7, 3, 0, 7});
  for (bool with_batch : {false, true}) {
    Attrs attrs = WindowAttrs("ksize", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
    attrs["include_batch_in_index"] = test::AttrBool(with_batch);
    std::vector<Tensor> out;
    TW_ASSERT_OK(test::RunOp("MaxPoolWithArgmax", {x}, attrs, &out, 2));
    EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{5, 7}));
    EXPECT_EQ(ToVector<int64_t>(out[1]),
              (std::vector<int64_t>{1, with_batch ? 4 : 0}));
  }
}

TEST(VolumeOpsTest, BadInputsAreErrors) {
  Tensor out;
  const Attrs conv = WindowAttrs(nullptr, {}, {1, 1, 1, 1, 1}, "VALID");
  // A filter deeper than the input.
  ExpectInvalidArgument(test::RunOpOnPlaceholders(
                            "Conv3D",
                            {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 2, 1})),
                             Tensor(DT_FLOAT, TensorShape({3, 1, 1, 1, 1}))},
                            conv, &out),
                        "smaller than the window");
  // Channels that do not match.
  ExpectInvalidArgument(test::RunOpOnPlaceholders(
                            "Conv3D",
                            {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 2, 2})),
                             Tensor(DT_FLOAT, TensorShape({1, 1, 1, 3, 1}))},
                            conv, &out),
                        "input depth");
  // out_backprop of the wrong shape.
  ExpectInvalidArgument(test::RunOpOnPlaceholders(
                            "Conv3DBackpropInputV2",
                            {MakeTensor<int32_t>({5}, {1, 2, 2, 2, 1}),
                             Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1, 1})),
                             Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1, 1}))},
                            conv, &out),
                        "out_backprop");
  // LRN of a matrix.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("LRN", {Tensor(DT_FLOAT, TensorShape({2, 3}))},
                                {}, &out),
      "4-D");
}

}  // namespace
}  // namespace tensorweave
