#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(ReshapeTest, InfersMinusOne) {
  OpModel m;
  int x = m.AddInput(DataType::kInt32, {2, 3, 2});
  int shape = m.AddConst<int32_t>({2}, {-1, 4});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::RESHAPE, {x, shape}, {y});
  ASSERT_TRUE(m.Build().ok());
  std::vector<int32_t> values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  m.SetInput<int32_t>(0, values);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(m.GetOutput<int32_t>(0), values);
}

TEST(ReshapeTest, RejectsBadShapes) {
  for (std::vector<int32_t> bad :
       {std::vector<int32_t>{5, 2}, std::vector<int32_t>{-1, -1},
        std::vector<int32_t>{-2, 6}}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {12});
    int shape = m.AddConst<int32_t>({2}, bad);
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::RESHAPE, {x, shape}, {y});
    EXPECT_FALSE(m.Build().ok());
  }
}

// A shape computed in the model (here an input) makes the output dynamic:
// sized in Invoke from the shape's values, which are checked there.
TEST(ReshapeTest, ComputedShape) {
  OpModel m;
  int x = m.AddInput(DataType::kInt32, {2, 3, 2});
  int shape = m.AddInput(DataType::kInt64, {2});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::RESHAPE, {x, shape}, {y});
  ASSERT_TRUE(m.Build().ok());
  std::vector<int32_t> values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  m.SetInput<int32_t>(0, values);
  m.SetInput<int64_t>(1, {3, -1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(m.GetOutput<int32_t>(0), values);
  m.SetInput<int64_t>(1, {6, 2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{6, 2}));
  m.SetInput<int64_t>(1, {5, 2});
  Status s = m.Invoke();
  EXPECT_NE(std::string(s.message()).find("cannot reshape"), std::string::npos)
      << s.message();
}

// A node reading a dynamic tensor is prepared in Invoke; it is prepared
// again when that tensor's shape changes, and not when only values change.
TEST(ReshapeTest, NodesAfterAComputedShapeFollowItsChanges) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3, 2});
  int shape = m.AddInput(DataType::kInt64, {2});
  int y = m.AddTensor(DataType::kFloat32);
  int z = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::RESHAPE, {x, shape}, {y});
  m.AddOp(BuiltinOperator::ADD, {y, y}, {z});
  ASSERT_TRUE(m.Build().ok());
  std::vector<float> values(12), doubled(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i);
  const std::vector<std::vector<int64_t>> shapes = {
      {3, 4}, {3, 4}, {6, 2}, {12, 1}, {3, 4}};
  for (size_t run = 0; run < shapes.size(); ++run) {
    for (int i = 0; i < 12; ++i) {
      values[i] += 1.f;
      doubled[i] = 2 * values[i];
    }
    m.SetInput<float>(0, values);
    m.SetInput<int64_t>(1, shapes[run]);
    ASSERT_TRUE(m.Invoke().ok()) << run;
    EXPECT_EQ(m.OutputShape(0),
              (std::vector<int32_t>{static_cast<int32_t>(shapes[run][0]),
                                    static_cast<int32_t>(shapes[run][1])}))
        << run;
    EXPECT_EQ(m.GetOutput<float>(0), doubled) << run;
  }
}

TEST(SqueezeTest, AllOnesAndListedDims) {
  for (auto dims : {std::vector<int32_t>{}, std::vector<int32_t>{0, -1}}) {
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {1, 3, 1});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::SQUEEZE, {x}, {y}, m.builder().Squeeze(dims));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {1, 2, 3});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3}));
    EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 2, 3}));
  }
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 3});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SQUEEZE, {x}, {y}, m.builder().Squeeze({1}));
  EXPECT_FALSE(m.Build().ok());
}

TEST(ExpandDimsTest, NegativeAxis) {
  OpModel m;
  int x = m.AddInput(DataType::kInt64, {2, 3});
  int axis = m.AddConst<int32_t>({}, {-1});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::EXPAND_DIMS, {x, axis}, {y});
  ASSERT_TRUE(m.Build().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 3, 1}));
}

}  // namespace
}  // namespace twl
