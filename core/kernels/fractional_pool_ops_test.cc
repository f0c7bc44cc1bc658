// FractionalMaxPool / FractionalAvgPool, their gradients and
// GenerateBoundingBoxProposals on small cases worked out by hand (the Python
// tests compare with numpy and TensorFlow; these run the kernels' success
// paths under the sanitizers too).
#include <gtest/gtest.h>

#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AttrBool;
using test::AttrInt;
using test::Attrs;
using test::MakeTensor;
using test::ToVector;

Attrs PoolAttrs(std::vector<float> ratio, bool overlapping) {
  Attrs a;
  for (float r : ratio) a["pooling_ratio"].mutable_list()->add_f(r);
  a["overlapping"] = AttrBool(overlapping);
  a["deterministic"] = AttrBool(true);
  a["seed"] = AttrInt(3);
  a["seed2"] = AttrInt(4);
  return a;
}

TEST(FractionalPoolOpsTest, DivisibleLengthsPoolFixedRegions) {
  // A 4 x 4 image 0..15 in 2 x 2 cells; overlapping cells also take the
  // next row and column (clipped at the edge).
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = static_cast<float>(i);
  const Tensor x = MakeTensor<float>({1, 4, 4, 1}, values);
  std::vector<Tensor> out;
  ASSERT_TRUE(test::RunOp("FractionalMaxPool", {x},
                          PoolAttrs({1, 2, 2, 1}, false), &out, 3)
                  .ok());
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(ToVector<int64_t>(out[1]), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(ToVector<int64_t>(out[2]), (std::vector<int64_t>{0, 2, 4}));
  ASSERT_TRUE(test::RunOp("FractionalAvgPool", {x},
                          PoolAttrs({1, 2, 2, 1}, true), &out, 3)
                  .ok());
  // Cell (0, 0) spans rows and columns 0..2: mean of 0,1,2,4,5,6,8,9,10.
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{5, 6.5, 11, 12.5}));
}

TEST(FractionalPoolOpsTest, RandomSequencesPartitionTheInput) {
  const Tensor x =
      MakeTensor<double>({2, 23, 17, 3}, std::vector<double>(2 * 23 * 17 * 3));
  std::vector<Tensor> out;
  ASSERT_TRUE(test::RunOp("FractionalMaxPool", {x},
                          PoolAttrs({1, 1.6f, 1.3f, 1}, true), &out, 3)
                  .ok());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 14, 13, 3}));
  const std::vector<int64_t> rows = ToVector<int64_t>(out[1]);
  ASSERT_EQ(rows.size(), 15u);
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), 23);
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    EXPECT_TRUE(rows[i + 1] - rows[i] == 1 || rows[i + 1] - rows[i] == 2);
  }
}

TEST(FractionalPoolOpsTest, GradientsRouteAndSpreadByHand) {
  // One row [1, 5, 2, 4], cells [0, 2) and [2, 4).
  const Tensor x = MakeTensor<int32_t>({1, 1, 4, 1}, {1, 5, 2, 4});
  const Tensor y = MakeTensor<int32_t>({1, 1, 2, 1}, {5, 4});
  const Tensor g = MakeTensor<int32_t>({1, 1, 2, 1}, {10, 100});
  const Tensor rows = MakeTensor<int64_t>({2}, {0, 1});
  const Tensor cols = MakeTensor<int64_t>({3}, {0, 2, 4});
  Attrs attrs = {{"overlapping", AttrBool(false)}};
  EXPECT_EQ(ToVector<int32_t>(test::RunOne("FractionalMaxPoolGrad",
                                           {x, y, g, rows, cols}, attrs)),
            (std::vector<int32_t>{0, 10, 0, 100}));
  const Tensor shape = MakeTensor<int64_t>({4}, {1, 1, 4, 1});
  EXPECT_EQ(ToVector<int32_t>(test::RunOne("FractionalAvgPoolGrad",
                                           {shape, g, rows, cols}, attrs)),
            (std::vector<int32_t>{5, 5, 50, 50}));
  // Overlapping: the first cell spans columns 0..2, the second 2..3.
  attrs["overlapping"] = AttrBool(true);
  EXPECT_EQ(ToVector<int32_t>(test::RunOne("FractionalMaxPoolGrad",
                                           {x, y, g, rows, cols}, attrs)),
            (std::vector<int32_t>{0, 10, 0, 100}));
}

TEST(FractionalPoolOpsTest, GradientsRefuseSequencesOutsideTheInput) {
  const Tensor g = MakeTensor<float>({1, 1, 2, 1}, {1, 2});
  const Tensor shape = MakeTensor<int64_t>({4}, {1, 1, 4, 1});
  const Tensor rows = MakeTensor<int64_t>({2}, {0, 1});
  Tensor out;
  test::ExpectInvalidArgument(
      test::RunOpOnPlaceholders(
          "FractionalAvgPoolGrad",
          {shape, g, rows, MakeTensor<int64_t>({3}, {0, 4, 6})}, {}, &out),
      "must increase");
  test::ExpectInvalidArgument(
      test::RunOpOnPlaceholders(
          "FractionalAvgPoolGrad",
          {shape, g, rows, MakeTensor<int64_t>({2}, {0, 4})}, {}, &out),
      "must have 3 elements");
}

TEST(GenerateBoundingBoxProposalsTest, DecodesClipsFiltersAndSuppresses) {
  // One position, two anchors: [5, 5, 25, 25] (score 0.7) and [-10, -10,
  // 50, 70] (score 0.3, clipped to the 40 x 60 image), no deltas.
  const Tensor scores = MakeTensor<float>({1, 1, 1, 2}, {0.7f, 0.3f});
  const Tensor deltas = MakeTensor<float>({1, 1, 1, 8}, std::vector<float>(8));
  const Tensor info = MakeTensor<float>({1, 5}, {40, 60, 1, 0, 0});
  const Tensor anchors =
      MakeTensor<float>({1, 1, 8}, {5, 5, 25, 25, -10, -10, 50, 70});
  const Attrs attrs = {{"post_nms_topn", AttrInt(3)}};
  auto run = [&](float threshold, float min_size) {
    std::vector<Tensor> out;
    EXPECT_TRUE(test::RunOp("GenerateBoundingBoxProposals",
                            {scores, deltas, info, anchors,
                             MakeTensor<float>(TensorShape(), {threshold}),
                             MakeTensor<int32_t>(TensorShape(), {10}),
                             MakeTensor<float>(TensorShape(), {min_size})},
                            attrs, &out, 2)
                    .ok());
    return out;
  };
  std::vector<Tensor> out = run(0.7f, 16);
  EXPECT_EQ(ToVector<float>(out[0]),
            (std::vector<float>{5, 5, 25, 25, 0, 0, 40, 60, 0, 0, 0, 0}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{0.7f, 0.3f, 0}));
  // IoU 400 / 2400 > 0.1: the second box is suppressed.
  EXPECT_EQ(ToVector<float>(run(0.1f, 16)[1]),
            (std::vector<float>{0.7f, 0, 0}));
  // A side of 20 is below 21: only the big box is left.
  EXPECT_EQ(ToVector<float>(run(0.7f, 21)[1]),
            (std::vector<float>{0.3f, 0, 0}));
}

}  // namespace
}  // namespace tensorweave
