#include <gtest/gtest.h>

#include <vector>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using schema::ResizeCoordinates;
using schema::ResizeInterpolation;
using schema::ResizeNearestRounding;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

struct Resize {
  ResizeInterpolation interpolation = ResizeInterpolation::NEAREST;
  ResizeCoordinates coordinates = ResizeCoordinates::HALF_PIXEL;
  ResizeNearestRounding rounding = ResizeNearestRounding::ROUND_PREFER_FLOOR;
  std::vector<int32_t> sizes;
  std::vector<double> scales, roi;
  float extrapolation = 0;
  bool exclude_outside = false, antialias = false;
  int cubic_table_steps = 0;

  Options Build(OpModel& m) const {
    auto& b = m.builder().fbb();
    auto s = b.CreateVector(sizes);
    auto c = b.CreateVector(scales);
    auto r = b.CreateVector(roi);
    schema::ResizeOptionsBuilder o(b);
    o.add_interpolation(interpolation);
    o.add_coordinate_transformation(coordinates);
    o.add_nearest_rounding(rounding);
    o.add_extrapolation_value(extrapolation);
    o.add_exclude_outside(exclude_outside);
    o.add_antialias(antialias);
    o.add_cubic_table_steps(cubic_table_steps);
    o.add_sizes(s);
    o.add_scales(c);
    o.add_roi(r);
    return {schema::BuiltinOptions::ResizeOptions, o.Finish().Union()};
  }
};

template <typename T>
Status RunResize(const Resize& r, DataType type,
                 const std::vector<int32_t>& shape, const std::vector<T>& in,
                 std::vector<T>* out,
                 std::vector<int32_t>* out_shape = nullptr) {
  OpModel m;
  int x = m.AddInput(type, shape);
  int y = m.AddOutput(type);
  m.AddOp(BuiltinOperator::RESIZE, {x}, {y}, r.Build(m));
  TWL_RETURN_IF_ERROR(m.Build());
  m.SetInput<T>(0, in);
  TWL_RETURN_IF_ERROR(m.Invoke());
  EXPECT_EQ(m.CompareWithReference(), "");
  *out = m.GetOutput<T>(0);
  if (out_shape != nullptr) *out_shape = m.OutputShape(0);
  return Status::Ok();
}

TEST(ResizeTest, NearestAsymmetricAnyType) {
  Resize r;
  r.coordinates = ResizeCoordinates::ASYMMETRIC;
  r.rounding = ResizeNearestRounding::FLOOR;
  r.sizes = {-1, 4};
  r.scales = {1, 2};
  std::vector<uint16_t> out;
  std::vector<int32_t> shape;
  ASSERT_TRUE(RunResize<uint16_t>(r, DataType::kUInt16, {2, 2}, {1, 2, 3, 4},
                                  &out, &shape)
                  .ok());
  EXPECT_EQ(shape, (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(out, (std::vector<uint16_t>{1, 1, 2, 2, 3, 3, 4, 4}));
}

// Size -2: floor(input size x scale), so a run-time dim is resized by its
// scale at every size the model is resized to.
TEST(ResizeTest, SizeFromScaleFollowsTheInput) {
  Resize r;
  r.coordinates = ResizeCoordinates::ASYMMETRIC;
  r.rounding = ResizeNearestRounding::FLOOR;
  r.sizes = {-1, -2};
  r.scales = {1, 2};
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::RESIZE, {x}, {y}, r.Build(m));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 1, 2, 2}));
  ASSERT_TRUE(m.ResizeInput(0, Shape({2, 3})).ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 6}));
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
}

TEST(ResizeTest, NearestRoundings) {
  // half_pixel, 3 -> 2 (scale 2/3): coordinates 0.25 and 1.75.
  // asymmetric, 2 -> 4: coordinates 0, 0.5, 1, 1.5.
  const std::vector<float> in = {10, 20, 30};
  struct Case {
    ResizeNearestRounding rounding;
    std::vector<float> want;
  } cases[] = {{ResizeNearestRounding::ROUND_PREFER_FLOOR, {10, 10, 20, 20}},
               {ResizeNearestRounding::ROUND_PREFER_CEIL, {10, 20, 20, 20}},
               {ResizeNearestRounding::FLOOR, {10, 10, 20, 20}},
               {ResizeNearestRounding::CEIL, {10, 20, 20, 20}}};
  for (const Case& c : cases) {
    Resize r;
    r.coordinates = ResizeCoordinates::ASYMMETRIC;
    r.rounding = c.rounding;
    r.sizes = {4};
    r.scales = {2};
    std::vector<float> out;
    ASSERT_TRUE(
        RunResize<float>(r, DataType::kFloat32, {2}, {10, 20}, &out).ok());
    EXPECT_EQ(out, c.want);
  }
}

TEST(ResizeTest, BilinearNhwcHalfPixel) {
  // [1, 2, 2, 2] NHWC -> [1, 4, 4, 2]; channel 1 is channel 0 times 10.
  Resize r;
  r.interpolation = ResizeInterpolation::LINEAR;
  r.sizes = {-1, 4, 4, -1};
  r.scales = {1, 2, 2, 1};
  std::vector<float> in = {1, 10, 2, 20, 3, 30, 4, 40};
  std::vector<float> out;
  std::vector<int32_t> shape;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {1, 2, 2, 2}, in, &out, &shape)
          .ok());
  EXPECT_EQ(shape, (std::vector<int32_t>{1, 4, 4, 2}));
  // numpy/onnx reference, channel 0.
  const float want[16] = {1,   1.25, 1.75, 2,   1.5, 1.75, 2.25, 2.5,
                          2.5, 2.75, 3.25, 3.5, 3,   3.25, 3.75, 4};
  for (int i = 0; i < 16; ++i) {
    EXPECT_FLOAT_EQ(out[2 * i], want[i]) << i;
    EXPECT_FLOAT_EQ(out[2 * i + 1], 10 * want[i]) << i;
  }
}

TEST(ResizeTest, CubicAlignCornersKeepsCorners) {
  Resize r;
  r.interpolation = ResizeInterpolation::CUBIC;
  r.coordinates = ResizeCoordinates::ALIGN_CORNERS;
  r.sizes = {7};
  r.scales = {7.0 / 4};
  std::vector<float> out;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {4}, {1, 2, 3, 4}, &out).ok());
  ASSERT_EQ(out.size(), 7u);
  // A cubic through evenly spaced points of a line is the line, except near
  // the clamped edges; the corners are the input's.
  EXPECT_FLOAT_EQ(out[0], 1);
  EXPECT_FLOAT_EQ(out[6], 4);
  EXPECT_FLOAT_EQ(out[2], 2);     // coordinate 1
  EXPECT_FLOAT_EQ(out[3], 2.5f);  // coordinate 1.5, symmetric taps
}

// TensorFlow's ResizeBicubic reads its weights from a table: the sampling
// position's fraction is rounded to a multiple of 1 / steps first.
TEST(ResizeTest, CubicTableStepsRoundTheFraction) {
  Resize r;
  r.interpolation = ResizeInterpolation::CUBIC;
  r.coordinates = ResizeCoordinates::ASYMMETRIC;
  r.sizes = {5};
  r.scales = {5.0 / 4};  // coordinates 0, 0.8, 1.6, 2.4, 3.2
  r.cubic_table_steps = 2;
  std::vector<float> out;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {4}, {0, 1, 8, 27}, &out).ok());
  // Rounded to 0, 1, 1.5, 2.5, 3: whole coordinates read the input.
  EXPECT_EQ(out, (std::vector<float>{0, 1, 2.8125f, 18.15625f, 27}));
  r.cubic_table_steps = -1;
  EXPECT_FALSE(
      RunResize<float>(r, DataType::kFloat32, {4}, {0, 1, 8, 27}, &out).ok());
}

TEST(ResizeTest, CropAndResizeExtrapolates) {
  Resize r;
  r.interpolation = ResizeInterpolation::LINEAR;
  r.coordinates = ResizeCoordinates::TF_CROP_AND_RESIZE;
  r.sizes = {3};
  r.scales = {1};
  r.roi = {-0.5, 0.5};  // coordinates -1.5, -0.5, 0.5 (input 0..3)
  r.extrapolation = 7;
  std::vector<float> out;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {4}, {0, 1, 2, 3}, &out).ok());
  EXPECT_EQ(out, (std::vector<float>{7, 7, 0.5f}));
}

TEST(ResizeTest, AntialiasAveragesWhenDownsampling) {
  // Linear antialias at scale 1/2: a triangle 4 taps wide.
  Resize r;
  r.interpolation = ResizeInterpolation::LINEAR;
  r.antialias = true;
  r.sizes = {2};
  r.scales = {0.5};
  std::vector<float> out;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {4}, {0, 4, 8, 12}, &out).ok());
  // coordinate 0.5: taps -1..2 weights 1/4, 3/4, 3/4, 1/4 (normalized by 2),
  // index -1 clamped to 0: (0 + 0 * 3 + 4 * 3 + 8) / 8 = 2.5.
  EXPECT_FLOAT_EQ(out[0], 2.5f);
  EXPECT_FLOAT_EQ(out[1], 9.5f);
}

TEST(ResizeTest, RejectsBadOptions) {
  std::vector<float> out;
  Resize r;
  r.sizes = {4};  // rank 2 input
  r.scales = {2};
  EXPECT_FALSE(
      RunResize<float>(r, DataType::kFloat32, {2, 2}, {1, 2, 3, 4}, &out).ok());
  r.sizes = {-1, 4};
  r.scales = {1, 0};
  EXPECT_FALSE(
      RunResize<float>(r, DataType::kFloat32, {2, 2}, {1, 2, 3, 4}, &out).ok());
  r.scales = {1, 2};
  r.interpolation = ResizeInterpolation::LINEAR;
  std::vector<int32_t> ints;
  Status s =
      RunResize<int32_t>(r, DataType::kInt32, {2, 2}, {1, 2, 3, 4}, &ints);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("float32"), std::string::npos)
      << std::string(s.message());
  r.coordinates = ResizeCoordinates::TF_CROP_AND_RESIZE;  // no roi
  EXPECT_FALSE(
      RunResize<float>(r, DataType::kFloat32, {2, 2}, {1, 2, 3, 4}, &out).ok());
}

TEST(ResizeTest, ExtremeScalesAndRoiClampToTheEdges) {
  // Coordinates far outside the input (scale 1e-30: x / s = 1e30) sample
  // the edge instead of overflowing an integer.
  Resize r;
  r.coordinates = ResizeCoordinates::ASYMMETRIC;
  r.sizes = {2};
  r.scales = {1e-30};
  std::vector<float> out;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {3}, {1, 2, 3}, &out).ok());
  EXPECT_EQ(out, (std::vector<float>{1, 3}));
  r.interpolation = ResizeInterpolation::LINEAR;
  r.coordinates = ResizeCoordinates::TF_CROP_AND_RESIZE;
  r.roi = {-1e300, 1e300};
  r.extrapolation = 5;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {3}, {1, 2, 3}, &out).ok());
  EXPECT_EQ(out, (std::vector<float>{5, 5}));
  // Antialias over a tiny scale would need too many taps: an error.
  r.coordinates = ResizeCoordinates::HALF_PIXEL;
  r.antialias = true;
  Status s = RunResize<float>(r, DataType::kFloat32, {3}, {1, 2, 3}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("taps"), std::string::npos);
}

TEST(ResizeTest, RowsMatchTheReference) {
  // The row-at-a-time path against the position-at-a-time reference
  // (RunResize compares them): a middle axis alone (the rows carry a block
  // of 4), and both spatial axes of NCHW (a block of 1), cubic, antialias.
  std::vector<float> in(2 * 3 * 5 * 6);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i * 7 % 11);
  std::vector<float> out;
  Resize middle;
  middle.interpolation = ResizeInterpolation::LINEAR;
  middle.sizes = {-1, 7, -1};
  middle.scales = {1, 7.0 / 3, 1};
  ASSERT_TRUE(
      RunResize<float>(middle, DataType::kFloat32, {10, 3, 6}, in, &out).ok());
  ASSERT_EQ(out.size(), 10u * 7 * 6);
  EXPECT_FLOAT_EQ(out[0], in[0]);  // coordinate < 0 clamps to row 0
  Resize nchw;
  nchw.interpolation = ResizeInterpolation::CUBIC;
  nchw.antialias = true;
  nchw.exclude_outside = true;
  nchw.sizes = {-1, -1, 3, 4};
  nchw.scales = {1, 1, 0.6, 4.0 / 6};
  ASSERT_TRUE(
      RunResize<float>(nchw, DataType::kFloat32, {2, 3, 5, 6}, in, &out).ok());
  ASSERT_EQ(out.size(), 2u * 3 * 3 * 4);
  std::vector<int8_t> bytes(in.begin(), in.end()), nearest;
  Resize r;
  r.sizes = {-1, -1, 9, 2};
  r.scales = {1, 1, 1.8, 1.0 / 3};
  ASSERT_TRUE(
      RunResize<int8_t>(r, DataType::kInt8, {2, 3, 5, 6}, bytes, &nearest)
          .ok());
  ASSERT_EQ(nearest.size(), 2u * 3 * 9 * 2);
}

TEST(ResizeTest, LargeNhwcSplitAcrossThreads) {
  Resize r;
  r.interpolation = ResizeInterpolation::LINEAR;
  r.sizes = {-1, 64, 64, -1};
  r.scales = {1, 2, 2, 1};
  std::vector<float> in(32 * 32 * 16);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 97);
  std::vector<float> out;
  ASSERT_TRUE(
      RunResize<float>(r, DataType::kFloat32, {1, 32, 32, 16}, in, &out).ok());
  ASSERT_EQ(out.size(), 64u * 64 * 16);
  // Output (0, 0) is input (0, 0) (coordinate -0.25 clamps).
  for (int c = 0; c < 16; ++c) EXPECT_FLOAT_EQ(out[c], in[c]);
}

}  // namespace
}  // namespace twl
