#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/kernels/kernel_test_util.h"
#include "core/kernels/matmul_op.h"

namespace tensorweave {
namespace {

using test::AttrBool;
using test::HasSubstr;
using test::MakeTensor;
using test::RunOpOnPlaceholders;
using test::ToVector;

template <typename T>
Tensor RandomMatrix(int64_t rows, int64_t cols, std::mt19937* rng) {
  Tensor t(DataTypeOf<T>::value, TensorShape({rows, cols}));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      t.data<T>()[i] = std::uniform_real_distribution<T>(-1, 1)(*rng);
    } else {
      t.data<T>()[i] =
          static_cast<T>(std::uniform_int_distribution<int>(-9, 9)(*rng));
    }
  }
  return t;
}

// An independent triple loop (for dtypes ReferenceMatMul is not built for).
template <typename T>
std::vector<T> NaiveMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  int64_t m = a.dim(ta ? 1 : 0), k = a.dim(ta ? 0 : 1), n = b.dim(tb ? 0 : 1);
  std::vector<T> c(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) {
        T av = ta ? a.data<T>()[p * m + i] : a.data<T>()[i * k + p];
        T bv = tb ? b.data<T>()[j * k + p] : b.data<T>()[p * n + j];
        c[i * n + j] += av * bv;
      }
  return c;
}

template <typename T>
void ExpectClose(const Tensor& got, const std::vector<T>& want, double rtol,
                 const std::string& what) {
  ASSERT_EQ(got.num_elements(), static_cast<int64_t>(want.size())) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got.data<T>()[i], w = want[i];
    if (std::fabs(g - w) > rtol * std::max(1.0, std::fabs(w))) {
      if (++bad < 5)
        ADD_FAILURE() << what << " [" << i << "] " << g << " vs " << w;
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

TEST(ReferenceMatMulTest, HandComputed) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
  const float a[] = {1, 2, 3, 4, 5, 6};
  const float b[] = {7, 8, 9, 10, 11, 12};
  float c[4];
  ReferenceMatMul<float>(a, b, c, 2, 2, 3, false, false);
  EXPECT_EQ(std::vector<float>(c, c + 4),
            (std::vector<float>{58, 64, 139, 154}));
  // a^T where a is stored [3,2]: a = [[1,4],[2,5],[3,6]].
  const float at[] = {1, 4, 2, 5, 3, 6};
  ReferenceMatMul<float>(at, b, c, 2, 2, 3, true, false);
  EXPECT_EQ(std::vector<float>(c, c + 4),
            (std::vector<float>{58, 64, 139, 154}));
  const double bt[] = {7, 9, 11, 8, 10, 12};
  const double ad[] = {1, 2, 3, 4, 5, 6};
  double cd[4];
  ReferenceMatMul<double>(ad, bt, cd, 2, 2, 3, false, true);
  EXPECT_EQ(std::vector<double>(cd, cd + 4),
            (std::vector<double>{58, 64, 139, 154}));
}

template <typename T>
void CheckAllTransposes(int intra_threads) {
  std::mt19937 rng(11);
  const int64_t sizes[][3] = {{1, 1, 1},   {1, 7, 3},    {5, 1, 9},   {3, 5, 7},
                              {17, 33, 9}, {64, 31, 65}, {33, 2, 100}};
  for (const auto& s : sizes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        Tensor a =
            ta ? RandomMatrix<T>(k, m, &rng) : RandomMatrix<T>(m, k, &rng);
        Tensor b =
            tb ? RandomMatrix<T>(n, k, &rng) : RandomMatrix<T>(k, n, &rng);
        Tensor c;
        TW_ASSERT_OK(RunOpOnPlaceholders(
            "MatMul", {a, b},
            {{"transpose_a", AttrBool(ta)}, {"transpose_b", AttrBool(tb)}}, &c,
            intra_threads));
        ASSERT_EQ(c.shape(), TensorShape({m, n}));
        std::string what =
            DataTypeName(DataTypeOf<T>::value) + " m=" + std::to_string(m) +
            " k=" + std::to_string(k) + " n=" + std::to_string(n) +
            " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
        if constexpr (std::is_floating_point_v<T>) {
          std::vector<T> want(m * n);
          ReferenceMatMul<T>(a.data<T>(), b.data<T>(), want.data(), m, n, k, ta,
                             tb);
          ExpectClose<T>(c, want, 1e-4, what);
          // The oracle agrees with the naive loop too.
          ExpectClose<T>(c, NaiveMatMul<T>(a, b, ta, tb), 1e-4, what);
        } else {
          EXPECT_EQ(ToVector<T>(c), NaiveMatMul<T>(a, b, ta, tb)) << what;
        }
      }
    }
  }
}

TEST(MatMulOpTest, FloatAllTransposes) { CheckAllTransposes<float>(1); }
TEST(MatMulOpTest, DoubleAllTransposes) { CheckAllTransposes<double>(2); }
TEST(MatMulOpTest, Int32AllTransposes) { CheckAllTransposes<int32_t>(1); }
TEST(MatMulOpTest, Int64AllTransposes) { CheckAllTransposes<int64_t>(1); }

TEST(MatMulOpTest, LargeWithIntraOpThreads) {
  std::mt19937 rng(5);
  const int64_t m = 300, k = 200, n = 250;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Tensor a = ta ? RandomMatrix<float>(k, m, &rng)
                    : RandomMatrix<float>(m, k, &rng);
      Tensor b = tb ? RandomMatrix<float>(n, k, &rng)
                    : RandomMatrix<float>(k, n, &rng);
      std::vector<float> want(m * n);
      ReferenceMatMul<float>(a.data<float>(), b.data<float>(), want.data(), m,
                             n, k, ta, tb);
      for (int threads : {1, 4}) {
        Tensor c;
        TW_ASSERT_OK(RunOpOnPlaceholders(
            "MatMul", {a, b},
            {{"transpose_a", AttrBool(ta)}, {"transpose_b", AttrBool(tb)}}, &c,
            threads));
        ASSERT_EQ(c.shape(), TensorShape({m, n}));
        ExpectClose<float>(c, want, 1e-4,
                           "large ta=" + std::to_string(ta) +
                               " tb=" + std::to_string(tb) +
                               " threads=" + std::to_string(threads));
      }
    }
  }
}

TEST(MatMulOpTest, EmptyDimensions) {
  Tensor c;
  // k == 0: all zeros.
  TW_ASSERT_OK(RunOpOnPlaceholders("MatMul",
                                   {Tensor(DT_FLOAT, TensorShape({2, 0})),
                                    Tensor(DT_FLOAT, TensorShape({0, 3}))},
                                   {}, &c));
  EXPECT_EQ(c.shape(), TensorShape({2, 3}));
  EXPECT_EQ(ToVector<float>(c), std::vector<float>(6, 0));
  TW_ASSERT_OK(RunOpOnPlaceholders("MatMul",
                                   {Tensor(DT_INT32, TensorShape({2, 0})),
                                    Tensor(DT_INT32, TensorShape({0, 2}))},
                                   {}, &c));
  EXPECT_EQ(ToVector<int32_t>(c), std::vector<int32_t>(4, 0));
  TW_ASSERT_OK(RunOpOnPlaceholders("MatMul",
                                   {Tensor(DT_DOUBLE, TensorShape({0, 4})),
                                    Tensor(DT_DOUBLE, TensorShape({4, 3}))},
                                   {}, &c));
  EXPECT_EQ(c.shape(), TensorShape({0, 3}));
}

TEST(MatMulOpTest, RunTimeShapeErrors) {
  Tensor c;
  Status s = RunOpOnPlaceholders("MatMul",
                                 {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                  Tensor(DT_FLOAT, TensorShape({4, 5}))},
                                 {}, &c);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "Matrix size-incompatible")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "[2,3]")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "[[node op")) << s;
  s = RunOpOnPlaceholders("MatMul",
                          {Tensor(DT_FLOAT, TensorShape({3})),
                           Tensor(DT_FLOAT, TensorShape({3, 1}))},
                          {}, &c);
  EXPECT_TRUE(
      HasSubstr(s.message(), "a matrix product needs matrices, got In[0]: [3]"))
      << s;
}

}  // namespace
}  // namespace tensorweave
