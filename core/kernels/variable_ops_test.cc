#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AddVariable;
using test::AttrBool;
using test::AttrShape;
using test::AttrString;
using test::AttrType;
using test::HasSubstr;
using test::ToVector;

TEST(VariableOpsTest, AssignValidatesShapeAtRunTime) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "v", DT_FLOAT, PartialShape({2}));
  AddPlaceholder(g.get(), "val", DT_FLOAT);
  AddOp(g.get(), "Assign", "assign", {"v", "val"});
  AddOp(g.get(), "Assign", "loose", {"v", "val"},
        {{"validate_shape", AttrBool(false)}});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  Status s = sess.Run({{"val:0", Tensor::Vector<float>({1, 2, 3})}}, {},
                      {"assign"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "Assign requires shapes")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "[[node assign")) << s;
  // Still uninitialized after the failed assign.
  EXPECT_EQ(sess.Run({}, {"v:0"}, {}, &out).code(), Code::kFailedPrecondition);
  TW_ASSERT_OK(sess.Run({{"val:0", Tensor::Vector<float>({1, 2, 3})}},
                        {"loose:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2, 3}));
}

TEST(VariableOpsTest, AssignAddSubAndErrors) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "v", DT_INT64, PartialShape({-1}));
  AddPlaceholder(g.get(), "val", DT_INT64);
  AddOp(g.get(), "Assign", "assign", {"v", "val"});
  AddOp(g.get(), "AssignAdd", "add", {"v", "val"});
  AddOp(g.get(), "AssignSub", "sub", {"v", "val"});
  AddOp(g.get(), "IsVariableInitialized", "ready", {"v"});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  auto feed = [](std::vector<int64_t> v) {
    return std::vector<std::pair<std::string, Tensor>>{
        {"val:0", Tensor::Vector<int64_t>(v)}};
  };
  Status s = sess.Run(feed({1}), {"add:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition);
  EXPECT_TRUE(HasSubstr(s.message(), "Attempting to use uninitialized value v"))
      << s;
  TW_ASSERT_OK(sess.Run({}, {"ready:0"}, {}, &out));
  EXPECT_FALSE(out[0].data<bool>()[0]);
  // (Assign and IsVariableInitialized in one step would be unordered.)
  TW_ASSERT_OK(sess.Run(feed({5, 6, 7}), {"assign:0"}, {}, &out));
  TW_ASSERT_OK(sess.Run({}, {"ready:0"}, {}, &out));
  EXPECT_TRUE(out[0].data<bool>()[0]);
  TW_ASSERT_OK(sess.Run(feed({1, 2, 3}), {"add:0"}, {}, &out));
  EXPECT_EQ(ToVector<int64_t>(out[0]), (std::vector<int64_t>{6, 8, 10}));
  TW_ASSERT_OK(sess.Run(feed({10, 10, 10}), {"sub:0"}, {}, &out));
  EXPECT_EQ(ToVector<int64_t>(out[0]), (std::vector<int64_t>{-4, -2, 0}));
  s = sess.Run(feed({1, 2}), {"add:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "Must have the same shape")) << s;
  TW_ASSERT_OK(sess.Run({}, {"v:0"}, {}, &out));
  EXPECT_EQ(ToVector<int64_t>(out[0]), (std::vector<int64_t>{-4, -2, 0}));
  // The variable's shape [?] lets a new length be assigned.
  TW_ASSERT_OK(sess.Run(feed({9}), {"assign:0"}, {}, &out));
  EXPECT_EQ(ToVector<int64_t>(out[0]), (std::vector<int64_t>{9}));
}

TEST(VariableOpsTest, StringVariable) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "v", DT_STRING, PartialShape({2}));
  AddConst(g.get(), "val", Tensor::Vector<std::string>({"a", "bc"}));
  AddOp(g.get(), "Assign", "assign", {"v", "val"});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {"assign:0"}, {}, &out));
  EXPECT_EQ(ToVector<std::string>(out[0]),
            (std::vector<std::string>{"a", "bc"}));
  TW_ASSERT_OK(sess.Run({}, {"assign:0"}, {}, &out));
  TW_ASSERT_OK(sess.Run({}, {"v:0"}, {}, &out));
  EXPECT_EQ(ToVector<std::string>(out[0]),
            (std::vector<std::string>{"a", "bc"}));
}

TEST(VariableOpsTest, SharedNameSharesState) {
  auto g = std::make_shared<Graph>();
  AddOp(g.get(), "VariableV2", "v1", {},
        {{"dtype", AttrType(DT_FLOAT)},
         {"shape", AttrShape(PartialShape({}))},
         {"shared_name", AttrString("shared")}});
  AddOp(g.get(), "VariableV2", "v2", {},
        {{"dtype", AttrType(DT_FLOAT)},
         {"shape", AttrShape(PartialShape({}))},
         {"shared_name", AttrString("shared")}});
  AddOp(g.get(), "VariableV2", "v3", {},
        {{"dtype", AttrType(DT_INT32)},
         {"shape", AttrShape(PartialShape({}))},
         {"shared_name", AttrString("shared")}});
  AddConst(g.get(), "x", Tensor::Scalar<float>(4));
  AddOp(g.get(), "Assign", "assign", {"v1", "x"});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"assign"}, &out));
  TW_ASSERT_OK(sess.Run({}, {"v2:0"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 4.0f);
  Status s = sess.Run({}, {"v3:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "variable 'shared' exists as float32"))
      << s;
}

TEST(VariableOpsTest, UpdateChainsInOneStep) {
  // AssignAdd(Assign(v, 1), 2) through refs: 3.
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "v", DT_DOUBLE, PartialShape({}));
  AddConst(g.get(), "one", Tensor::Scalar<double>(1));
  AddConst(g.get(), "two", Tensor::Scalar<double>(2));
  AddOp(g.get(), "Assign", "a", {"v", "one"});
  AddOp(g.get(), "AssignAdd", "b", {"a", "two"});
  AddOp(g.get(), "Mul", "c", {"b", "two"});
  Session sess(g, SessionOptions());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {"c:0", "b:0"}, {}, &out));
  EXPECT_EQ(out[0].data<double>()[0], 6.0);
  EXPECT_EQ(out[1].data<double>()[0], 3.0);
}

}  // namespace
}  // namespace tensorweave
