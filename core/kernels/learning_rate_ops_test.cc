// Learning-rate schedule kernels against closed forms, and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AttrBool;

float RunDecay(int64_t step, bool staircase) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "lr", Tensor::Scalar<float>(0.1f));
  AddPlaceholder(g.get(), "step", DT_INT64, PartialShape({}));
  AddConst(g.get(), "decay_steps", Tensor::Scalar<float>(10.0f));
  AddConst(g.get(), "decay_rate", Tensor::Scalar<float>(0.5f));
  AddOp(g.get(), "ExponentialDecay", "decayed",
        {"lr", "step", "decay_steps", "decay_rate"},
        {{"staircase", AttrBool(staircase)}});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  Status s = sess.Run({{"step:0", Tensor::Scalar<int64_t>(step)}},
                      {"decayed:0"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? out[0].data<float>()[0] : NAN;
}

TEST(LearningRateOpsTest, ExponentialDecay) {
  EXPECT_FLOAT_EQ(RunDecay(0, false), 0.1f);
  EXPECT_FLOAT_EQ(RunDecay(10, false), 0.05f);
  EXPECT_FLOAT_EQ(RunDecay(15, false), 0.1f * std::pow(0.5f, 1.5f));
  EXPECT_FLOAT_EQ(RunDecay(15, true), 0.05f);
  EXPECT_FLOAT_EQ(RunDecay(29, true), 0.025f);
}

TEST(LearningRateOpsTest, ExponentialDecayNeedsPositiveDecaySteps) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "lr", Tensor::Scalar<double>(0.1));
  AddConst(g.get(), "step", Tensor::Scalar<int32_t>(3));
  AddConst(g.get(), "decay_steps", Tensor::Scalar<double>(0.0));
  AddConst(g.get(), "decay_rate", Tensor::Scalar<double>(0.5));
  AddOp(g.get(), "ExponentialDecay", "decayed",
        {"lr", "step", "decay_steps", "decay_rate"});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  Status s = sess.Run({}, {"decayed:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("decay_steps must be positive"), std::string::npos)
      << s;
}

TEST(LearningRateOpsTest, PiecewiseConstant) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "x", DT_INT64, PartialShape({}));
  AddConst(g.get(), "boundaries", Tensor::Vector<int64_t>({100, 200}));
  AddConst(g.get(), "values", Tensor::Vector<float>({1.0f, 0.5f, 0.1f}));
  AddOp(g.get(), "PiecewiseConstant", "lr", {"x", "boundaries", "values"});
  Session sess(g, SessionOptions());
  std::vector<std::pair<int64_t, float>> cases = {
      {0, 1.0f}, {100, 1.0f}, {101, 0.5f}, {200, 0.5f}, {201, 0.1f}};
  for (auto [x, want] : cases) {
    std::vector<Tensor> out;
    TW_ASSERT_OK(
        sess.Run({{"x:0", Tensor::Scalar<int64_t>(x)}}, {"lr:0"}, {}, &out));
    EXPECT_EQ(out[0].data<float>()[0], want) << "x = " << x;
  }
}

TEST(LearningRateOpsTest, PiecewiseConstantErrors) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "x", Tensor::Scalar<float>(1.0f));
  AddConst(g.get(), "boundaries", Tensor::Vector<float>({2.0f, 1.0f}));
  AddConst(g.get(), "values", Tensor::Vector<float>({1.0f, 0.5f, 0.1f}));
  AddConst(g.get(), "two_values", Tensor::Vector<float>({1.0f, 0.5f}));
  Status s = test::TryAddOp(g.get(), "PiecewiseConstant", "bad",
                            {"x", "boundaries", "two_values"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("one more element"), std::string::npos) << s;
  AddOp(g.get(), "PiecewiseConstant", "unsorted",
        {"x", "boundaries", "values"});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  s = sess.Run({}, {"unsorted:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("boundaries must be increasing"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace tensorweave
