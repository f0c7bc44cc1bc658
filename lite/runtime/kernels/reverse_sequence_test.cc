#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options ReverseSequence(OpModel& m, int batch_axis, int time_axis) {
  return {schema::BuiltinOptions::ReverseSequenceOptions,
          schema::CreateReverseSequenceOptions(m.builder().fbb(), batch_axis,
                                               time_axis)
              .Union()};
}

TEST(ReverseSequenceTest, BatchMajorAndTimeMajor) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int l = m.AddInput(DataType::kInt64, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::REVERSE_SEQUENCE, {x, l}, {y},
          ReverseSequence(m, 0, 1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  m.SetInput<int64_t>(1, {2, 3});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0), (std::vector<float>{2, 1, 3, 6, 5, 4}));

  OpModel t;  // [time 3, batch 2, feature 2]
  x = t.AddInput(DataType::kInt32, {3, 2, 2});
  l = t.AddInput(DataType::kInt32, {2});
  y = t.AddOutput(DataType::kInt32);
  t.AddOp(BuiltinOperator::REVERSE_SEQUENCE, {x, l}, {y},
          ReverseSequence(t, 1, 0));
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  t.SetInput<int32_t>(1, {3, 0});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0),
            (std::vector<int32_t>{8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10, 11}));
}

TEST(ReverseSequenceTest, LengthOutOfRangeFailsInvoke) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int l = m.AddInput(DataType::kInt64, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::REVERSE_SEQUENCE, {x, l}, {y},
          ReverseSequence(m, 0, 1));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int64_t>(1, {1, 4});
  Status s = m.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_STREQ(
      s.message(),
      "operator 0 (REVERSE_SEQUENCE): sequence length 4 out of range [0, 3]");
}

TEST(ReverseSequenceTest, BadAxesOrLengthsFail) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 3});
  int l = m.AddInput(DataType::kInt64, {2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::REVERSE_SEQUENCE, {x, l}, {y},
          ReverseSequence(m, 1, 1));
  EXPECT_FALSE(m.Build().ok());

  OpModel n;
  x = n.AddInput(DataType::kFloat32, {2, 3});
  l = n.AddInput(DataType::kInt64, {3});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::REVERSE_SEQUENCE, {x, l}, {y},
          ReverseSequence(n, 0, 1));
  EXPECT_FALSE(n.Build().ok());
}

}  // namespace
}  // namespace twl
