#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using schema::GridSamplePadding;
using schema::ResizeInterpolation;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options GridSample(OpModel& m, ResizeInterpolation mode,
                   GridSamplePadding padding, bool align_corners) {
  return {schema::BuiltinOptions::GridSampleOptions,
          schema::CreateGridSampleOptions(m.builder().fbb(), mode, padding,
                                          align_corners)
              .Union()};
}

// X [x_shape] sampled at `grid` ([grid_shape]); the output, checked equal
// to the reference interpreter's.
std::vector<float> Sample(const std::vector<int32_t>& x_shape,
                          const std::vector<float>& x,
                          const std::vector<int32_t>& grid_shape,
                          const std::vector<float>& grid,
                          ResizeInterpolation mode, GridSamplePadding padding,
                          bool align_corners) {
  OpModel m;
  int xi = m.AddInput(DataType::kFloat32, x_shape);
  int gi = m.AddInput(DataType::kFloat32, grid_shape);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GRID_SAMPLE, {xi, gi}, {y},
          GridSample(m, mode, padding, align_corners));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<float>(0, x);
  m.SetInput<float>(1, grid);
  s = m.Invoke();
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

TEST(GridSampleTest, BilinearZerosPaddingOn2D) {
  // X 2x2 [[1, 2], [3, 4]]; grid points (x, y): the center, the top-left
  // corner (half outside both dims: a quarter of 1) and the bottom-right
  // corner (a quarter of 4).
  std::vector<float> got =
      Sample({1, 1, 2, 2}, {1, 2, 3, 4}, {1, 1, 3, 2}, {0, 0, -1, -1, 1, 1},
             ResizeInterpolation::LINEAR, GridSamplePadding::ZEROS, false);
  ExpectNear(got, {2.5f, 0.25f, 1.0f});
}

TEST(GridSampleTest, ChannelsShareTheTaps) {
  // Two channels, x = 0.25 of the way from column 0 to 1 (align_corners):
  // each channel interpolates its own values.
  std::vector<float> got =
      Sample({1, 2, 1, 2}, {0, 4, 10, 30}, {1, 1, 1, 2}, {-0.5f, 0},
             ResizeInterpolation::LINEAR, GridSamplePadding::ZEROS, true);
  ExpectNear(got, {1.0f, 15.0f});
}

TEST(GridSampleTest, ReflectionAndBorderOn1D) {
  // X = its indices, so the output is the (reflected or clamped) coordinate.
  // align_corners: x = (g + 1) / 2 * 3; g = 1.5 -> 3.75 reflects at 3 to
  // 2.25; g = -1.2 -> -0.3 reflects at 0 to 0.3; g = 3 -> 6 reflects twice.
  std::vector<float> got =
      Sample({1, 1, 4}, {0, 1, 2, 3}, {1, 3, 1}, {1.5f, -1.2f, 3.0f},
             ResizeInterpolation::LINEAR, GridSamplePadding::REFLECTION, true);
  ExpectNear(got, {2.25f, 0.3f, 0.0f});
  got = Sample({1, 1, 4}, {0, 1, 2, 3}, {1, 3, 1}, {1.5f, -1.2f, 0.0f},
               ResizeInterpolation::LINEAR, GridSamplePadding::BORDER, true);
  ExpectNear(got, {3.0f, 0.0f, 1.5f});
}

TEST(GridSampleTest, CubicUsesKeysWeights) {
  // A unit impulse at index 3 of 8 sampled at x = 2.5, 3.5 and 4.5 (align
  // corners: g = 2x / 7 - 1) reads Keys' weights (a = -0.75) at t = 0.5:
  // 0.59375 for the inner taps, -0.09375 for the outer ones.
  std::vector<float> x = {0, 0, 0, 1, 0, 0, 0, 0};
  std::vector<float> grid = {2 * 2.5f / 7 - 1, 2 * 3.5f / 7 - 1,
                             2 * 4.5f / 7 - 1};
  std::vector<float> got =
      Sample({1, 1, 8}, x, {1, 3, 1}, grid, ResizeInterpolation::CUBIC,
             GridSamplePadding::ZEROS, true);
  ExpectNear(got, {0.59375f, 0.59375f, -0.09375f});
}

TEST(GridSampleTest, NearestRoundsHalfToEvenIn3D) {
  // X [1, 1, 1, 1, 4]; align_corners: x = (g + 1) * 1.5. g = 0 -> 1.5 -> 2,
  // g = -1/3 -> 1, g = 1 -> 3, g = -1.5 -> -0.75 -> -1: outside, zero.
  std::vector<float> got =
      Sample({1, 1, 1, 1, 4}, {10, 11, 12, 13}, {1, 1, 1, 4, 3},
             {0, 0, 0, -1.0f / 3, 0, 0, 1, 0, 0, -1.5f, 0, 0},
             ResizeInterpolation::NEAREST, GridSamplePadding::ZEROS, true);
  ExpectNear(got, {12, 11, 13, 0});
}

TEST(GridSampleTest, ThreadsMatchTheReferenceOnALargerGrid) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.3f, 1.3f);
  std::vector<float> x(2 * 3 * 9 * 7), grid(2 * 11 * 13 * 2);
  for (float& v : x) v = u(rng);
  for (float& v : grid) v = u(rng);
  for (auto mode : {ResizeInterpolation::NEAREST, ResizeInterpolation::LINEAR,
                    ResizeInterpolation::CUBIC}) {
    for (auto padding : {GridSamplePadding::ZEROS, GridSamplePadding::BORDER,
                         GridSamplePadding::REFLECTION}) {
      std::vector<float> got =
          Sample({2, 3, 9, 7}, x, {2, 11, 13, 2}, grid, mode, padding, false);
      EXPECT_EQ(got.size(), 2u * 3 * 11 * 13);
    }
  }
}

std::string BuildError(const std::vector<int32_t>& x_shape, DataType x_type,
                       const std::vector<int32_t>& grid_shape) {
  OpModel m;
  int xi = m.AddInput(x_type, x_shape);
  int gi = m.AddInput(DataType::kFloat32, grid_shape);
  int y = m.AddOutput(x_type);
  m.AddOp(BuiltinOperator::GRID_SAMPLE, {xi, gi}, {y},
          GridSample(m, ResizeInterpolation::LINEAR, GridSamplePadding::ZEROS,
                     false));
  Status s = m.Build();
  return s.ok() ? "" : s.message();
}

TEST(GridSampleTest, BadOperandsFailPrepare) {
  EXPECT_NE(BuildError({1, 1, 4, 4}, DataType::kFloat32, {1, 2, 2, 3})
                .find("grid must be [1, O1..O2, 2] for X of rank 4"),
            std::string::npos);
  EXPECT_NE(BuildError({2, 1, 4, 4}, DataType::kFloat32, {1, 2, 2, 2})
                .find("grid must be [2, O1..O2, 2]"),
            std::string::npos);
  EXPECT_NE(BuildError({1, 1, 4, 4}, DataType::kInt32, {1, 2, 2, 2}).find("X"),
            std::string::npos);
  EXPECT_NE(BuildError({1, 4}, DataType::kFloat32, {1, 2}).find("X"),
            std::string::npos);
}

}  // namespace
}  // namespace twl
