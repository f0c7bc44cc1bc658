// MaxPool, AvgPool and their gradients against plain loops written here
// (TF's definition: SAME pads with nothing, an average counts only the
// in-bounds values), and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrInts;
using test::Attrs;
using test::AttrString;
using test::ExpectInvalidArgument;
using test::MakeTensor;
using test::RandomValues;
using test::ToVector;

struct PoolCase {
  int64_t n, h, w, c, kh, kw, sh, sw;
  const char* padding;
};

const PoolCase kCases[] = {
    {2, 6, 6, 3, 2, 2, 2, 2, "VALID"}, {1, 7, 5, 2, 3, 3, 2, 2, "SAME"},
    {2, 5, 8, 6, 3, 2, 1, 3, "SAME"},  {1, 4, 4, 17, 2, 2, 1, 1, "VALID"},
    {3, 9, 9, 16, 3, 3, 2, 2, "SAME"}, {1, 3, 3, 1, 3, 3, 1, 1, "SAME"},
};

// Output size and leading padding of one dimension, as TF computes them.
void Dim(int64_t in, int64_t k, int64_t s, const std::string& padding,
         int64_t* out, int64_t* pad) {
  if (padding == "VALID") {
    *out = (in - k + s) / s;
    *pad = 0;
  } else {
    *out = (in + s - 1) / s;
    *pad = std::max<int64_t>(0, ((*out - 1) * s + k - in)) / 2;
  }
}

struct Geometry {
  int64_t oh, ow, pad_top, pad_left;
};

Geometry GeometryOf(const PoolCase& c) {
  Geometry g;
  Dim(c.h, c.kh, c.sh, c.padding, &g.oh, &g.pad_top);
  Dim(c.w, c.kw, c.sw, c.padding, &g.ow, &g.pad_left);
  return g;
}

// Calls fn(out_index, in_index) for every in-bounds tap of every output.
template <typename Fn>
void ForEachWindow(const PoolCase& c, const Geometry& g, Fn fn) {
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t ch = 0; ch < c.c; ++ch) {
          const int64_t o = ((b * g.oh + oy) * g.ow + ox) * c.c + ch;
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t y = oy * c.sh + ky - g.pad_top;
              const int64_t x = ox * c.sw + kx - g.pad_left;
              if (y < 0 || y >= c.h || x < 0 || x >= c.w) continue;
              fn(o, ((b * c.h + y) * c.w + x) * c.c + ch);
            }
        }
}

Attrs PoolAttrs(const PoolCase& c) {
  return {{"ksize", AttrInts({1, c.kh, c.kw, 1})},
          {"strides", AttrInts({1, c.sh, c.sw, 1})},
          {"padding", AttrString(c.padding)}};
}

template <typename T>
void CheckForwardAndGradients(double tol) {
  for (const PoolCase& c : kCases) {
    const std::string what = std::to_string(&c - kCases);
    const Geometry g = GeometryOf(c);
    const int64_t in_size = c.n * c.h * c.w * c.c;
    const int64_t out_size = c.n * g.oh * g.ow * c.c;
    const auto x = RandomValues<T>(in_size, 1 + (&c - kCases));
    const auto dy = RandomValues<T>(out_size, 100 + (&c - kCases));
    // References: the max (and its first position, where MaxPoolGrad
    // sends the gradient), the mean of the in-bounds values.
    std::vector<T> max_ref(out_size, -std::numeric_limits<T>::infinity());
    std::vector<int64_t> argmax(out_size, -1);
    std::vector<double> sum(out_size, 0.0);
    std::vector<int64_t> count(out_size, 0);
    ForEachWindow(c, g, [&](int64_t o, int64_t i) {
      if (argmax[o] < 0 || x[i] > max_ref[o]) {
        max_ref[o] = x[i];
        argmax[o] = i;
      }
      sum[o] += x[i];
      ++count[o];
    });
    std::vector<T> dmax_ref(in_size, T(0)), davg_ref(in_size, T(0));
    for (int64_t o = 0; o < out_size; ++o) dmax_ref[argmax[o]] += dy[o];
    ForEachWindow(c, g, [&](int64_t o, int64_t i) {
      davg_ref[i] += dy[o] / static_cast<T>(count[o]);
    });

    const Tensor xt = MakeTensor<T>({c.n, c.h, c.w, c.c}, x);
    const Tensor dyt = MakeTensor<T>({c.n, g.oh, g.ow, c.c}, dy);
    const Tensor y = test::RunOne("MaxPool", {xt}, PoolAttrs(c));
    ASSERT_EQ(y.shape(), TensorShape({c.n, g.oh, g.ow, c.c})) << what;
    EXPECT_EQ(ToVector<T>(y), max_ref) << what;
    const Tensor avg = test::RunOne("AvgPool", {xt}, PoolAttrs(c));
    const auto avg_v = ToVector<T>(avg);
    ASSERT_EQ(avg_v.size(), static_cast<size_t>(out_size)) << what;
    for (int64_t o = 0; o < out_size; ++o) {
      EXPECT_NEAR(avg_v[o], sum[o] / count[o], tol) << what << " at " << o;
    }

    const Tensor dmax = test::RunOne("MaxPoolGrad", {xt, y, dyt}, PoolAttrs(c));
    const auto dmax_v = ToVector<T>(dmax);
    ASSERT_EQ(dmax_v.size(), static_cast<size_t>(in_size)) << what;
    for (int64_t i = 0; i < in_size; ++i) {
      EXPECT_NEAR(dmax_v[i], dmax_ref[i], tol) << what << " at " << i;
    }
    const Tensor shape = MakeTensor<int32_t>(
        {4}, {static_cast<int32_t>(c.n), static_cast<int32_t>(c.h),
              static_cast<int32_t>(c.w), static_cast<int32_t>(c.c)});
    const Tensor davg = test::RunOne("AvgPoolGrad", {shape, dyt}, PoolAttrs(c));
    const auto davg_v = ToVector<T>(davg);
    ASSERT_EQ(davg_v.size(), static_cast<size_t>(in_size)) << what;
    for (int64_t i = 0; i < in_size; ++i) {
      EXPECT_NEAR(davg_v[i], davg_ref[i], tol) << what << " at " << i;
    }
  }
}

TEST(PoolingOpsTest, FloatMatchesReference) {
  CheckForwardAndGradients<float>(1e-5);
}
TEST(PoolingOpsTest, DoubleMatchesReference) {
  CheckForwardAndGradients<double>(1e-12);
}

TEST(PoolingOpsTest, HandComputed) {
  // 1x3x3x1, 2x2 window, stride 1, SAME: the last row and column see only
  // what is inside the input.
  const Tensor x = MakeTensor<float>({1, 3, 3, 1}, {1, 5, 2, 4, 3, 9, 7, 8, 6});
  const Attrs attrs = {{"ksize", AttrInts({1, 2, 2, 1})},
                       {"strides", AttrInts({1, 1, 1, 1})},
                       {"padding", AttrString("SAME")}};
  EXPECT_EQ(ToVector<float>(test::RunOne("MaxPool", {x}, attrs)),
            (std::vector<float>{5, 9, 9, 8, 9, 9, 8, 8, 6}));
  EXPECT_EQ(ToVector<float>(test::RunOne("AvgPool", {x}, attrs)),
            (std::vector<float>{13 / 4.f, 19 / 4.f, 11 / 2.f, 22 / 4.f,
                                26 / 4.f, 15 / 2.f, 15 / 2.f, 7, 6}));
}

TEST(PoolingOpsTest, BadInputsAreInvalidArgument) {
  const Attrs attrs = {{"ksize", AttrInts({1, 2, 2, 1})},
                       {"strides", AttrInts({1, 2, 2, 1})},
                       {"padding", AttrString("VALID")}};
  Tensor out;
  // A 3-D input (its shape known only at run time).
  for (const char* op : {"MaxPool", "AvgPool"}) {
    ExpectInvalidArgument(
        test::RunOpOnPlaceholders(
            op, {Tensor(DT_FLOAT, TensorShape({4, 4, 1}))}, attrs, &out),
        "4-D");
  }
  // A window larger than a VALID input.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("MaxPool",
                                {Tensor(DT_FLOAT, TensorShape({1, 1, 4, 1}))},
                                attrs, &out),
      "");
  // ksize of three values, and pooling over the batch.
  Attrs bad = attrs;
  bad["ksize"] = AttrInts({1, 2, 2});
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders(
          "MaxPool", {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1}))}, bad, &out),
      "ksize");
  bad["ksize"] = AttrInts({2, 2, 2, 1});
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders(
          "AvgPool", {Tensor(DT_FLOAT, TensorShape({2, 4, 4, 1}))}, bad, &out),
      "ksize");
  // MaxPoolGrad with a gradient that is not of the pooled shape.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("MaxPoolGrad",
                                {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})),
                                 Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})),
                                 Tensor(DT_FLOAT, TensorShape({1, 3, 2, 1}))},
                                attrs, &out),
      "");
  // AvgPoolGrad with a shape input that is not 4 sizes.
  ExpectInvalidArgument(
      test::RunOpOnPlaceholders("AvgPoolGrad",
                                {MakeTensor<int32_t>({3}, {1, 4, 4}),
                                 Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))},
                                attrs, &out),
      "");
}

}  // namespace
}  // namespace tensorweave
