// ATTENTION: the optimized path against the reference path and against
// softmax(scale Q K^T + bias) V written out here in double over the logical
// [B, H, S, D] operands (each laid out per its layout), over layouts,
// grouped-query heads, bias broadcasting, odd sizes, query blocks split
// between 1 to 3 threads, fully masked rows, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using schema::AttentionLayout;
using testing::BuiltinOperator;
using testing::OpModel;

constexpr auto BHSD = AttentionLayout::BHSD;
constexpr auto BSHD = AttentionLayout::BSHD;
constexpr auto BHDS = AttentionLayout::BHDS;

std::vector<float> Random(int64_t n, unsigned seed, float scale = 1.f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  int B = 2, Hq = 2, Hkv = 2, Sq = 5, Skv = 6, D = 4, Dv = 3;
  AttentionLayout q = BHSD, k = BHSD, v = BHSD, y = BHSD;
  std::vector<int32_t> bias_shape;  // empty: no bias
  float scale = 0;
  bool zero_masked_rows = false;
  int threads = 2;
  // Bias entries set to -inf: every `mask_every`-th (0: none).
  int mask_every = 0;
  bool mask_row0 = false;  // query 0 of every head sees no key
};

// The shape of logical [B, H, S, D] in `layout`.
std::vector<int32_t> Laid(int B, int H, int S, int D, AttentionLayout l) {
  if (l == BSHD) return {B, S, H, D};
  if (l == BHDS) return {B, H, D, S};
  return {B, H, S, D};
}
int64_t At(const std::vector<int32_t>& shape, AttentionLayout l, int b, int h,
           int s, int d) {
  if (l == BSHD)
    return ((int64_t{b} * shape[1] + s) * shape[2] + h) * shape[3] + d;
  if (l == BHDS)
    return ((int64_t{b} * shape[1] + h) * shape[2] + d) * shape[3] + s;
  return ((int64_t{b} * shape[1] + h) * shape[2] + s) * shape[3] + d;
}

void Check(const Case& c) {
  OpModel m;
  const auto qs = Laid(c.B, c.Hq, c.Sq, c.D, c.q);
  const auto ks = Laid(c.B, c.Hkv, c.Skv, c.D, c.k);
  const auto vs = Laid(c.B, c.Hkv, c.Skv, c.Dv, c.v);
  int q = m.AddInput(DataType::kFloat32, qs);
  int k = m.AddInput(DataType::kFloat32, ks);
  int v = m.AddInput(DataType::kFloat32, vs);
  int bias =
      c.bias_shape.empty() ? -1 : m.AddInput(DataType::kFloat32, c.bias_shape);
  int y = m.AddOutput(DataType::kFloat32);
  auto& fbb = m.builder().fbb();
  testing::Options options{
      schema::BuiltinOptions::AttentionOptions,
      schema::CreateAttentionOptions(fbb, c.scale, c.q, c.k, c.v, c.y,
                                     c.zero_masked_rows)
          .Union()};
  m.AddOp(BuiltinOperator::ATTENTION, {q, k, v, bias}, {y}, options);
  Status st = m.Build(c.threads);
  ASSERT_TRUE(st.ok()) << st.message();
  auto qv = Random(int64_t{c.B} * c.Hq * c.Sq * c.D, 1);
  auto kv = Random(int64_t{c.B} * c.Hkv * c.Skv * c.D, 2);
  auto vv = Random(int64_t{c.B} * c.Hkv * c.Skv * c.Dv, 3);
  m.SetInput<float>(0, qv);
  m.SetInput<float>(1, kv);
  m.SetInput<float>(2, vv);
  std::vector<float> bv;
  std::vector<int64_t> bstride(4, 0);
  if (bias >= 0) {
    int64_t n = 1;
    for (int32_t dim : c.bias_shape) n *= dim;
    bv = Random(n, 4, 2.f);
    for (int64_t i = 0; c.mask_every > 0 && i < n; i += c.mask_every) {
      bv[i] = -INFINITY;
    }
    const int rank = static_cast<int>(c.bias_shape.size());
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      bstride[4 - rank + i] = c.bias_shape[i] == 1 ? 0 : stride;
      stride *= c.bias_shape[i];
    }
    if (c.mask_row0) {  // bias [B or 1, H or 1, Sq, Skv]: query 0 masked
      for (int64_t i = 0; i < n; ++i) {
        if ((i / c.bias_shape[rank - 1]) % c.Sq == 0) bv[i] = -INFINITY;
      }
    }
    m.SetInput<float>(3, bv);
  }
  st = m.Invoke();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(m.CompareWithReference(), "");
  const auto ys = Laid(c.B, c.Hq, c.Sq, c.Dv, c.y);
  EXPECT_EQ(m.OutputShape(0), ys);
  const auto got = m.GetOutput<float>(0);
  const double scale = c.scale != 0 ? c.scale : 1.0 / std::sqrt(double{c.D});
  for (int b = 0; b < c.B; ++b) {
    for (int h = 0; h < c.Hq; ++h) {
      const int kh = h / (c.Hq / c.Hkv);
      for (int i = 0; i < c.Sq; ++i) {
        std::vector<double> s(c.Skv);
        double max = -INFINITY;
        for (int j = 0; j < c.Skv; ++j) {
          double dot = 0;
          for (int f = 0; f < c.D; ++f) {
            dot += double{qv[At(qs, c.q, b, h, i, f)]} *
                   kv[At(ks, c.k, b, kh, j, f)];
          }
          s[j] = dot * scale;
          if (bias >= 0) {
            s[j] += bv[b * bstride[0] + h * bstride[1] + i * bstride[2] +
                       j * bstride[3]];
          }
          max = std::max(max, s[j]);
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - max));
        for (int f = 0; f < c.Dv; ++f) {
          double want = 0;
          for (int j = 0; j < c.Skv; ++j) {
            want += s[j] / sum * vv[At(vs, c.v, b, kh, j, f)];
          }
          const float g = got[At(ys, c.y, b, h, i, f)];
          if (std::isinf(max)) {  // every key masked
            if (c.zero_masked_rows) {
              ASSERT_EQ(g, 0.f) << b << "," << h << "," << i;
            } else {
              ASSERT_TRUE(std::isnan(g)) << b << "," << h << "," << i;
            }
          } else {
            ASSERT_NEAR(g, want, 2e-5 + 2e-5 * std::fabs(want))
                << b << "," << h << "," << i << "," << f;
          }
        }
      }
    }
  }
}

TEST(AttentionTest, HeadsFirstNoBias) { Check(Case()); }

TEST(AttentionTest, EncoderLayoutsWithKeyMask) {
  // As the ONNX encoder: Q, V and Y [B, S, H, D], K [B, H, D, S], an
  // additive mask [B, 1, 1, Skv] over the keys.
  for (int threads : {1, 2}) {
    Case c;
    c.threads = threads;
    c.B = 1;
    c.Hq = c.Hkv = 4;
    c.Sq = c.Skv = 32;
    c.D = c.Dv = 32;
    c.q = c.v = c.y = BSHD;
    c.k = BHDS;
    c.bias_shape = {1, 1, 1, 32};
    c.mask_every = 5;
    Check(c);
  }
}

TEST(AttentionTest, GroupedQueryHeadsFullBias) {
  Case c;
  c.Hq = 6;
  c.Hkv = 2;
  c.k = BSHD;
  c.bias_shape = {2, 6, 5, 6};
  c.scale = 0.3f;
  Check(c);
  c.bias_shape = {5, 1};  // per query, broadcast over the keys
  Check(c);
  c.bias_shape = {1};  // one value for every score
  Check(c);
}

TEST(AttentionTest, OddSizesAndQueryBlocksSplitBetweenThreads) {
  for (int threads : {1, 2, 3}) {
    Case c;
    c.threads = threads;
    c.B = 1;
    c.Hq = c.Hkv = 1;  // fewer heads than threads: queries split
    c.Sq = 67;
    c.Skv = 301;  // more than one block of rows per thread
    c.D = 13;
    c.Dv = 17;
    c.y = BSHD;
    c.bias_shape = {1, 67, 301};
    c.mask_every = 7;
    Check(c);
  }
}

TEST(AttentionTest, RowsWithEveryKeyMasked) {
  Case c;
  c.bias_shape = {2, 1, 5, 6};
  c.mask_row0 = true;
  Check(c);  // NaN, as SOFTMAX gives
  c.zero_masked_rows = true;
  Check(c);  // zeros, as ONNX Attention
}

TEST(AttentionTest, Errors) {
  auto prepare = [](std::vector<int32_t> q, std::vector<int32_t> k,
                    std::vector<int32_t> v, std::vector<int32_t> bias,
                    AttentionLayout q_layout = BHSD) {
    OpModel m;
    int qi = m.AddInput(DataType::kFloat32, q);
    int ki = m.AddInput(DataType::kFloat32, k);
    int vi = m.AddInput(DataType::kFloat32, v);
    int bi = bias.empty() ? -1 : m.AddInput(DataType::kFloat32, bias);
    int y = m.AddOutput(DataType::kFloat32);
    testing::Options options{
        schema::BuiltinOptions::AttentionOptions,
        schema::CreateAttentionOptions(m.builder().fbb(), 0, q_layout).Union()};
    m.AddOp(BuiltinOperator::ATTENTION, {qi, ki, vi, bi}, {y}, options);
    return std::string(m.Build().message());
  };
  EXPECT_EQ(prepare({1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 6}, {}), "");
  EXPECT_NE(prepare({1, 2, 3, 4}, {1, 2, 5, 3}, {1, 2, 5, 6}, {})
                .find("do not match"),
            std::string::npos);
  EXPECT_NE(prepare({1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 4, 6}, {})
                .find("do not match"),
            std::string::npos);
  EXPECT_NE(prepare({1, 3, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 6}, {})
                .find("3 query heads cannot share 2"),
            std::string::npos);
  EXPECT_NE(prepare({1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 6}, {3, 4})
                .find("does not broadcast"),
            std::string::npos);
  EXPECT_NE(prepare({1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 6}, {}, BHDS)
                .find("Q layout 2 is not BHSD or BSHD"),
            std::string::npos);
  EXPECT_NE(prepare({1, 2, 3}, {1, 2, 5, 4}, {1, 2, 5, 6}, {}).find("rank"),
            std::string::npos);
}

}  // namespace
}  // namespace twl
