// Stack and TensorArray kernels run through a session: ordering by data and
// control edges, TF's errors naming the node, and per-step handle lifetime.
#include <gtest/gtest.h>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AttrBool;
using test::AttrShape;
using test::AttrString;
using test::AttrType;
using test::HasSubstr;
using test::MakeTensor;
using test::ToVector;

// A stack of floats "s" with 1 and then 2 pushed, and a pop after both.
std::shared_ptr<Graph> PushTwicePopOnce() {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "max", Tensor::Scalar<int32_t>(-1));
  AddConst(g.get(), "one", Tensor::Scalar<float>(1));
  AddConst(g.get(), "two", Tensor::Scalar<float>(2));
  AddOp(g.get(), "StackV2", "s", {"max"},
        {{"elem_type", AttrType(DT_FLOAT)}, {"stack_name", AttrString("st")}});
  AddOp(g.get(), "StackPushV2", "push1", {"s", "one"},
        {{"T", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "StackPushV2", "push2", {"s", "two", "^push1"},
        {{"T", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "StackPopV2", "pop", {"s", "^push2"},
        {{"elem_type", AttrType(DT_FLOAT)}});
  return g;
}

TEST(StackOpsTest, PopReturnsTheLastPushed) {
  auto g = PushTwicePopOnce();
  AddOp(g.get(), "StackPopV2", "pop2", {"s", "^pop"},
        {{"elem_type", AttrType(DT_FLOAT)}});
  std::vector<Tensor> out;
  TW_ASSERT_OK(test::RunFetches(g, {"pop:0", "pop2:0", "push1:0"}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 2.0f);
  EXPECT_EQ(out[1].data<float>()[0], 1.0f);
  EXPECT_EQ(out[2].data<float>()[0], 1.0f);  // push outputs its element
}

TEST(StackOpsTest, PopOfAnEmptyStackIsInvalidArgumentNamingTheNode) {
  auto g = PushTwicePopOnce();
  AddOp(g.get(), "StackPopV2", "pop2", {"s", "^pop"},
        {{"elem_type", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "StackPopV2", "pop3", {"s", "^pop2"},
        {{"elem_type", AttrType(DT_FLOAT)}});
  std::vector<Tensor> out;
  Status s = test::RunFetches(g, {"pop3:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "Stack[st] is empty when calling Pop()"))
      << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "pop3")) << s.message();
}

TEST(StackOpsTest, PushOfAnotherDtypeAndPopAfterCloseAreErrors) {
  auto g = PushTwicePopOnce();
  AddConst(g.get(), "int", Tensor::Scalar<int32_t>(3));
  AddOp(g.get(), "StackPushV2", "bad", {"s", "int"},
        {{"T", AttrType(DT_INT32)}});
  std::vector<Tensor> out;
  Status s = test::RunFetches(g, {"bad:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "holds float32 elements")) << s.message();

  auto g2 = PushTwicePopOnce();
  AddOp(g2.get(), "StackCloseV2", "close", {"s", "^push2"});
  AddOp(g2.get(), "StackPopV2", "late", {"s", "^close"},
        {{"elem_type", AttrType(DT_FLOAT)}});
  s = test::RunFetches(g2, {"late:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "has already been closed")) << s.message();
}

TEST(StackOpsTest, AHandleIsValidOnlyInItsStep) {
  auto g = PushTwicePopOnce();
  AddOp(g.get(), "Placeholder", "h", {}, {{"dtype", AttrType(DT_STRING)}});
  AddOp(g.get(), "StackPopV2", "stale", {"h"},
        {{"elem_type", AttrType(DT_FLOAT)}});
  SessionOptions options;
  Session session(g, options);
  std::vector<Tensor> out;
  TW_ASSERT_OK(session.Run({}, {"s:0", "pop:0"}, {}, &out));
  Tensor handle = out[0].DeepCopy();
  out.clear();
  Status s = session.Run({{"h:0", handle}}, {"stale:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "does not exist")) << s.message();
}

// TensorArray "ta" of 3 float elements with element_shape [2] written at 0
// and 2 (flows chained).
std::shared_ptr<Graph> ArrayWrittenAtZeroAndTwo(bool clear_after_read) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "size", Tensor::Scalar<int32_t>(3));
  AddConst(g.get(), "i0", Tensor::Scalar<int32_t>(0));
  AddConst(g.get(), "i1", Tensor::Scalar<int32_t>(1));
  AddConst(g.get(), "i2", Tensor::Scalar<int32_t>(2));
  AddConst(g.get(), "v0", Tensor::Vector<float>({1, 2}));
  AddConst(g.get(), "v2", Tensor::Vector<float>({5, 6}));
  AddOp(g.get(), "TensorArrayV3", "ta", {"size"},
        {{"dtype", AttrType(DT_FLOAT)},
         {"element_shape", AttrShape(PartialShape({2}))},
         {"clear_after_read", AttrBool(clear_after_read)}});
  AddOp(g.get(), "TensorArrayWriteV3", "w0", {"ta", "i0", "v0", "ta:1"},
        {{"T", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "TensorArrayWriteV3", "w2", {"ta", "i2", "v2", "w0"},
        {{"T", AttrType(DT_FLOAT)}});
  return g;
}

TEST(TensorArrayOpsTest, GatherGivesZerosForAnUnwrittenElementOfKnownShape) {
  auto g = ArrayWrittenAtZeroAndTwo(true);
  AddConst(g.get(), "idx", Tensor::Vector<int32_t>({2, 1, 0}));
  AddOp(g.get(), "TensorArrayGatherV3", "gather", {"ta", "idx", "w2"},
        {{"dtype", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "TensorArraySizeV3", "size_op", {"ta", "w2"});
  std::vector<Tensor> out;
  TW_ASSERT_OK(test::RunFetches(g, {"gather:0", "size_op:0"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{5, 6, 0, 0, 1, 2}));
  EXPECT_EQ(out[1].data<int32_t>()[0], 3);
}

TEST(TensorArrayOpsTest, SecondReadOfAClearedElementIsAnError) {
  auto g = ArrayWrittenAtZeroAndTwo(true);
  AddOp(g.get(), "TensorArrayReadV3", "r", {"ta", "i0", "w2"},
        {{"dtype", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "TensorArrayReadV3", "again", {"ta", "i0", "w2", "^r"},
        {{"dtype", AttrType(DT_FLOAT)}});
  std::vector<Tensor> out;
  Status s = test::RunFetches(g, {"again:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "Could not read index 0 twice"))
      << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "again")) << s.message();

  auto keep = ArrayWrittenAtZeroAndTwo(false);
  AddOp(keep.get(), "TensorArrayReadV3", "r", {"ta", "i0", "w2"},
        {{"dtype", AttrType(DT_FLOAT)}});
  AddOp(keep.get(), "TensorArrayReadV3", "again", {"ta", "i0", "w2", "^r"},
        {{"dtype", AttrType(DT_FLOAT)}});
  TW_ASSERT_OK(test::RunFetches(keep, {"again:0"}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2}));
}

TEST(TensorArrayOpsTest, WriteErrorsNameTheArrayAndTheNode) {
  struct Case {
    const char* index;
    std::vector<float> value;
    const char* message;
  };
  for (const Case& c : {
           Case{"i0", {7, 8}, "because it has already been written to"},
           Case{"i1", {7, 8, 9}, "incompatible with the TensorArray's"},
       }) {
    auto g = ArrayWrittenAtZeroAndTwo(true);
    AddConst(g.get(), "v", Tensor::Vector<float>(c.value));
    AddOp(g.get(), "TensorArrayWriteV3", "bad", {"ta", c.index, "v", "w2"},
          {{"T", AttrType(DT_FLOAT)}});
    std::vector<Tensor> out;
    Status s = test::RunFetches(g, {"bad:0"}, &out);
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    EXPECT_TRUE(HasSubstr(s.message(), c.message)) << s.message();
    EXPECT_TRUE(HasSubstr(s.message(), "TensorArray ta:")) << s.message();
    EXPECT_TRUE(HasSubstr(s.message(), "bad")) << s.message();
  }
  auto g = ArrayWrittenAtZeroAndTwo(true);
  AddConst(g.get(), "i5", Tensor::Scalar<int32_t>(5));
  AddOp(g.get(), "TensorArrayWriteV3", "far", {"ta", "i5", "v0", "w2"},
        {{"T", AttrType(DT_FLOAT)}});
  std::vector<Tensor> out;
  Status s = test::RunFetches(g, {"far:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(),
                        "Tried to write to index 5 but array is not "
                        "resizeable and size is: 3"))
      << s.message();
}

TEST(TensorArrayOpsTest, GradientArrayAddsWritesToOneIndex) {
  auto g = ArrayWrittenAtZeroAndTwo(true);
  AddOp(g.get(), "TensorArrayGradV3", "grad", {"ta", "w2"},
        {{"source", AttrString("gradients")}});
  AddOp(g.get(), "TensorArrayWriteV3", "g1", {"grad", "i1", "v0", "grad:1"},
        {{"T", AttrType(DT_FLOAT)}});
  // A second TensorArrayGradV3 of the same source is the same array.
  AddOp(g.get(), "TensorArrayGradV3", "grad_again", {"ta", "g1"},
        {{"source", AttrString("gradients")}});
  AddOp(g.get(), "TensorArrayWriteV3", "g2",
        {"grad_again", "i1", "v2", "grad_again:1"},
        {{"T", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "TensorArrayReadV3", "sum", {"grad", "i1", "g2"},
        {{"dtype", AttrType(DT_FLOAT)}});
  std::vector<Tensor> out;
  TW_ASSERT_OK(test::RunFetches(g, {"sum:0"}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{6, 8}));
}

TEST(TensorArrayOpsTest, SplitThenConcatRoundTrips) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "size", Tensor::Scalar<int32_t>(2));
  AddConst(g.get(), "value", Tensor::Vector<float>({1, 2, 3, 4, 5}));
  AddConst(g.get(), "lengths", Tensor::Vector<int64_t>({2, 3}));
  AddConst(g.get(), "bad_lengths", Tensor::Vector<int64_t>({2, 2}));
  AddOp(g.get(), "TensorArrayV3", "ta", {"size"},
        {{"dtype", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "TensorArraySplitV3", "split",
        {"ta", "value", "lengths", "ta:1"}, {{"T", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "TensorArrayConcatV3", "concat", {"ta", "split"},
        {{"dtype", AttrType(DT_FLOAT)}});
  std::vector<Tensor> out;
  TW_ASSERT_OK(test::RunFetches(g, {"concat:0", "concat:1"}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ToVector<int64_t>(out[1]), (std::vector<int64_t>{2, 3}));

  AddOp(g.get(), "TensorArraySplitV3", "bad",
        {"ta", "value", "bad_lengths", "ta:1"}, {{"T", AttrType(DT_FLOAT)}});
  Status s = test::RunFetches(g, {"bad:0"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "sum of lengths is 4")) << s.message();
}

}  // namespace
}  // namespace tensorweave
