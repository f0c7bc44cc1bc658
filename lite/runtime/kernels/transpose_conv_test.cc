#include <gtest/gtest.h>

#include <string>

#include "lite/runtime/testing/op_model.h"
#include "lite/runtime/testing/test_models.h"

namespace twl {
namespace {

using testing::ActivationFunctionType;
using testing::BuiltinOperator;
using testing::OpModel;
using testing::RandomFloats;

struct Spec {
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0, out_h = 1, out_w = 1, group = 1;
  ActivationFunctionType act = ActivationFunctionType::NONE;
  bool out_follows_input = false;
};

testing::Options Options(OpModel& m, const Spec& s) {
  return {schema::BuiltinOptions::TransposeConvOptions,
          schema::CreateTransposeConvOptions(
              m.builder().fbb(), s.stride_h, s.stride_w, s.dilation_h,
              s.dilation_w, s.pad_top, s.pad_left, s.out_h, s.out_w, s.group,
              s.act, s.out_follows_input)
              .Union()};
}

// Runs input [1, in_h, in_w, C] through filter [G, C/G, kh, kw, O/G];
// checks the optimized path against the reference.
std::vector<float> Convolve(const Spec& s, const std::vector<int32_t>& in_shape,
                            const std::vector<float>& in,
                            const std::vector<int32_t>& f_shape,
                            const std::vector<float>& filter,
                            const std::vector<float>& bias = {}) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, in_shape);
  int f = m.AddConst<float>(f_shape, filter);
  int b = bias.empty()
              ? -1
              : m.AddConst<float>({static_cast<int>(bias.size())}, bias);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRANSPOSE_CONV, {x, f, b}, {y}, Options(m, s));
  Status st = m.Build();
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return {};
  m.SetInput<float>(0, in);
  EXPECT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.CompareWithReference(), "");
  return m.GetOutput<float>(0);
}

TEST(TransposeConvTest, Stride2Kernel2) {
  Spec s;
  s.stride_h = s.stride_w = 2;
  s.out_h = s.out_w = 4;
  // Each input value v writes v * filter into its own 2x2 block.
  EXPECT_EQ(
      Convolve(s, {1, 2, 2, 1}, {1, 2, 3, 4}, {1, 1, 2, 2, 1}, {1, 2, 3, 4}),
      (std::vector<float>{1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16}));
}

TEST(TransposeConvTest, OverlapBiasPaddingAndActivation) {
  Spec s;
  s.out_w = 3;
  // [1, 2] with taps [1, -4]: 1, 2 - 4, -8, plus bias 0.5.
  EXPECT_EQ(Convolve(s, {1, 1, 2, 1}, {1, 2}, {1, 1, 1, 2, 1}, {1, -4}, {0.5f}),
            (std::vector<float>{1.5f, -1.5f, -7.5f}));
  s.act = ActivationFunctionType::RELU;
  EXPECT_EQ(Convolve(s, {1, 1, 2, 1}, {1, 2}, {1, 1, 1, 2, 1}, {1, -4}, {0.5f}),
            (std::vector<float>{1.5f, 0, 0}));
  // pad_left 1 drops the first column; a wider output (output_padding)
  // keeps only the bias past the last tap.
  s.act = ActivationFunctionType::NONE;
  s.pad_left = 1;
  s.out_w = 4;
  EXPECT_EQ(Convolve(s, {1, 1, 2, 1}, {1, 2}, {1, 1, 1, 2, 1}, {1, -4}, {0.5f}),
            (std::vector<float>{-1.5f, -7.5f, 0.5f, 0.5f}));
}

TEST(TransposeConvTest, GroupsKeepChannelsApart) {
  Spec s;
  s.group = 2;
  // Input channels (1, 10) -> output channels (2 * 1, 3 * 10).
  EXPECT_EQ(Convolve(s, {1, 1, 1, 2}, {1, 10}, {2, 1, 1, 1, 1}, {2, 3}),
            (std::vector<float>{2, 30}));
}

TEST(TransposeConvTest, OptimizedMatchesReference) {
  struct Case {
    int stride, k, dilation, pad, extra, group, c, o;
  };
  for (const Case& c :
       {Case{2, 2, 1, 0, 0, 1, 3, 8}, Case{2, 3, 1, 1, 1, 1, 4, 5},
        Case{2, 4, 1, 1, 0, 1, 16, 17}, Case{1, 3, 2, 2, 0, 2, 6, 4},
        Case{3, 3, 1, 0, 2, 3, 3, 6}}) {
    const int in_h = 5, in_w = 7;
    Spec s;
    s.stride_h = s.stride_w = c.stride;
    s.dilation_h = s.dilation_w = c.dilation;
    s.pad_top = s.pad_left = c.pad;
    int eff = (c.k - 1) * c.dilation + 1;
    s.out_h = (in_h - 1) * c.stride + eff - 2 * c.pad + c.extra;
    s.out_w = (in_w - 1) * c.stride + eff - 2 * c.pad + c.extra;
    s.group = c.group;
    s.act = ActivationFunctionType::RELU6;
    OpModel m;
    int x = m.AddInput(DataType::kFloat32, {2, in_h, in_w, c.c});
    int cg = c.c / c.group, og = c.o / c.group;
    int f = m.AddConst<float>({c.group, cg, c.k, c.k, og},
                              RandomFloats(c.c * c.k * c.k * og, 1));
    int b = m.AddConst<float>({c.o}, RandomFloats(c.o, 2));
    int y = m.AddOutput(DataType::kFloat32);
    m.AddOp(BuiltinOperator::TRANSPOSE_CONV, {x, f, b}, {y}, Options(m, s));
    ASSERT_TRUE(m.Build(2).ok());
    m.SetInput<float>(0, RandomFloats(2 * in_h * in_w * c.c, 3));
    ASSERT_TRUE(m.Invoke().ok());
    ASSERT_EQ(m.CompareWithReference(), "") << c.stride << " " << c.k;
  }
}

std::string BuildError(const Spec& s, const std::vector<int32_t>& f_shape,
                       int bias_size = 0, bool constant_filter = true) {
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 2, 2});
  int count = 1;
  for (int d : f_shape) count *= d;
  int f = constant_filter
              ? m.AddConst<float>(f_shape, std::vector<float>(count))
              : m.AddInput(DataType::kFloat32, f_shape);
  int b = bias_size
              ? m.AddConst<float>({bias_size}, std::vector<float>(bias_size))
              : -1;
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRANSPOSE_CONV, {x, f, b}, {y}, Options(m, s));
  return m.Build().message();
}

TEST(TransposeConvTest, OutputFollowsAResizedInput) {
  // Kernel 3, stride 2, pad 1 each side: out = (in - 1) * 2 + 1.
  Spec s;
  s.stride_h = s.stride_w = 2;
  s.pad_top = s.pad_left = 1;
  s.out_h = s.out_w = 1;
  s.out_follows_input = true;
  OpModel m;
  int x = m.AddInput(DataType::kFloat32, {1, 2, 3, 1});
  int f = m.AddConst<float>({1, 1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::TRANSPOSE_CONV, {x, f}, {y}, Options(m, s));
  ASSERT_TRUE(m.Build().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{1, 3, 5, 1}));
  ASSERT_TRUE(m.ResizeInput(0, Shape({2, 4, 1, 1})).ok());
  m.SetInput<float>(0, std::vector<float>(8, 1.0f));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{2, 7, 1, 1}));
  EXPECT_EQ(m.CompareWithReference(), "");
  // Output rows 0..6 of one column: even rows get one input, odd rows two.
  EXPECT_EQ(m.GetOutput<float>(0),
            (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 2, 1}));
}

TEST(TransposeConvTest, Errors) {
  Spec s;
  s.out_h = s.out_w = 2;
  EXPECT_EQ(BuildError(s, {1, 2, 1, 1, 3}), "");
  EXPECT_NE(BuildError(s, {1, 1, 1, 1, 3}).find("group"), std::string::npos);
  EXPECT_NE(BuildError(s, {1, 2, 1, 1}).find("filter"), std::string::npos);
  EXPECT_NE(BuildError(s, {1, 2, 1, 1, 3}, 2).find("bias"), std::string::npos);
  EXPECT_NE(BuildError(s, {1, 2, 1, 1, 3}, 0, false).find("constant"),
            std::string::npos);
  Spec zero = s;
  zero.out_h = 0;
  EXPECT_NE(BuildError(zero, {1, 2, 1, 1, 3}).find("output size"),
            std::string::npos);
  Spec stride = s;
  stride.stride_w = 0;
  EXPECT_NE(BuildError(stride, {1, 2, 1, 1, 3}).find("strides"),
            std::string::npos);
  Spec group = s;
  group.group = 2;
  EXPECT_NE(BuildError(group, {1, 2, 1, 1, 3}).find("group"),
            std::string::npos);
}

}  // namespace
}  // namespace twl
