#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// SHAPE of a tensor feeding BROADCAST_TO: a shape computed in the model,
// the output sized in Invoke (after a resize too).
TEST(BroadcastToTest, ComputedShape) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 1});
  int like = m.AddInput(DataType::kFloat32, {2, 3});
  int shape = m.AddTensor(DataType::kInt64);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SHAPE, {like}, {shape});
  m.AddOp(BuiltinOperator::BROADCAST_TO, {x, shape}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  ASSERT_TRUE(m.ResizeInput(1, Shape({2, 2})).ok());
  m.SetInput<float>(0, {1, 2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 1, 2, 2}));
  ASSERT_TRUE(m.ResizeInput(1, Shape({3, 2})).ok());
  EXPECT_FALSE(m.Invoke().ok());  // [2, 1] does not broadcast to [3, 2]
}

TEST(TileTest, RepeatsEachDim) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2});
  int r = m.AddConst<int64_t>({2}, {2, 3});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TILE, {x, r}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{4, 6}));
  // numpy: np.tile([[1, 2], [3, 4]], (2, 3))
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

TEST(TileTest, OneByteElements) {
  OpModel m;
  int x = m.AddInput(DataType::kInt8, {3});
  int r = m.AddConst<int32_t>({1}, {2});
  int y = m.AddOutput(DataType::kInt8);
  m.AddOp(BuiltinOperator::TILE, {x, r}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {-1, 0, 7});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{-1, 0, 7, -1, 0, 7}));
}

TEST(TileTest, WrongRepeatCountOrNegativeRepeatFails) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2});
  int r = m.AddConst<int64_t>({1}, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TILE, {x, r}, {y});
  Status s = m.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("multiples has 1 values"),
            std::string::npos)
      << s.message();

  OpModel n;
  x = n.AddInput(DataType::kFloat32, {2});
  r = n.AddConst<int64_t>({1}, {-1});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::TILE, {x, r}, {y});
  EXPECT_FALSE(n.Build().ok());

  OpModel h;  // a multiple past int32 is refused before multiplying
  x = h.AddInput(DataType::kFloat32, {2});
  r = h.AddConst<int64_t>({1}, {int64_t{1} << 62});
  y = h.AddOutput(DataType::kFloat32);
  h.AddOp(BuiltinOperator::TILE, {x, r}, {y});
  EXPECT_FALSE(h.Build().ok());
}

TEST(BroadcastToTest, NumpyBroadcastBothWays) {
  OpModel m;
  int x = m.AddInput(DataType::kInt64, {3, 1});
  int s = m.AddConst<int64_t>({3}, {2, 1, 2});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::BROADCAST_TO, {x, s}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(0, {1, 2, 3});
  ASSERT_TRUE(m.Invoke().ok());
  // ONNX Expand: the broadcast of [3, 1] and [2, 1, 2] is [2, 3, 2].
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 3, 2}));
  EXPECT_EQ(m.GetOutput<int64_t>(0),
            (std::vector<int64_t>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(BroadcastToTest, LargeOutputSplitAcrossThreadsMatchesReference) {
  OpModel m;
  int x = m.AddInput(DataType::kInt16, {1, 37, 1, 5});
  int s = m.AddConst<int32_t>({4}, {23, 37, 41, 5});
  int y = m.AddOutput(DataType::kInt16);
  m.AddOp(BuiltinOperator::BROADCAST_TO, {x, s}, {y});
  ASSERT_TRUE(m.Build(4).ok());
  std::vector<int16_t> in(37 * 5);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int16_t>(i);
  m.SetInput<int16_t>(0, in);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  const std::vector<int16_t> out = m.GetOutput<int16_t>(0);
  ASSERT_EQ(out.size(), 23u * 37 * 41 * 5);
  // out[a][b][c][d] = in[b][d]
  for (size_t i = 0; i < out.size(); i += 997) {
    const size_t d = i % 5, b = i / (5 * 41) % 37;
    ASSERT_EQ(out[i], in[b * 5 + d]) << i;
  }
}

TEST(BroadcastToTest, IncompatibleShapeFails) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3});
  int s = m.AddConst<int64_t>({1}, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::BROADCAST_TO, {x, s}, {y});
  Status st = m.Build();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("cannot be broadcast"),
            std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace twl
