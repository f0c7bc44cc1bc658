// The fast convolution algorithms (direct, im2col + GEMM and Winograd, on
// one and several threads) against the reference loops, per dtype tolerance;
// and the "Conv2D" kernel's error path.
#include "core/kernels/conv_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace {

struct Case {
  int64_t n, h, w, c, kh, kw, m, stride, dilation;
  const char* padding;
};

const Case kCases[] = {
    {3, 28, 28, 1, 5, 5, 6, 1, 1, "SAME"},    // LeNet conv1
    {3, 14, 14, 6, 5, 5, 16, 1, 1, "VALID"},  // LeNet conv2
    {2, 9, 7, 3, 3, 3, 5, 1, 1, "SAME"},      // odd sizes, direct tail
    {2, 9, 7, 3, 3, 3, 7, 1, 2, "SAME"},      // dilated, lcm(16, 7)
    {2, 9, 8, 3, 3, 2, 4, 2, 1, "SAME"},      // strided: im2col only
    {1, 6, 6, 40, 3, 3, 32, 1, 1, "VALID"},   // many channels
    {2, 4, 4, 8, 1, 1, 4, 1, 1, "VALID"},     // pointwise
    // Direct into multiples of 16 channels (conv_direct.cc's broadcast
    // kernels): the CIFAR first layer, 5 vectors (a chunk of 4 and 1) with
    // dilation and a pixel tail, a non-square window, and an input gradient
    // into 48 channels (the direct algorithm run on 2 channels of dy).
    {2, 32, 32, 3, 3, 3, 64, 1, 1, "SAME"},
    {2, 9, 7, 3, 3, 3, 80, 1, 2, "SAME"},
    {1, 7, 5, 2, 2, 3, 16, 1, 1, "VALID"},
    {2, 6, 5, 48, 3, 3, 2, 1, 1, "SAME"},
    {1, 5, 9, 1, 5, 4, 32, 1, 1, "SAME"},
    // Winograd F(4x4, 3x3) (conv_winograd.cc): outputs not a multiple of
    // the 4x4 tile, channel counts off the vector width and the 64-wide
    // panels, VALID, an image smaller than one tile, and enough tiles for
    // several blocks per thread.
    {2, 11, 13, 20, 3, 3, 24, 1, 1, "SAME"},
    {3, 8, 8, 64, 3, 3, 80, 1, 1, "SAME"},
    {2, 6, 9, 17, 3, 3, 5, 1, 1, "VALID"},
    {1, 2, 3, 16, 3, 3, 16, 1, 1, "SAME"},
    {9, 32, 32, 16, 3, 3, 16, 1, 1, "SAME"},
};

template <typename T>
std::vector<T> Random(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(*rng));
  return v;
}

// |got - want| <= tol (1 + |want| + rms(want)): float sums of thousands of
// products (a filter gradient over a batch) carry rounding errors in
// proportion to the sum's typical size, not to one entry's.
template <typename T>
void ExpectNear(const std::vector<T>& got, const std::vector<T>& want,
                double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  double squares = 0;
  for (T w : want) squares += double(w) * double(w);
  const double rms = want.empty() ? 0 : std::sqrt(squares / want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(double(want[i])) + rms))
        << what << " at " << i;
  }
}

// Every algorithm (on one thread and on the pool) against the reference
// loops over the geometry `a`.
template <typename T>
void CheckArgs(const Conv2DArgs& a, double tol, const std::string& label,
               std::mt19937* rng, ThreadPool* pool) {
  const Window2D& w = a.w;
  const int64_t in_size = w.batch * w.in_rows * w.in_cols * w.in_depth;
  const int64_t f_size =
      w.window_rows * w.window_cols * w.in_depth * a.out_depth;
  const int64_t out_size = w.batch * w.out_rows * w.out_cols * a.out_depth;
  auto x = Random<T>(in_size, rng);
  auto f = Random<T>(f_size, rng);
  auto dy = Random<T>(out_size, rng);
  std::vector<T> ref_y(out_size), ref_dx(in_size), ref_df(f_size);
  ReferenceConv2D(a, x.data(), f.data(), ref_y.data());
  ReferenceConv2DBackpropInput(a, f.data(), dy.data(), ref_dx.data());
  ReferenceConv2DBackpropFilter(a, x.data(), dy.data(), ref_df.data());
  for (ConvAlgorithm alg : {ConvAlgorithm::kDirect, ConvAlgorithm::kIm2col,
                            ConvAlgorithm::kWinograd}) {
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), pool}) {
      const std::string what = std::string(ConvAlgorithmName(alg)) +
                               (p ? " pooled " : " single ") + label;
      std::vector<T> y(out_size), dx(in_size), df(f_size);
      FastConv2D(p, a, x.data(), f.data(), y.data(), alg);
      ExpectNear(y, ref_y, tol, what + " forward");
      FastConv2DBackpropInput(p, a, f.data(), dy.data(), dx.data(), alg);
      ExpectNear(dx, ref_dx, tol, what + " backprop input");
      FastConv2DBackpropFilter(p, a, x.data(), dy.data(), df.data(), alg);
      ExpectNear(df, ref_df, tol, what + " backprop filter");
    }
  }
}

template <typename T>
void CheckAll(double tol) {
  std::mt19937 rng(7);
  ThreadPool pool(2, "test");
  for (const Case& k : kCases) {
    Conv2DArgs a;
    a.w = Window2D{k.n,  k.h,      k.w,      k.c,        k.kh,
                   k.kw, k.stride, k.stride, k.dilation, k.dilation};
    ASSERT_TRUE(a.w.Compute(k.padding).ok());
    a.out_depth = k.m;
    CheckArgs<T>(a, tol, "case " + std::to_string(&k - kCases), &rng, &pool);
  }
}

TEST(ConvAlgorithmsTest, FloatMatchesReference) { CheckAll<float>(1e-4); }
TEST(ConvAlgorithmsTest, DoubleMatchesReference) { CheckAll<double>(1e-11); }

// padding EXPLICIT: [before, after] per NHWC dimension; the window runs
// VALID over the padded input. Checked as TensorFlow checks it.
TEST(ConvAlgorithmsTest, ExplicitPadding) {
  const std::vector<int64_t> pads = {0, 0, 2, 0, 1, 3, 0, 0};
  ASSERT_TRUE(CheckExplicitPaddings("EXPLICIT", pads).ok());
  EXPECT_FALSE(CheckExplicitPaddings("SAME", pads).ok());
  EXPECT_TRUE(CheckExplicitPaddings("SAME", {}).ok());
  EXPECT_FALSE(CheckExplicitPaddings("EXPLICIT", {0, 0, 1, 1}).ok());
  EXPECT_FALSE(
      CheckExplicitPaddings("EXPLICIT", {1, 0, 1, 1, 1, 1, 0, 0}).ok());
  EXPECT_FALSE(
      CheckExplicitPaddings("EXPLICIT", {0, 0, -1, 1, 1, 1, 0, 0}).ok());
  EXPECT_FALSE(
      CheckExplicitPaddings("EXPLICIT", {0, 0, int64_t{1} << 40, 0, 0, 0, 0, 0})
          .ok());
  std::mt19937 rng(11);
  ThreadPool pool(2, "test");
  // 3x3 over 9x8 padded to 11x12: 9x10 outputs; 20 -> 24 channels run the
  // Winograd algorithm too; stride 2 rows: 5 outputs.
  for (int64_t stride : {1, 2}) {
    Conv2DArgs a{Window2D{2, 9, 8, 20, 3, 3, stride, 1}, 24};
    ASSERT_TRUE(a.w.Compute("EXPLICIT", pads).ok());
    EXPECT_EQ(a.w.out_rows, stride == 1 ? 9 : 5);
    EXPECT_EQ(a.w.out_cols, 10);
    EXPECT_EQ(a.w.pad_rows, 2);
    EXPECT_EQ(a.w.pad_cols, 1);
    CheckArgs<float>(a, 1e-4, "explicit stride " + std::to_string(stride), &rng,
                     &pool);
  }
  // Padded, the input is still smaller than the window: an error.
  Conv2DArgs small{Window2D{1, 2, 2, 1, 4, 4}, 1};
  EXPECT_FALSE(small.w.Compute("EXPLICIT", {0, 0, 1, 0, 0, 1, 0, 0}).ok());
}

TEST(ConvAlgorithmsTest, AlgorithmChoiceForLeNetLayers) {
  Conv2DArgs conv1{Window2D{64, 28, 28, 1, 5, 5}, 6};
  ASSERT_TRUE(conv1.w.Compute("SAME").ok());
  Conv2DArgs conv2{Window2D{64, 14, 14, 6, 5, 5}, 16};
  ASSERT_TRUE(conv2.w.Compute("VALID").ok());
  // conv1: one channel in, stride 1: direct forward and filter gradient;
  // its input gradient has 6 channels in (out_depth): im2col.
  EXPECT_EQ(ChooseConvAlgorithm(conv1, ConvPass::kForward, 4),
            ConvAlgorithm::kDirect);
  EXPECT_EQ(ChooseConvAlgorithm(conv1, ConvPass::kBackpropFilter, 4),
            ConvAlgorithm::kDirect);
  EXPECT_EQ(ChooseConvAlgorithm(conv1, ConvPass::kBackpropInput, 4),
            ConvAlgorithm::kIm2col);
  // conv2: 6 channels in, 16 out: im2col for all three.
  for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackpropInput,
                        ConvPass::kBackpropFilter}) {
    EXPECT_EQ(ChooseConvAlgorithm(conv2, pass, 4), ConvAlgorithm::kIm2col)
        << ConvPassName(pass);
  }
  // Strided: direct cannot run, even when asked for.
  Conv2DArgs strided{Window2D{1, 8, 8, 3, 3, 3, 2, 2}, 4};
  ASSERT_TRUE(strided.w.Compute("SAME").ok());
  EXPECT_EQ(ChooseConvAlgorithm(strided, ConvPass::kForward, 4),
            ConvAlgorithm::kIm2col);
  EXPECT_EQ(ChooseConvAlgorithm(strided, ConvPass::kForward, 4,
                                ConvAlgorithm::kDirect),
            ConvAlgorithm::kIm2col);
  // Few channels both ways, stride 1: direct for every pass, in float and
  // double; im2col when asked for.
  Conv2DArgs narrow{Window2D{2, 10, 10, 2, 3, 3}, 3};
  ASSERT_TRUE(narrow.w.Compute("SAME").ok());
  for (int element_size : {4, 8}) {
    for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackpropInput,
                          ConvPass::kBackpropFilter}) {
      EXPECT_EQ(ChooseConvAlgorithm(narrow, pass, element_size),
                ConvAlgorithm::kDirect)
          << ConvPassName(pass);
      EXPECT_EQ(ChooseConvAlgorithm(narrow, pass, element_size,
                                    ConvAlgorithm::kIm2col),
                ConvAlgorithm::kIm2col);
    }
  }
  // The CIFAR CNN's 64->128 layer (3x3, stride 1): Winograd for every pass
  // in float, im2col in double; strided or 5x5, never Winograd.
  Conv2DArgs cifar{Window2D{64, 16, 16, 64, 3, 3}, 128};
  ASSERT_TRUE(cifar.w.Compute("SAME").ok());
  for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackpropInput,
                        ConvPass::kBackpropFilter}) {
    EXPECT_EQ(ChooseConvAlgorithm(cifar, pass, 4), ConvAlgorithm::kWinograd)
        << ConvPassName(pass);
    EXPECT_EQ(ChooseConvAlgorithm(cifar, pass, 8), ConvAlgorithm::kIm2col)
        << ConvPassName(pass);
  }
  Conv2DArgs cifar_strided{Window2D{64, 16, 16, 64, 3, 3, 2, 2}, 128};
  ASSERT_TRUE(cifar_strided.w.Compute("SAME").ok());
  EXPECT_EQ(ChooseConvAlgorithm(cifar_strided, ConvPass::kForward, 4,
                                ConvAlgorithm::kWinograd),
            ConvAlgorithm::kIm2col);
  Conv2DArgs five{Window2D{64, 16, 16, 64, 5, 5}, 128};
  ASSERT_TRUE(five.w.Compute("SAME").ok());
  EXPECT_EQ(ChooseConvAlgorithm(five, ConvPass::kForward, 4),
            ConvAlgorithm::kIm2col);
  // An image too large for the direct algorithm's 1 MiB expanded buffer.
  Conv2DArgs huge{Window2D{1, 600, 600, 1, 3, 3}, 2};
  ASSERT_TRUE(huge.w.Compute("SAME").ok());
  EXPECT_EQ(ChooseConvAlgorithm(huge, ConvPass::kForward, 4),
            ConvAlgorithm::kIm2col);
  EXPECT_STREQ(ConvAlgorithmName(ConvAlgorithm::kDirect), "direct");
  EXPECT_STREQ(ConvAlgorithmName(ConvAlgorithm::kIm2col), "im2col");
}

}  // namespace
}  // namespace tensorweave
