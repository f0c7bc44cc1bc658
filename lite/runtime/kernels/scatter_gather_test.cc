#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using schema::ScatterReduction;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options Gather(OpModel& m, int axis, int batch_dims = 0) {
  return m.builder().Gather(axis, batch_dims);
}

Options Scatter(OpModel& m, int axis, ScatterReduction reduction) {
  return {
      schema::BuiltinOptions::ScatterOptions,
      schema::CreateScatterOptions(m.builder().fbb(), axis, reduction).Union()};
}

void ExpectMessage(const Status& s, const char* text) {
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find(text), std::string::npos)
      << s.message();
}

TEST(GatherElementsTest, Axis1WithNegativeIndex) {
  OpModel m;
  int d = m.AddInput(DataType::kFloat32, {2, 3});
  int i = m.AddInput(DataType::kInt64, {2, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GATHER_ELEMENTS, {d, i}, {y}, Gather(m, 1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  m.SetInput<int64_t>(1, {0, -1, 1, 1});
  ASSERT_TRUE(m.Invoke().ok());
  // numpy: np.take_along_axis(d, i % 3, axis=1)
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 3, 5, 5}));
}

TEST(GatherElementsTest, OutOfRangeIndexFailsInvoke) {
  OpModel m;
  int d = m.AddInput(DataType::kInt32, {3, 2});
  int i = m.AddInput(DataType::kInt32, {1, 2});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::GATHER_ELEMENTS, {d, i}, {y}, Gather(m, 0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(1, {0, 3});
  Status s = m.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_STREQ(s.message(),
               "operator 0 (GATHER_ELEMENTS): index 3 out of range [-3, 3)");
  m.SetInput<int32_t>(1, {-4, 0});
  ExpectMessage(m.Invoke(), "index -4 out of range [-3, 3)");
}

TEST(GatherElementsTest, BadIndicesFailPrepare) {
  OpModel m;
  int d = m.AddInput(DataType::kFloat32, {2, 2});
  int i = m.AddInput(DataType::kInt64, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GATHER_ELEMENTS, {d, i}, {y}, Gather(m, 0));
  ExpectMessage(m.Build(), "indices rank 1 differs from data rank 2");

  OpModel n;
  d = n.AddInput(DataType::kFloat32, {2});
  i = n.AddInput(DataType::kFloat32, {2});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::GATHER_ELEMENTS, {d, i}, {y}, Gather(n, 0));
  ExpectMessage(n.Build(), "indices must be int32 or int64");
}

TEST(ScatterElementsTest, Reductions) {
  struct Case {
    ScatterReduction reduction;
    std::vector<float> want;
  };
  // data [1, 2, 3, 4, 5], indices [1, 1] (a duplicate), updates [10, 3].
  for (const Case& c : std::vector<Case>{
           {ScatterReduction::NONE, {1, 3, 3, 4, 5}},
           {ScatterReduction::ADD, {1, 15, 3, 4, 5}},
           {ScatterReduction::MUL, {1, 60, 3, 4, 5}},
           {ScatterReduction::MAXIMUM, {1, 10, 3, 4, 5}},
           {ScatterReduction::MINIMUM, {1, 2, 3, 4, 5}},
       }) {
    OpModel m;
    int d = m.AddInput(DataType::kFloat32, {1, 5});
    int i = m.AddInput(DataType::kInt64, {1, 2});
    int u = m.AddInput(DataType::kFloat32, {1, 2});
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::SCATTER_ELEMENTS, {d, i, u}, {y},
            Scatter(m, 1, c.reduction));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<float>(0, {1, 2, 3, 4, 5});
    m.SetInput<int64_t>(1, {1, -4});
    m.SetInput<float>(2, {10, 3});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutput<float>(0), c.want)
        << schema::EnumNameScatterReduction(c.reduction);
  }
}

TEST(ScatterElementsTest, Axis0WithoutReductionAnyType) {
  OpModel m;
  int d = m.AddInput(DataType::kInt16, {3, 2});
  int i = m.AddInput(DataType::kInt32, {1, 2});
  int u = m.AddInput(DataType::kInt16, {1, 2});
  int y = m.AddOutput(DataType::kInt16);
  m.AddOp(BuiltinOperator::SCATTER_ELEMENTS, {d, i, u}, {y},
          Scatter(m, 0, ScatterReduction::NONE));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int16_t>(0, {0, 0, 0, 0, 0, 0});
  m.SetInput<int32_t>(1, {2, 0});
  m.SetInput<int16_t>(2, {7, -8});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int16_t>(0), (std::vector<int16_t>{0, -8, 0, 0, 7, 0}));
}

TEST(ScatterElementsTest, OutOfRangeIndexAndBadReductionFail) {
  OpModel m;
  int d = m.AddInput(DataType::kFloat32, {4});
  int i = m.AddInput(DataType::kInt64, {1});
  int u = m.AddInput(DataType::kFloat32, {1});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SCATTER_ELEMENTS, {d, i, u}, {y},
          Scatter(m, 0, ScatterReduction::ADD));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(1, {4});
  Status s = m.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_STREQ(s.message(),
               "operator 0 (SCATTER_ELEMENTS): index 4 out of range [-4, 4)");

  OpModel n;
  d = n.AddInput(DataType::kBool, {4});
  i = n.AddInput(DataType::kInt64, {1});
  u = n.AddInput(DataType::kBool, {1});
  y = n.AddOutput(DataType::kBool);
  n.AddOp(BuiltinOperator::SCATTER_ELEMENTS, {d, i, u}, {y},
          Scatter(n, 0, ScatterReduction::MUL));
  ExpectMessage(n.Build(), "reduction MUL does not support bool");

  OpModel q;  // reductions take float32, int32 and int64
  d = q.AddInput(DataType::kUInt8, {4});
  i = q.AddInput(DataType::kInt64, {1});
  u = q.AddInput(DataType::kUInt8, {1});
  y = q.AddOutput(DataType::kUInt8);
  q.AddOp(BuiltinOperator::SCATTER_ELEMENTS, {d, i, u}, {y},
          Scatter(q, 0, ScatterReduction::ADD));
  ExpectMessage(q.Build(), "reduction ADD does not support uint8");

  OpModel r;  // updates must have the indices' shape
  d = r.AddInput(DataType::kFloat32, {4});
  i = r.AddInput(DataType::kInt64, {2});
  u = r.AddInput(DataType::kFloat32, {1});
  y = r.AddOutput(DataType::kFloat32);
  r.AddOp(BuiltinOperator::SCATTER_ELEMENTS, {d, i, u}, {y},
          Scatter(r, 0, ScatterReduction::NONE));
  ExpectMessage(r.Build(), "updates and indices shapes differ");
}

TEST(GatherNdTest, SlicesAndBatchDims) {
  OpModel m;
  int d = m.AddInput(DataType::kInt32, {2, 2});
  int i = m.AddInput(DataType::kInt64, {2, 1});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::GATHER_ND, {d, i}, {y}, Gather(m, 0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(0, {0, 1, 2, 3});
  m.SetInput<int64_t>(1, {1, -2});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{2, 3, 0, 1}));

  OpModel b;  // ONNX's example: batch_dims 1
  d = b.AddInput(DataType::kInt32, {2, 2, 2});
  i = b.AddInput(DataType::kInt64, {2, 1});
  y = b.AddOutput(DataType::kInt32);
  b.AddOp(BuiltinOperator::GATHER_ND, {d, i}, {y}, Gather(b, 0, 1));
  ASSERT_TRUE(b.Build().ok());
  b.SetInput<int32_t>(0, {0, 1, 2, 3, 4, 5, 6, 7});
  b.SetInput<int64_t>(1, {1, 0});
  ASSERT_TRUE(b.Invoke().ok());
  EXPECT_EQ(b.GetOutput<int32_t>(0), (std::vector<int32_t>{2, 3, 4, 5}));
}

TEST(GatherNdTest, OutOfRangeIndexAndBadShapesFail) {
  OpModel m;
  int d = m.AddInput(DataType::kFloat32, {2, 3});
  int i = m.AddInput(DataType::kInt32, {1, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::GATHER_ND, {d, i}, {y}, Gather(m, 0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(1, {1, 3});
  Status s = m.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_STREQ(s.message(),
               "operator 0 (GATHER_ND): index 3 out of range [-3, 3)");

  OpModel n;
  d = n.AddInput(DataType::kFloat32, {2, 3});
  i = n.AddInput(DataType::kInt32, {1, 3});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::GATHER_ND, {d, i}, {y}, Gather(n, 0));
  ExpectMessage(n.Build(), "indices' last dim 3 is invalid for data rank 2");
}

TEST(ScatterNdTest, SlicesWithAddAndElementsWithMax) {
  OpModel m;
  int d = m.AddInput(DataType::kFloat32, {3, 2});
  int i = m.AddInput(DataType::kInt64, {2, 1});
  int u = m.AddInput(DataType::kFloat32, {2, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SCATTER_ND, {d, i, u}, {y},
          Scatter(m, 0, ScatterReduction::ADD));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 1, 1, 1, 1, 1});
  m.SetInput<int64_t>(1, {2, -1});
  m.SetInput<float>(2, {1, 2, 3, 4});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{1, 1, 1, 1, 5, 7}));

  OpModel e;
  d = e.AddInput(DataType::kInt64, {2, 2});
  i = e.AddInput(DataType::kInt64, {2, 2});
  u = e.AddInput(DataType::kInt64, {2});
  y = e.AddOutput(DataType::kInt64);
  e.AddOp(BuiltinOperator::SCATTER_ND, {d, i, u}, {y},
          Scatter(e, 0, ScatterReduction::MAXIMUM));
  ASSERT_TRUE(e.Build().ok());
  e.SetInput<int64_t>(0, {5, 5, 5, 5});
  e.SetInput<int64_t>(1, {0, 1, 1, 0});
  e.SetInput<int64_t>(2, {9, 1});
  ASSERT_TRUE(e.Invoke().ok());
  EXPECT_EQ(e.GetOutput<int64_t>(0), (std::vector<int64_t>{5, 9, 5, 5}));
}

TEST(ScatterNdTest, OutOfRangeIndexAndBadUpdatesFail) {
  OpModel m;
  int d = m.AddInput(DataType::kFloat32, {3, 2});
  int i = m.AddInput(DataType::kInt64, {1, 1});
  int u = m.AddInput(DataType::kFloat32, {1, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::SCATTER_ND, {d, i, u}, {y},
          Scatter(m, 0, ScatterReduction::NONE));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(1, {-5});
  Status s = m.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_STREQ(s.message(),
               "operator 0 (SCATTER_ND): index -5 out of range [-3, 3)");

  OpModel n;
  d = n.AddInput(DataType::kFloat32, {3, 2});
  i = n.AddInput(DataType::kInt64, {1, 1});
  u = n.AddInput(DataType::kFloat32, {1, 3});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::SCATTER_ND, {d, i, u}, {y},
          Scatter(n, 0, ScatterReduction::NONE));
  ExpectMessage(n.Build(), "updates must have shape");
}

}  // namespace
}  // namespace twl
