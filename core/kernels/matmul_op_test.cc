// MatMul and BatchMatMulV2 against ReferenceMatMul.
#include "core/kernels/matmul_op.h"

#include <gtest/gtest.h>

#include <random>

#include "core/kernels/kernel_test_util.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace {

using test::AttrBool;
using test::MakeTensor;
using test::MessageHas;
using test::RunOne;
using test::RunOp;
using test::ToVector;

template <typename T>
std::vector<T> Random(int64_t n, int seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

TEST(MatMulTest, GemmMatchesReferenceOnEveryPathAndSplit) {
  ThreadPool pool(1, "test");
  // Shapes that run unsplit, split by rows (m >= n), split by columns and
  // with sizes that do not divide evenly; and SmallGemm's (m a multiple of
  // 8, n of 32, m <= 64 or k <= 64, with B transposed k a multiple of 8: a
  // recurrent cell's products, whole and split into row or column blocks;
  // op(B) packed whole when it takes at most 256 KB, panel by panel above;
  // an inner dimension in slices of 256 and a shorter last one).
  const int64_t shapes[][3] = {{3, 5, 4},
                               {1000, 24, 300},
                               {40, 900, 128},
                               {257, 259, 131},
                               {1, 1, 1},
                               {5, 3, 0},
                               {8, 32, 1},
                               {32, 1024, 384},
                               {384, 1024, 32},
                               {64, 96, 7},
                               {16, 4096, 48},
                               {24, 64, 65},
                               {32, 384, 1024},
                               {8, 64, 8},
                               {40, 32, 12},
                               {16, 64, 700},
                               // A dense layer's weight gradient (all of op(B)
                               // packed once) and the largest op(B) packed so.
                               {4096, 512, 64},
                               {2048, 2048, 32},
                               {2048, 2080, 32}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      // Small integers: every product is exact in float.
      std::vector<float> a = Random<float>(m * k, 1),
                         b = Random<float>(k * n, 2);
      std::vector<float> want(m * n), got(m * n, -1);
      ReferenceMatMul<float>(a.data(), b.data(), want.data(), m, n, k, ta, tb);
      Gemm<float>(&pool, a.data(), b.data(), got.data(), m, n, k, ta, tb);
      ASSERT_EQ(got, want) << m << "x" << n << "x" << k << " t" << t;
      // C = -0.5 op(A) op(B) + C: exact too (halves of small integers).
      std::vector<float> acc = Random<float>(m * n, 5), want_acc(m * n);
      for (int64_t i = 0; i < m * n; ++i) want_acc[i] = acc[i] - 0.5f * want[i];
      Gemm<float>(&pool, a.data(), b.data(), acc.data(), m, n, k, ta, tb, -0.5f,
                  1.0f);
      ASSERT_EQ(acc, want_acc) << "alpha/beta " << m << "x" << n << "x" << k;
      std::vector<int64_t> ai = Random<int64_t>(m * k, 3);
      std::vector<int64_t> bi = Random<int64_t>(k * n, 4);
      std::vector<int64_t> wi(m * n), gi(m * n, -1);
      ReferenceMatMul<int64_t>(ai.data(), bi.data(), wi.data(), m, n, k, ta,
                               tb);
      Gemm<int64_t>(nullptr, ai.data(), bi.data(), gi.data(), m, n, k, ta, tb);
      ASSERT_EQ(gi, wi);
    }
  }
}

TEST(MatMulTest, OpWithTransposesAndThreads) {
  const int64_t m = 300, n = 200, k = 70;
  std::vector<double> a = Random<double>(k * m, 5),
                      b = Random<double>(n * k, 6);
  std::vector<double> want(m * n);
  ReferenceMatMul<double>(a.data(), b.data(), want.data(), m, n, k, true, true);
  for (int threads : {1, 2}) {
    Tensor out = RunOne(
        "MatMul",
        {MakeTensor<double>({k, m}, a), MakeTensor<double>({n, k}, b)},
        {{"transpose_a", AttrBool(true)}, {"transpose_b", AttrBool(true)}},
        threads);
    EXPECT_EQ(out.shape(), TensorShape({m, n}));
    EXPECT_EQ(ToVector<double>(out), want);
  }
  std::vector<Tensor> out;
  Status s = RunOp("MatMul",
                   {MakeTensor<float>({2, 3}, Random<float>(6, 1)),
                    MakeTensor<float>({2, 3}, Random<float>(6, 2))},
                   {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(MessageHas(s, "must be equal")) << s.ToString();
}

TEST(MatMulTest, BatchMatMulBroadcastsBatchDims) {
  // x: [2, 1, 3, 4] (adjoint: stored [2, 1, 4, 3]); y: [5, 4, 2].
  const int64_t m = 3, k = 4, n = 2;
  std::vector<float> x = Random<float>(2 * k * m, 7),
                     y = Random<float>(5 * k * n, 8);
  Tensor out = RunOne(
      "BatchMatMulV2",
      {MakeTensor<float>({2, 1, k, m}, x), MakeTensor<float>({5, k, n}, y)},
      {{"adj_x", AttrBool(true)}});
  ASSERT_EQ(out.shape(), TensorShape({2, 5, m, n}));
  std::vector<float> got = ToVector<float>(out);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 5; ++j) {
      std::vector<float> want(m * n);
      ReferenceMatMul<float>(x.data() + i * k * m, y.data() + j * k * n,
                             want.data(), m, n, k, true, false);
      std::vector<float> slice(got.begin() + (i * 5 + j) * m * n,
                               got.begin() + (i * 5 + j + 1) * m * n);
      EXPECT_EQ(slice, want) << i << "," << j;
    }
  }
  std::vector<Tensor> outs;
  Status s = RunOp("BatchMatMulV2",
                   {MakeTensor<float>({2, 3, 4}, Random<float>(24, 1)),
                    MakeTensor<float>({3, 4, 2}, Random<float>(24, 2))},
                   {}, &outs);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(MessageHas(s, "broadcast")) << s.ToString();
}

}  // namespace
}  // namespace tensorweave
