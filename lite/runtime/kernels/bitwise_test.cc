#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;

// Runs binary `op` on a and b of one shape [n] and type T.
template <typename T, typename Out = T>
std::vector<Out> Binary(BuiltinOperator op, DataType type, std::vector<T> a,
                        std::vector<T> b) {
  OpModel m;
  const int32_t n = static_cast<int32_t>(a.size());
  m.AddInput(type, {n});
  m.AddInput(type, {n});
  int out = m.AddOutput(type);
  m.AddOp(op, {0, 1}, {out});
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  m.SetInput<T>(0, a);
  m.SetInput<T>(1, b);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<Out>(0);
}

TEST(BitwiseTest, AndOrXorWithBroadcast) {
  OpModel m;
  int a = m.AddInput(DataType::kUInt16, {2, 2});
  int b = m.AddConst<uint16_t>({2}, {0x00ff, 0xf0f0});
  int out = m.AddOutput(DataType::kUInt16);
  m.AddOp(BuiltinOperator::BITWISE_AND, {a, b}, {out});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<uint16_t>(0, {0x1234, 0x1234, 0xffff, 0x0f0f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<uint16_t>(0),
            (std::vector<uint16_t>{0x0034, 0x1030, 0x00ff, 0x0000}));
  EXPECT_EQ(Binary<int32_t>(BuiltinOperator::BITWISE_OR, DataType::kInt32,
                            {-8, 5}, {3, 2}),
            (std::vector<int32_t>{-5, 7}));
  EXPECT_EQ(Binary<int64_t>(BuiltinOperator::BITWISE_XOR, DataType::kInt64,
                            {-1, 6}, {1, 3}),
            (std::vector<int64_t>{-2, 5}));
}

TEST(BitwiseTest, ShiftsOutOfRangeAndSigned) {
  // Left: wraps; amounts < 0 or >= 8 give 0.
  EXPECT_EQ(Binary<int8_t>(BuiltinOperator::LEFT_SHIFT, DataType::kInt8,
                           {-8, 4, 64, 1, 1}, {1, 8, 1, -1, 127}),
            (std::vector<int8_t>{-16, 0, -128, 0, 0}));
  // Right on signed: arithmetic; out of range gives the sign fill.
  EXPECT_EQ(Binary<int32_t>(BuiltinOperator::RIGHT_SHIFT, DataType::kInt32,
                            {-8, -8, 4, -1}, {1, 32, -1, 100}),
            (std::vector<int32_t>{-4, -1, 0, -1}));
  // Right on unsigned: logical; a huge amount is out of range.
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(Binary<uint64_t>(BuiltinOperator::RIGHT_SHIFT, DataType::kUInt64,
                             {big, big, 16}, {63, big, 64}),
            (std::vector<uint64_t>{1, 0, 0}));
  EXPECT_EQ(Binary<uint8_t>(BuiltinOperator::LEFT_SHIFT, DataType::kUInt8,
                            {255, 1}, {1, 7}),
            (std::vector<uint8_t>{254, 128}));
}

TEST(BitwiseTest, LogicalOpsReadAnyNonZeroByteAsTrue) {
  using B = std::vector<bool>;
  std::vector<uint8_t> a = {0, 0, 2, 1}, b = {0, 3, 0, 1};
  EXPECT_EQ((Binary<uint8_t, bool>(BuiltinOperator::LOGICAL_AND,
                                   DataType::kBool, a, b)),
            (B{false, false, false, true}));
  EXPECT_EQ((Binary<uint8_t, bool>(BuiltinOperator::LOGICAL_OR, DataType::kBool,
                                   a, b)),
            (B{false, true, true, true}));
}

TEST(BitwiseTest, NotOps) {
  OpModel m;
  int x = m.AddInput(DataType::kInt16, {3});
  int b = m.AddInput(DataType::kBool, {3});
  int y = m.AddOutput(DataType::kInt16);
  int c = m.AddOutput(DataType::kBool);
  m.AddOp(BuiltinOperator::BITWISE_NOT, {x}, {y});
  m.AddOp(BuiltinOperator::LOGICAL_NOT, {b}, {c});
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int16_t>(0, {0, -1, 5});
  m.SetInput<uint8_t>(1, {0, 7, 1});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  EXPECT_EQ(m.GetOutput<int16_t>(0), (std::vector<int16_t>{-1, 0, -6}));
  EXPECT_EQ(m.GetOutput<bool>(1), (std::vector<bool>{true, false, false}));
}

TEST(BitwiseTest, LargeInputSplitAcrossThreads) {
  const int n = 100000;
  std::vector<uint32_t> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = i * 2654435761u, b[i] = i % 40;
  std::vector<uint32_t> got =
      Binary<uint32_t>(BuiltinOperator::LEFT_SHIFT, DataType::kUInt32, a, b);
  ASSERT_EQ(got.size(), a.size());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], b[i] >= 32 ? 0u : a[i] << b[i]) << i;
  }
}

TEST(BitwiseTest, RejectsNonIntegerAndMixedTypes) {
  struct Case {
    BuiltinOperator op;
    DataType a, b, out;
  };
  for (const Case& c : {
           Case{BuiltinOperator::BITWISE_AND, DataType::kFloat32,
                DataType::kFloat32, DataType::kFloat32},
           Case{BuiltinOperator::BITWISE_OR, DataType::kBool, DataType::kBool,
                DataType::kBool},
           Case{BuiltinOperator::LEFT_SHIFT, DataType::kInt32, DataType::kInt64,
                DataType::kInt32},
           Case{BuiltinOperator::LOGICAL_AND, DataType::kUInt8,
                DataType::kUInt8, DataType::kUInt8},
           Case{BuiltinOperator::BITWISE_XOR, DataType::kInt8, DataType::kInt8,
                DataType::kUInt8},
       }) {
    OpModel m;
    int a = m.AddInput(c.a, {2});
    int b = m.AddInput(c.b, {2});
    int out = m.AddOutput(c.out);
    m.AddOp(c.op, {a, b}, {out});
    EXPECT_FALSE(m.Build().ok()) << static_cast<int>(c.op);
  }
  OpModel m;
  int x = m.AddInput(DataType::kFloat64, {2});
  int y = m.AddOutput(DataType::kFloat64);
  m.AddOp(BuiltinOperator::BITWISE_NOT, {x}, {y});
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace twl
