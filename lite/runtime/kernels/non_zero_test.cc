#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(NonZeroTest, Float2DAsNumpyNonzero) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::NON_ZERO, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  // -0.0 is zero, NaN is not (numpy: np.nonzero).
  m.SetInput<float>(0, {1.0f, 0.0f, -0.0f, NAN, 2.5f, 0.0f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_TRUE(m.interpreter()->output(0)->is_dynamic);
  // Nonzero: (0, 0), (1, 0) the NaN and (1, 1).
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(m.CompareWithReference(), "");
}

TEST(NonZeroTest, CountChangesBetweenInvokes) {
  OpModel m;
  int x = m.AddInput(DataType::kInt32, {2, 2, 2});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::NON_ZERO, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int32_t>(0, {0, 0, 0, 0, 0, 0, 0, 7});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{1, 1, 1}));
  m.SetInput<int32_t>(0, {1, 1, 1, 1, 1, 1, 1, 1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 8}));
  EXPECT_EQ(m.GetOutput<int64_t>(0),
            (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1,
                                  0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
  m.SetInput<int32_t>(0, {0, 0, 0, 0, 0, 0, 0, 0});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{3, 0}));
}

TEST(NonZeroTest, BoolAndScalar) {
  OpModel m;
  int x = m.AddInput(DataType::kBool, {4});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::NON_ZERO, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  const uint8_t values[] = {0, 1, 1, 0};  // bools
  m.SetInputBytes(0, values, sizeof(values));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(m.GetOutput<int64_t>(0), (std::vector<int64_t>{1, 2}));

  OpModel s;  // a scalar reads as [1], as onnxruntime
  x = s.AddInput(DataType::kFloat32, {});
  y = s.AddOutput(DataType::kInt64);
  s.AddOp(BuiltinOperator::NON_ZERO, {x}, {y});
  ASSERT_TRUE(s.Build().ok());
  s.SetInput<float>(0, {3.0f});
  ASSERT_TRUE(s.Invoke().ok());
  EXPECT_EQ(s.OutputShape(0), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(s.GetOutput<int64_t>(0), (std::vector<int64_t>{0}));
}

TEST(NonZeroTest, ConsumersArePreparedOnTheDynamicShape) {
  // NON_ZERO -> TRANSPOSE -> CAST: each reader of the dynamic tensor is
  // prepared in Invoke and its output is dynamic too.
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2});
  int nz = m.AddTensor(DataType::kInt64);
  int perm = m.AddConst<int32_t>({2}, {1, 0});
  int t = m.AddTensor(DataType::kInt64);
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::NON_ZERO, {x}, {nz});
  m.AddOp(BuiltinOperator::TRANSPOSE, {nz, perm}, {t});
  m.AddOp(BuiltinOperator::CAST, {t}, {y});
  ASSERT_TRUE(m.Build().ok());
  for (int run = 0; run < 2; ++run) {
    m.SetInput<float>(0, run == 0 ? std::vector<float>{0, 1, 1, 0}
                                  : std::vector<float>{1, 1, 1, 1});
    ASSERT_TRUE(m.Invoke().ok()) << m.interpreter()->error_message();
    if (run == 0) {
      EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
      EXPECT_EQ(m.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 1, 1, 0}));
    } else {
      EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{4, 2}));
      EXPECT_EQ(m.GetOutput<int32_t>(0),
                (std::vector<int32_t>{0, 0, 0, 1, 1, 0, 1, 1}));
    }
    EXPECT_TRUE(m.interpreter()->output(0)->is_dynamic);
    EXPECT_EQ(m.CompareWithReference(), "");
  }
}

TEST(NonZeroTest, NonInt64OutputFailsPrepare) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::NON_ZERO, {x}, {y});
  Status s = m.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("must be int64, got int32"),
            std::string::npos)
      << s.message();
}

TEST(NonZeroTest, StaticModelsKeepEverythingInTheArena) {
  // A model without dynamic tensors: no tensor is dynamic, each in the
  // arena, and no node is prepared in Invoke.
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {4});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::RELU, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  Interpreter* interpreter = m.interpreter();
  for (int t = 0; t < interpreter->num_tensors(); ++t) {
    EXPECT_FALSE(interpreter->tensor(t)->is_dynamic);
  }
  const uint8_t* data =
      static_cast<const uint8_t*>(interpreter->output(0)->data);
  EXPECT_GE(data, interpreter->arena());
  EXPECT_LT(data, interpreter->arena() + interpreter->arena_size());
}

}  // namespace
}  // namespace twl
