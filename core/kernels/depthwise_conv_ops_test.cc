// DepthwiseConv2dNative and its two backprops against plain loops written
// here (output channel c * M + m is input channel c convolved with filter
// [:, :, c, m]; the backprops as the adjoint sums), and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrInts;
using test::Attrs;
using test::AttrString;
using test::ExpectAllNear;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

struct DwCase {
  int64_t n, h, w, c, m, kh, kw, stride, dilation;
  const char* padding;
};

const DwCase kCases[] = {
    {1, 5, 5, 1, 1, 3, 3, 1, 1, "VALID"}, {2, 7, 6, 3, 2, 3, 3, 1, 1, "SAME"},
    {1, 8, 8, 4, 1, 3, 3, 2, 1, "SAME"},  {2, 9, 7, 2, 3, 2, 3, 2, 1, "VALID"},
    {1, 9, 9, 3, 1, 3, 3, 1, 2, "SAME"},  {1, 6, 10, 16, 1, 5, 5, 1, 1, "SAME"},
};

void Dim(int64_t in, int64_t k, int64_t s, int64_t d, const std::string& pad,
         int64_t* out, int64_t* before) {
  const int64_t ek = (k - 1) * d + 1;
  if (pad == "VALID") {
    *out = (in - ek + s) / s;
    *before = 0;
  } else {
    *out = (in + s - 1) / s;
    *before = std::max<int64_t>(0, (*out - 1) * s + ek - in) / 2;
  }
}

// Calls fn(out_index, in_index, filter_index) for every in-bounds tap.
template <typename Fn>
void ForEachTap(const DwCase& c, int64_t oh, int64_t ow, int64_t pt, int64_t pl,
                Fn fn) {
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t ch = 0; ch < c.c; ++ch)
          for (int64_t q = 0; q < c.m; ++q)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t y = oy * c.stride + ky * c.dilation - pt;
                const int64_t x = ox * c.stride + kx * c.dilation - pl;
                if (y < 0 || y >= c.h || x < 0 || x >= c.w) continue;
                fn(((b * oh + oy) * ow + ox) * c.c * c.m + ch * c.m + q,
                   ((b * c.h + y) * c.w + x) * c.c + ch,
                   ((ky * c.kw + kx) * c.c + ch) * c.m + q);
              }
}

Attrs DwAttrs(const DwCase& c) {
  return {{"strides", AttrInts({1, c.stride, c.stride, 1})},
          {"dilations", AttrInts({1, c.dilation, c.dilation, 1})},
          {"padding", AttrString(c.padding)}};
}

template <typename T>
void CheckAll(double tol) {
  for (const DwCase& c : kCases) {
    const std::string what = "case " + std::to_string(&c - kCases);
    int64_t oh, ow, pt, pl;
    Dim(c.h, c.kh, c.stride, c.dilation, c.padding, &oh, &pt);
    Dim(c.w, c.kw, c.stride, c.dilation, c.padding, &ow, &pl);
    const int64_t in_size = c.n * c.h * c.w * c.c;
    const int64_t f_size = c.kh * c.kw * c.c * c.m;
    const int64_t out_size = c.n * oh * ow * c.c * c.m;
    const auto x = RandomValues<T>(in_size, 31);
    const auto f = RandomValues<T>(f_size, 32);
    const auto dy = RandomValues<T>(out_size, 33);
    std::vector<double> y(out_size, 0.0), dx(in_size, 0.0), df(f_size, 0.0);
    ForEachTap(c, oh, ow, pt, pl, [&](int64_t o, int64_t i, int64_t k) {
      y[o] += double(x[i]) * f[k];
      dx[i] += double(dy[o]) * f[k];
      df[k] += double(dy[o]) * x[i];
    });
    const Tensor xt = MakeTensor<T>({c.n, c.h, c.w, c.c}, x);
    const Tensor ft = MakeTensor<T>({c.kh, c.kw, c.c, c.m}, f);
    const Tensor dyt = MakeTensor<T>({c.n, oh, ow, c.c * c.m}, dy);
    const Tensor out =
        test::RunOne("DepthwiseConv2dNative", {xt, ft}, DwAttrs(c));
    EXPECT_EQ(out.shape(), TensorShape({c.n, oh, ow, c.c * c.m})) << what;
    ExpectAllNear(ToVector<T>(out), y, tol, what + " forward");
    const Tensor in_sizes = MakeTensor<int32_t>(
        {4}, {int32_t(c.n), int32_t(c.h), int32_t(c.w), int32_t(c.c)});
    const Tensor f_sizes = MakeTensor<int32_t>(
        {4}, {int32_t(c.kh), int32_t(c.kw), int32_t(c.c), int32_t(c.m)});
    ExpectAllNear(ToVector<T>(test::RunOne("DepthwiseConv2dNativeBackpropInput",
                                           {in_sizes, ft, dyt}, DwAttrs(c))),
                  dx, tol, what + " backprop input");
    ExpectAllNear(
        ToVector<T>(test::RunOne("DepthwiseConv2dNativeBackpropFilter",
                                 {xt, f_sizes, dyt}, DwAttrs(c))),
        df, tol, what + " backprop filter");
  }
}

TEST(DepthwiseConvOpsTest, FloatMatchesReference) { CheckAll<float>(1e-5); }
TEST(DepthwiseConvOpsTest, DoubleMatchesReference) { CheckAll<double>(1e-12); }

TEST(DepthwiseConvOpsTest, HandComputed) {
  // Two channels, multiplier 1, 2x2 filter of channel 0 ones, channel 1
  // twos, VALID on a 2x2 image: one output pixel per channel.
  const Tensor x =
      MakeTensor<float>({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  const Tensor f = MakeTensor<float>({2, 2, 2, 1}, {1, 2, 1, 2, 1, 2, 1, 2});
  const Attrs attrs = {{"strides", AttrInts({1, 1, 1, 1})},
                       {"padding", AttrString("VALID")}};
  EXPECT_EQ(
      ToVector<float>(test::RunOne("DepthwiseConv2dNative", {x, f}, attrs)),
      (std::vector<float>{10, 200}));
}

TEST(DepthwiseConvOpsTest, BadInputsAreInvalidArgument) {
  const Attrs attrs = {{"strides", AttrInts({1, 1, 1, 1})},
                       {"padding", AttrString("SAME")}};
  Tensor out;
  // Filter channels that are not the input's.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("DepthwiseConv2dNative",
                                {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 2, 1}))},
                                attrs, &out),
      "");
  // A 3-D input.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("DepthwiseConv2dNative",
                                {Tensor(DT_FLOAT, TensorShape({4, 4, 3})),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 3, 1}))},
                                attrs, &out),
      "");
  // Strides of three values, and a stride over the batch.
  Attrs bad = attrs;
  bad["strides"] = AttrInts({1, 1, 1});
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("DepthwiseConv2dNative",
                                {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 3, 1}))},
                                bad, &out),
      "strides");
  bad["strides"] = AttrInts({2, 1, 1, 1});
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("DepthwiseConv2dNative",
                                {Tensor(DT_FLOAT, TensorShape({2, 4, 4, 3})),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 3, 1}))},
                                bad, &out),
      "strides");
  // A backprop whose out_backprop is not the forward's output shape.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("DepthwiseConv2dNativeBackpropInput",
                                {MakeTensor<int32_t>({4}, {1, 4, 4, 3}),
                                 Tensor(DT_FLOAT, TensorShape({2, 2, 3, 1})),
                                 Tensor(DT_FLOAT, TensorShape({1, 4, 3, 3}))},
                                attrs, &out),
      "");
  // Sizes that are not 4 values.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("DepthwiseConv2dNativeBackpropFilter",
                                {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})),
                                 MakeTensor<int32_t>({3}, {2, 2, 3}),
                                 Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3}))},
                                attrs, &out),
      "filter_sizes");
}

}  // namespace
}  // namespace tensorweave
