#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

TEST(BitCastTest, Float32BitsAsInt32) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {2, 2});
  int y = m.AddOutput(DataType::kInt32);
  m.AddOp(BuiltinOperator::BITCAST, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {1.0f, -2.0f, 0.0f, -0.0f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 2}));
  // IEEE 754: 1.0f = 0x3f800000, -2.0f = 0xc0000000, -0.0f = 0x80000000.
  EXPECT_EQ(m.GetOutput<int32_t>(0),
            (std::vector<int32_t>{0x3f800000, static_cast<int32_t>(0xc0000000),
                                  0, static_cast<int32_t>(0x80000000)}));
}

TEST(BitCastTest, Int8AsUint8WrapsAndBoolAsUint8) {
  OpModel m;
  int x = m.AddInput(DataType::kInt8, {3});
  int y = m.AddOutput(DataType::kUInt8);
  m.AddOp(BuiltinOperator::BITCAST, {x}, {y});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {-1, 127, -128});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<uint8_t>(0), (std::vector<uint8_t>{255, 127, 128}));
}

TEST(BitCastTest, DifferentSizesFailPrepare) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {3});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::BITCAST, {x}, {y});
  Status s = m.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("float32 and int64 differ in size"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace twl
