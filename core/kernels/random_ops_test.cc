#include <gtest/gtest.h>

#include <algorithm>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AttrInt;
using test::RunFetches;
using test::ToVector;

std::shared_ptr<Graph> MultinomialGraph(int64_t seed) {
  auto g = std::make_shared<Graph>();
  Tensor logits(DT_FLOAT, TensorShape({64, 5}));
  for (int64_t i = 0; i < logits.num_elements(); ++i) {
    logits.data<float>()[i] = static_cast<float>(i % 5);
  }
  AddConst(g.get(), "logits", logits);
  AddConst(g.get(), "n", Tensor::Scalar<int32_t>(1000));
  AddOp(g.get(), "Multinomial", "m", {"logits", "n"},
        {{"seed", AttrInt(seed)}, {"seed2", AttrInt(3)}});
  return g;
}

TEST(RandomOpsTest, MultinomialDoesNotDependOnThreadCount) {
  auto g = MultinomialGraph(7);
  std::vector<Tensor> one, four;
  TW_ASSERT_OK(RunFetches(g, {"m:0"}, &one, 1));
  TW_ASSERT_OK(RunFetches(g, {"m:0"}, &four, 4));
  EXPECT_EQ(ToVector<int64_t>(one[0]), ToVector<int64_t>(four[0]));
  std::vector<Tensor> other;
  TW_ASSERT_OK(RunFetches(MultinomialGraph(8), {"m:0"}, &other, 1));
  EXPECT_NE(ToVector<int64_t>(one[0]), ToVector<int64_t>(other[0]));
  for (int64_t v : ToVector<int64_t>(one[0])) {
    ASSERT_TRUE(v >= 0 && v < 5) << v;
  }
}

TEST(RandomOpsTest, RandomShufflePermutesRows) {
  auto g = std::make_shared<Graph>();
  std::vector<int32_t> values(100);
  for (int i = 0; i < 100; ++i) values[i] = i;
  AddConst(g.get(), "x",
           test::MakeTensor<int32_t>(TensorShape({50, 2}), values));
  AddOp(g.get(), "RandomShuffle", "s", {"x"}, {{"seed", AttrInt(1)}});
  std::vector<Tensor> out;
  TW_ASSERT_OK(RunFetches(g, {"s:0"}, &out));
  std::vector<int32_t> got = ToVector<int32_t>(out[0]);
  EXPECT_NE(got, values);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(got[2 * i] + 1, got[2 * i + 1]);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, values);
}

}  // namespace
}  // namespace tensorweave
