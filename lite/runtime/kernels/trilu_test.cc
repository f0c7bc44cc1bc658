#include <gtest/gtest.h>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options Trilu(OpModel& m, bool upper) {
  return {schema::BuiltinOptions::TriluOptions,
          schema::CreateTriluOptions(m.builder().fbb(), upper).Union()};
}

TEST(TriluTest, UpperAndLowerWithRuntimeK) {
  for (bool upper : {true, false}) {
    OpModel m;
    int x = m.AddInput(DataType::kInt64, {2, 3});
    int k = m.AddInput(DataType::kInt64, {});
    int y = m.AddOutput(DataType::kInt64);
    m.AddOp(BuiltinOperator::TRILU, {x, k}, {y}, Trilu(m, upper));
    ASSERT_TRUE(m.Build().ok());
    m.SetInput<int64_t>(0, {1, 2, 3, 4, 5, 6});
    m.SetInput<int64_t>(1, {1});
    ASSERT_TRUE(m.Invoke().ok());
    // numpy: np.triu(x, 1) and np.tril(x, 1)
    EXPECT_EQ(m.GetOutput<int64_t>(0),
              upper ? (std::vector<int64_t>{0, 2, 3, 0, 0, 6})
                    : (std::vector<int64_t>{1, 2, 0, 4, 5, 6}));
    m.SetInput<int64_t>(1, {-1});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutput<int64_t>(0),
              upper ? (std::vector<int64_t>{1, 2, 3, 4, 5, 6})
                    : (std::vector<int64_t>{0, 0, 0, 4, 0, 0}));
  }
}

TEST(TriluTest, BatchedWithoutK) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2, 2});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRILU, {x}, {y}, Trilu(m, false));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{1, 0, 3, 4, 5, 0, 7, 8}));
}

TEST(TriluTest, BadRankOrKFails) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3});
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRILU, {x}, {y}, Trilu(m, true));
  EXPECT_FALSE(m.Build().ok());

  OpModel n;
  x = n.AddInput(DataType::kFloat32, {2, 2});
  int k = n.AddInput(DataType::kFloat32, {});
  y = n.AddOutput(DataType::kFloat32);
  n.AddOp(BuiltinOperator::TRILU, {x, k}, {y}, Trilu(n, true));
  Status s = n.Build();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("k must be int32 or int64"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace twl
