#include <gtest/gtest.h>

#include <numeric>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options DepthSpace(OpModel& m, int block, bool crd, bool nhwc) {
  return {schema::BuiltinOptions::DepthSpaceOptions,
          schema::CreateDepthSpaceOptions(m.builder().fbb(), block, crd, nhwc)
              .Union()};
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

std::vector<float> Move(BuiltinOperator op, const std::vector<int32_t>& shape,
                        const std::vector<float>& x, bool crd, bool nhwc,
                        std::vector<int32_t>* out_shape = nullptr) {
  OpModel m;
  int in = m.AddInput(DataType::kFloat32, shape);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(op, {in}, {y}, DepthSpace(m, 2, crd, nhwc));
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<float>(0, x);
  EXPECT_TRUE(m.Invoke().ok());
  if (out_shape != nullptr) *out_shape = m.OutputShape(0);
  return m.GetOutput<float>(0);
}

TEST(DepthSpaceTest, DepthToSpaceDcrAndCrd) {
  // x = arange(8).reshape(1, 4, 1, 2) (NCHW), block 2.
  std::vector<int32_t> shape;
  // DCR: reshape(1, 2, 2, 1, 1, 2).transpose(0, 3, 4, 1, 5, 2)
  EXPECT_EQ(Move(BuiltinOperator::DEPTH_TO_SPACE, {1, 4, 1, 2}, Iota(8), false,
                 false, &shape),
            (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
  EXPECT_EQ(shape, (std::vector<int32_t>{1, 1, 2, 4}));
  // CRD with one output channel reads channels in the same order here;
  // with x = arange(16).reshape(1, 8, 1, 2) the two differ:
  EXPECT_EQ(Move(BuiltinOperator::DEPTH_TO_SPACE, {1, 8, 1, 2}, Iota(16), true,
                 false),
            (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14,
                                13, 15}));
  EXPECT_EQ(Move(BuiltinOperator::DEPTH_TO_SPACE, {1, 8, 1, 2}, Iota(16), false,
                 false),
            (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14,
                                11, 15}));
}

TEST(DepthSpaceTest, SpaceToDepthInvertsDepthToSpace) {
  for (bool crd : {false, true}) {
    for (bool nhwc : {false, true}) {
      const std::vector<int32_t> deep = nhwc ? std::vector<int32_t>{2, 2, 3, 8}
                                             : std::vector<int32_t>{2, 8, 2, 3};
      std::vector<int32_t> shape;
      std::vector<float> spatial = Move(BuiltinOperator::DEPTH_TO_SPACE, deep,
                                        Iota(96), crd, nhwc, &shape);
      EXPECT_EQ(shape, nhwc ? (std::vector<int32_t>{2, 4, 6, 2})
                            : (std::vector<int32_t>{2, 2, 4, 6}));
      EXPECT_EQ(
          Move(BuiltinOperator::SPACE_TO_DEPTH, shape, spatial, crd, nhwc),
          Iota(96))
          << crd << nhwc;
    }
  }
}

TEST(DepthSpaceTest, NhwcMatchesNchwTransposed) {
  // NHWC x[n, h, w, c] = NCHW x[n, c, h, w] with x = arange over NCHW.
  const int c = 4, h = 1, w = 2;
  std::vector<float> nchw = Iota(c * h * w), nhwc(c * h * w);
  for (int ci = 0; ci < c; ++ci)
    for (int wi = 0; wi < w; ++wi) nhwc[wi * c + ci] = nchw[ci * w + wi];
  std::vector<float> a =
      Move(BuiltinOperator::DEPTH_TO_SPACE, {1, c, h, w}, nchw, false, false);
  std::vector<float> b =
      Move(BuiltinOperator::DEPTH_TO_SPACE, {1, h, w, c}, nhwc, false, true);
  // One output channel: NCHW and NHWC outputs have the same element order.
  EXPECT_EQ(a, b);
}

TEST(DepthSpaceTest, IndivisibleDimsFail) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 6, 2, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::DEPTH_TO_SPACE, {x}, {y},
          DepthSpace(m, 2, false, false));
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("not divisible by block_size^2"),
            std::string::npos)
      << s.message();

  OpModel n;
  x = n.AddInput(DataType::kFloat32, {1, 1, 3, 2});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::SPACE_TO_DEPTH, {x}, {y},
          DepthSpace(n, 2, false, false));
  EXPECT_FALSE(n.Build().ok());

  OpModel r;
  x = r.AddInput(DataType::kFloat32, {1, 4, 2});
  y = r.AddOutput(DataType::kFloat32);
  r.AddOp(BuiltinOperator::SPACE_TO_DEPTH, {x}, {y},
          DepthSpace(r, 0, false, false));
  EXPECT_FALSE(r.Build().ok());
}

}  // namespace
}  // namespace twl
