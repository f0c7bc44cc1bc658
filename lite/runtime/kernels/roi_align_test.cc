#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

struct Roi {
  int out_h = 1, out_w = 1, sampling_ratio = 0;
  float spatial_scale = 1;
  bool half_pixel = true, max_mode = false;
};

Options RoiAlign(OpModel& m, const Roi& o) {
  return {schema::BuiltinOptions::RoiAlignOptions,
          schema::CreateRoiAlignOptions(m.builder().fbb(), o.out_h, o.out_w,
                                        o.sampling_ratio, o.spatial_scale,
                                        o.half_pixel, o.max_mode)
              .Union()};
}

// ROI_ALIGN of X [x_shape] over `rois` (batch index `batch` each); the
// output, checked equal to the reference interpreter's.
std::vector<float> Align(const std::vector<int32_t>& x_shape,
                         const std::vector<float>& x,
                         const std::vector<float>& rois,
                         const std::vector<int64_t>& batch, const Roi& o,
                         Status* status = nullptr) {
  OpModel m;
  const int n = static_cast<int>(batch.size());
  int xi = m.AddInput(DataType::kFloat32, x_shape);
  int ri = m.AddInput(DataType::kFloat32, {n, 4});
  int bi = m.AddInput(DataType::kInt64, {n});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::ROI_ALIGN, {xi, ri, bi}, {y}, RoiAlign(m, o));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<float>(0, x);
  m.SetInput<float>(1, rois);
  m.SetInput<int64_t>(2, batch);
  s = m.Invoke();
  if (status != nullptr) {
    *status = s;
    return {};
  }
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<float>(0);
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5) << "at " << i;
  }
}

// X [1, 1, 4, 4] with X[y][x] = 10 y + x: bilinear samples of a linear
// function are exact, so an average is the function at the samples' mean.
std::vector<float> Ramp() {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = 10.0f * (i / 4) + (i % 4);
  return x;
}

TEST(RoiAlignTest, AverageOfALinearFunctionIsItsValueAtTheBinCenter) {
  // Roi (0, 0)-(2, 2) in half-pixel mode is [-0.5, 1.5] on each axis: 2x2
  // bins of 1 pixel centred at 0 and 1, two samples each way per bin.
  Roi o;
  o.out_h = o.out_w = 2;
  o.sampling_ratio = 2;
  // Samples at -0.25 clamp to 0 (within a pixel of the edge), so the first
  // bin averages 0 and 0.25 on each axis: 0.125.
  ExpectNear(Align({1, 1, 4, 4}, Ramp(), {0, 0, 2, 2}, {0}, o),
             {0.125f * 11, 0.125f * 10 + 1, 10 + 0.125f, 11});
}

TEST(RoiAlignTest, SpatialScaleAndOutputHalfPixel) {
  // spatial_scale 0.5 maps (2, 2)-(6, 6) to (1, 1)-(3, 3); without the
  // half-pixel shift one 2x2 bin has adaptive 2x2 samples at 1.5 and 2.5.
  Roi o;
  o.spatial_scale = 0.5f;
  o.half_pixel = false;
  ExpectNear(Align({1, 1, 4, 4}, Ramp(), {2, 2, 6, 6}, {0}, o), {22});
}

TEST(RoiAlignTest, MaxTakesTheLargestWeightedNeighbour) {
  // One sample at (0.5, 0.5) of X [[0, 4], [8, 12]] (one bin, sampling 1):
  // each neighbour weighs 0.25, the largest weighted one is 3.
  Roi o;
  o.sampling_ratio = 1;
  o.max_mode = true;
  o.half_pixel = false;
  ExpectNear(Align({1, 1, 2, 2}, {0, 4, 8, 12}, {0, 0, 1, 1}, {0}, o), {3});
}

TEST(RoiAlignTest, FarOutsideSamplesAreZeroAndBatchesAreIndexed) {
  // Roi 1 reads batch 1 (X + 100); a roi more than a pixel off X is 0.
  std::vector<float> x = Ramp();
  for (int i = 0; i < 16; ++i) x.push_back(x[i] + 100);
  Roi o;
  o.sampling_ratio = 1;
  o.half_pixel = false;
  std::vector<float> got = Align(
      {2, 1, 4, 4}, x, {1, 1, 2, 2, 1, 1, 2, 2, 9, 9, 10, 10}, {0, 1, 0}, o);
  ExpectNear(got, {16.5f, 116.5f, 0});
}

TEST(RoiAlignTest, ThreadsMatchTheReference) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> x(2 * 3 * 9 * 11), rois;
  for (float& v : x) v = u(rng);
  for (int r = 0; r < 7; ++r) {
    float x1 = 10 * u(rng), y1 = 8 * u(rng);
    rois.insert(rois.end(), {x1, y1, x1 + 6 * u(rng), y1 + 5 * u(rng)});
  }
  for (bool max_mode : {false, true}) {
    Roi o;
    o.out_h = 3;
    o.out_w = 2;
    o.max_mode = max_mode;
    EXPECT_EQ(Align({2, 3, 9, 11}, x, rois, {0, 1, 1, 0, 1, 0, 0}, o).size(),
              7u * 3 * 3 * 2);
  }
}

TEST(RoiAlignTest, BadBatchIndexOrHugeRoiFailsInvoke) {
  Status s;
  Align({1, 1, 4, 4}, Ramp(), {0, 0, 2, 2}, {1}, Roi(), &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message())
                .find("batch index 1 of roi 0 out of range [0, 1)"),
            std::string::npos)
      << s.message();
  Align({1, 1, 4, 4}, Ramp(), {0, 0, 1e30f, 2}, {0}, Roi(), &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("is not finite or too large"),
            std::string::npos)
      << s.message();
}

TEST(RoiAlignTest, BadOperandsFailPrepare) {
  OpModel m;
  int xi = m.AddInput(DataType::kFloat32, {1, 1, 4, 4});
  int ri = m.AddInput(DataType::kFloat32, {2, 5});
  int bi = m.AddInput(DataType::kInt64, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::ROI_ALIGN, {xi, ri, bi}, {y}, RoiAlign(m, Roi()));
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("rois must be [num_rois, 4]"),
            std::string::npos)
      << s.message();
  OpModel t;
  xi = t.AddInput(DataType::kFloat32, {1, 1, 4, 4});
  ri = t.AddInput(DataType::kFloat32, {2, 4});
  bi = t.AddInput(DataType::kFloat32, {2});
  y = t.AddOutput(DataType::kFloat32);
  t.AddOp(BuiltinOperator::ROI_ALIGN, {xi, ri, bi}, {y}, RoiAlign(t, Roi()));
  s = t.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("batch_indices must be int32"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace twl
