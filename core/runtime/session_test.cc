#include "core/runtime/session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

// Test only: how many threads a kernel's parallel loops may use (the intra-op
// pool's threads plus the calling thread).
REGISTER_OP("TestIntraOpParallelism")
    .Output("n: int32")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Test only: the parallelism of the intra-op pool.");

namespace {

class TestIntraOpParallelismOp : public OpKernel {
 public:
  explicit TestIntraOpParallelismOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    ThreadPool* pool = ctx->intra_op_pool();
    out->data<int32_t>()[0] = pool == nullptr ? 1 : pool->num_threads() + 1;
  }
};
REGISTER_KERNEL(KernelDef("TestIntraOpParallelism"), TestIntraOpParallelismOp);

}  // namespace

// Test only: a kernel that throws, as a kernel that allocates past the
// machine's memory (a std::vector resize, operator new) does.
REGISTER_OP("TestThrowsBadAlloc")
    .Output("n: int32")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Test only: throws std::bad_alloc.");

namespace {

class TestThrowsBadAllocOp : public OpKernel {
 public:
  explicit TestThrowsBadAllocOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  // Thrown directly: a real allocation of that size is fatal under the
  // sanitizers, whose operator new reports it instead of throwing.
  void Compute(OpKernelContext* ctx) override { throw std::bad_alloc(); }
};
REGISTER_KERNEL(KernelDef("TestThrowsBadAlloc"), TestThrowsBadAllocOp);

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AddVariable;
using test::ToVector;

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}
#define EXPECT_HAS(status, fragment)                   \
  EXPECT_TRUE(HasSubstr((status).message(), fragment)) \
      << "message: " << (status).message() << "\nexpected: " << (fragment)

SessionOptions Opts(int inter = 2, int intra = 2) {
  SessionOptions o;
  o.inter_op_threads = inter;
  o.intra_op_threads = intra;
  return o;
}

TEST(SessionTest, FetchNotNeedingPlaceholderRunsWithoutFeed) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "a", Tensor::Vector<float>({1, 2}));
  AddPlaceholder(g.get(), "p", DT_FLOAT, PartialShape({2}));
  AddOp(g.get(), "Neg", "neg_a", {"a"});
  AddOp(g.get(), "Add", "ap", {"a", "p"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {"neg_a:0"}, {}, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{-1, -2}));

  Status s = sess.Run({}, {"ap:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "You must feed a value for placeholder tensor 'p'");
  EXPECT_HAS(s, "[[node p");

  TW_ASSERT_OK(
      sess.Run({{"p:0", Tensor::Vector<float>({10, 20})}}, {"ap"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{11, 22}));
}

TEST(SessionTest, FeedingIntermediateOverridesIt) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "p", DT_FLOAT, PartialShape({}));
  AddOp(g.get(), "Identity", "mid", {"p"});
  AddConst(g.get(), "two", Tensor::Scalar<float>(2));
  AddOp(g.get(), "Mul", "out", {"mid", "two"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  // p is upstream of the fed tensor: it is not run, so not needed.
  TW_ASSERT_OK(sess.Run({{"mid:0", Tensor::Scalar<float>(21)}},
                        {"out:0", "mid:0"}, {}, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data<float>()[0], 42.0f);
  EXPECT_EQ(out[1].data<float>()[0], 21.0f);  // a fed tensor fetched: the feed
  // A fed Const is overridden too.
  TW_ASSERT_OK(sess.Run(
      {{"two:0", Tensor::Scalar<float>(3)}, {"p:0", Tensor::Scalar<float>(5)}},
      {"out:0"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 15.0f);
}

TEST(SessionTest, ControlEdgeFromFedPlaceholderWaitsForNothing) {
  // As TF's feed rewrite: a fed Placeholder's control edges leave from the
  // feed, so a node with `^p` runs without asking for p's value; unfed, p
  // still fails as it must.
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "p", DT_FLOAT, PartialShape({}));
  AddConst(g.get(), "c", Tensor::Scalar<float>(3));
  AddOp(g.get(), "Identity", "after_p", {"c", "^p"});
  AddOp(g.get(), "Mul", "out", {"after_p", "p"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({{"p:0", Tensor::Scalar<float>(2)}},
                        {"out:0", "after_p:0"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 6.0f);
  EXPECT_EQ(out[1].data<float>()[0], 3.0f);
  TW_ASSERT_OK(
      sess.Run({{"p:0", Tensor::Scalar<float>(2)}}, {"after_p:0"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 3.0f);
  Status s = sess.Run({}, {"after_p:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "You must feed a value for placeholder tensor 'p'");
}

TEST(SessionTest, FeedErrors) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "p", DT_FLOAT, PartialShape({-1, 2}));
  AddVariable(g.get(), "v", DT_FLOAT, PartialShape({}));
  AddOp(g.get(), "Neg", "n", {"p"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  Status s =
      sess.Run({{"p:0", Tensor::Vector<int32_t>({1, 2})}}, {"n:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Cannot feed a int32 value for Tensor 'p:0'");
  EXPECT_HAS(s, "float32");
  s = sess.Run({{"p:0", Tensor::Vector<float>({1, 2})}}, {"n:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "Cannot feed value of shape [2] for Tensor 'p:0'");
  EXPECT_HAS(s, "[?,2]");
  s = sess.Run({{"p:0", Tensor(DT_FLOAT, TensorShape({3, 3}))}}, {"n:0"}, {},
               &out);
  EXPECT_HAS(s, "[3,3]");
  // Shapes compatible with [?,2] are fine, including zero rows.
  TW_EXPECT_OK(sess.Run({{"p:0", Tensor(DT_FLOAT, TensorShape({0, 2}))}},
                        {"n:0"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2}));

  s = sess.Run({{"v:0", Tensor::Scalar<float>(1)}}, {"n:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "it is a variable");
  s = sess.Run({{"^p", Tensor::Scalar<float>(1)}}, {"n:0"}, {}, &out);
  EXPECT_HAS(s, "cannot feed a control input");
  s = sess.Run({{"nope:0", Tensor::Scalar<float>(1)}}, {"n:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound);
  s = sess.Run({}, {"^n"}, {}, &out);
  EXPECT_HAS(s, "cannot fetch '^n'");
  s = sess.Run({}, {"n:1"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  s = sess.Run({}, {}, {"missing_target"}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_HAS(s, "'missing_target'");

  int64_t handle;
  CallableSpec spec;
  spec.feeds = {"p:0"};
  spec.fetches = {"n:0"};
  TW_ASSERT_OK(sess.MakeCallable(spec, &handle));
  s = sess.RunCallable(handle, {}, &out);
  EXPECT_HAS(s, "expected 1 feed values, got 0");
  s = sess.RunCallable(handle + 100, {}, &out);
  EXPECT_HAS(s, "no callable with handle");
  TW_ASSERT_OK(
      sess.RunCallable(handle, {Tensor(DT_FLOAT, TensorShape({1, 2}))}, &out));
}

TEST(SessionTest, KernelErrorNamesNode) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "x", Tensor::Vector<float>({1, 2, 3, 4, 5, 6}));
  AddPlaceholder(g.get(), "dims", DT_INT32, PartialShape({2}));
  AddOp(g.get(), "Reshape", "my_reshape", {"x", "dims"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  Status s = sess.Run({{"dims:0", Tensor::Vector<int32_t>({4, 2})}},
                      {"my_reshape:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_HAS(s, "[[node my_reshape");
  EXPECT_HAS(s, "Reshape");
  TW_ASSERT_OK(sess.Run({{"dims:0", Tensor::Vector<int32_t>({3, -1})}},
                        {"my_reshape:0"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
}

TEST(SessionTest, TargetsWithControlDeps) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "v", DT_INT32, PartialShape({2}));
  AddVariable(g.get(), "w", DT_INT32, PartialShape({}));
  AddConst(g.get(), "v0", Tensor::Vector<int32_t>({1, 2}));
  AddConst(g.get(), "w0", Tensor::Scalar<int32_t>(7));
  AddOp(g.get(), "Assign", "assign_v", {"v", "v0"});
  AddOp(g.get(), "Assign", "assign_w", {"w", "w0"});
  AddOp(g.get(), "NoOp", "init", {"^assign_v", "^assign_w"});
  AddOp(g.get(), "IsVariableInitialized", "v_ready", {"v"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {"v_ready:0"}, {}, &out));
  EXPECT_FALSE(out[0].data<bool>()[0]);
  TW_ASSERT_OK(sess.Run({}, {}, {"init"}, &out));
  EXPECT_TRUE(out.empty());
  TW_ASSERT_OK(sess.Run({}, {"v:0", "w:0", "v_ready:0"}, {}, &out));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(ToVector<int32_t>(out[0]), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(out[1].data<int32_t>()[0], 7);
  EXPECT_TRUE(out[2].data<bool>()[0]);
  // "^name" is accepted for a target too.
  TW_ASSERT_OK(sess.Run({}, {}, {"^init"}, &out));
}

TEST(SessionTest, VariablesUninitializedAssignAndSnapshot) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "var", DT_FLOAT, PartialShape({2}));
  AddConst(g.get(), "init_val", Tensor::Vector<float>({1, 2}));
  AddConst(g.get(), "delta", Tensor::Vector<float>({10, 20}));
  AddOp(g.get(), "Assign", "assign", {"var", "init_val"});
  AddOp(g.get(), "AssignAdd", "add", {"var", "delta"});
  AddOp(g.get(), "AssignSub", "sub", {"var", "delta"});
  AddOp(g.get(), "Identity", "read", {"var"});
  AddOp(g.get(), "Mul", "twice", {"var", "init_val"});
  Session sess(g, Opts());
  std::vector<Tensor> out;

  for (const char* fetch : {"var:0", "read:0", "twice:0", "add:0"}) {
    Status s = sess.Run({}, {fetch}, {}, &out);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << fetch;
    EXPECT_HAS(s, "Attempting to use uninitialized value var");
  }
  Status s = sess.Run({}, {"read:0"}, {}, &out);
  EXPECT_HAS(s, "[[node read");

  TW_ASSERT_OK(sess.Run({}, {"assign:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2}));
  TW_ASSERT_OK(sess.Run({}, {"read:0"}, {}, &out));
  Tensor before = out[0];
  EXPECT_EQ(ToVector<float>(before), (std::vector<float>{1, 2}));
  TW_ASSERT_OK(sess.Run({}, {"var:0"}, {}, &out));
  Tensor before_direct = out[0];

  TW_ASSERT_OK(sess.Run({}, {"add:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{11, 22}));
  // Snapshots taken before the update keep their values.
  EXPECT_EQ(ToVector<float>(before), (std::vector<float>{1, 2}));
  EXPECT_EQ(ToVector<float>(before_direct), (std::vector<float>{1, 2}));
  Tensor after_add = out[0];
  TW_ASSERT_OK(sess.Run({}, {"sub:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(ToVector<float>(after_add), (std::vector<float>{11, 22}));
  TW_ASSERT_OK(sess.Run({}, {"twice:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 4}));

  // Assign again while a snapshot is held: the snapshot is unchanged.
  TW_ASSERT_OK(sess.Run({}, {"add:0"}, {}, &out));
  Tensor held = out[0];
  TW_ASSERT_OK(sess.Run({}, {"assign:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(held), (std::vector<float>{11, 22}));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2}));
  // A fed tensor assigned to the variable is copied, not aliased.
  auto g2 = std::make_shared<Graph>();
  AddVariable(g2.get(), "v", DT_FLOAT, PartialShape({2}));
  AddPlaceholder(g2.get(), "val", DT_FLOAT, PartialShape({2}));
  AddOp(g2.get(), "Assign", "assign", {"v", "val"});
  Session sess2(g2, Opts());
  Tensor fed = Tensor::Vector<float>({5, 6});
  TW_ASSERT_OK(sess2.Run({{"val:0", fed}}, {}, {"assign"}, &out));
  fed.data<float>()[0] = -1;
  TW_ASSERT_OK(sess2.Run({}, {"v:0"}, {}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{5, 6}));
}

TEST(SessionTest, VariablesArePerSession) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "v", DT_INT32, PartialShape({}));
  AddConst(g.get(), "one", Tensor::Scalar<int32_t>(1));
  AddOp(g.get(), "Assign", "assign", {"v", "one"});
  Session s1(g, Opts());
  Session s2(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(s1.Run({}, {}, {"assign"}, &out));
  TW_ASSERT_OK(s1.Run({}, {"v:0"}, {}, &out));
  EXPECT_EQ(s2.Run({}, {"v:0"}, {}, &out).code(), Code::kFailedPrecondition);
}

TEST(SessionTest, ConcurrentAssignAddIsExact) {
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "counter", DT_INT32, PartialShape({}));
  AddConst(g.get(), "zero", Tensor::Scalar<int32_t>(0));
  AddConst(g.get(), "one", Tensor::Scalar<int32_t>(1));
  AddOp(g.get(), "Assign", "init", {"counter", "zero"});
  AddOp(g.get(), "AssignAdd", "inc", {"counter", "one"});
  Session sess(g, Opts(4, 2));
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"init"}, &out));
  // A reader holding a snapshot throughout must not see it change.
  TW_ASSERT_OK(sess.Run({}, {"counter:0"}, {}, &out));
  Tensor snapshot = out[0];
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&sess, &failures, t] {
      std::vector<Tensor> local;
      for (int i = 0; i < 1000; ++i) {
        // Half the threads fetch the result, half run it as a target.
        Status s = t % 2 == 0 ? sess.Run({}, {}, {"inc"}, &local)
                              : sess.Run({}, {"inc:0"}, {}, &local);
        if (!s.ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  TW_ASSERT_OK(sess.Run({}, {"counter:0"}, {}, &out));
  EXPECT_EQ(out[0].data<int32_t>()[0], 8000);
  EXPECT_EQ(snapshot.data<int32_t>()[0], 0);
}

TEST(SessionTest, IntraOpThreadsOption) {
  auto g = std::make_shared<Graph>();
  AddOp(g.get(), "TestIntraOpParallelism", "n", {});
  for (int threads : {1, 2, 3}) {
    Session sess(g, Opts(1, threads));
    std::vector<Tensor> out;
    TW_ASSERT_OK(sess.Run({}, {"n:0"}, {}, &out));
    EXPECT_EQ(out[0].data<int32_t>()[0], threads)
        << "intra_op_threads=" << threads;
  }
}

TEST(SessionTest, CallablesAndClose) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "x", DT_DOUBLE, PartialShape({}));
  AddOp(g.get(), "Mul", "sq", {"x", "x"});
  auto sess = std::make_unique<Session>(g, Opts());
  CallableSpec spec;
  spec.feeds = {"x:0"};
  spec.fetches = {"sq:0"};
  int64_t h1, h2;
  TW_ASSERT_OK(sess->MakeCallable(spec, &h1));
  TW_ASSERT_OK(sess->MakeCallable(spec, &h2));
  EXPECT_NE(h1, h2);
  std::vector<Tensor> out;
  for (double x : {1.5, -2.0, 0.0}) {
    TW_ASSERT_OK(sess->RunCallable(h1, {Tensor::Scalar<double>(x)}, &out));
    EXPECT_EQ(out[0].data<double>()[0], x * x);
  }
  // Nodes added after the session was created can be run.
  AddOp(g.get(), "Neg", "neg", {"sq"});
  TW_ASSERT_OK(
      sess->Run({{"x:0", Tensor::Scalar<double>(3)}}, {"neg:0"}, {}, &out));
  EXPECT_EQ(out[0].data<double>()[0], -9.0);
  TW_ASSERT_OK(sess->Close());
  Status s = sess->RunCallable(h1, {Tensor::Scalar<double>(1)}, &out);
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_EQ(sess->Run({}, {"sq:0"}, {}, &out).code(), Code::kCancelled);
  sess.reset();
}

TEST(SessionTest, KernelExceptionBecomesTheNodesError) {
  auto g = std::make_shared<Graph>();
  AddOp(g.get(), "TestThrowsBadAlloc", "greedy", {});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  Status s = sess.Run({}, {"greedy:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_HAS(s, "[[node greedy (op: TestThrowsBadAlloc)]]");
  // The session keeps working.
  AddConst(g.get(), "c", Tensor::Scalar<float>(2));
  TW_ASSERT_OK(sess.Run({}, {"c:0"}, {}, &out));
}

TEST(SessionTest, HugeOutputIsResourceExhaustedNamingNodeShapeAndType) {
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "dims", DT_INT64, PartialShape({-1}));
  AddConst(g.get(), "zero", Tensor::Scalar<float>(0));
  AddOp(g.get(), "Fill", "zeros", {"dims", "zero"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  // 2^62 floats: the byte size 2^64 used to wrap to an empty buffer.
  Status s = sess.Run({{"dims:0", Tensor::Vector<int64_t>(
                                      {int64_t{1} << 31, int64_t{1} << 31})}},
                      {"zeros:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_HAS(s, "[2147483648,2147483648]");
  EXPECT_HAS(s, "float32");
  EXPECT_HAS(s, "[[node zeros (op: Fill)]]");
}

TEST(SessionTest, SessionsWithTheSameOptionsShareThreadPools) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "c", Tensor::Scalar<float>(2));
  auto first = std::make_unique<Session>(g, Opts(3, 3));
  const int live = ThreadPool::LiveThreads();
  std::vector<std::unique_ptr<Session>> more;
  for (int i = 0; i < 50; ++i) {
    std::unique_ptr<Session> sess;
    TW_ASSERT_OK(Session::Create(g, Opts(3, 3), &sess));
    more.push_back(std::move(sess));
  }
  EXPECT_EQ(ThreadPool::LiveThreads(), live);
  std::vector<Tensor> out;
  for (auto& sess : more) TW_ASSERT_OK(sess->Run({}, {"c:0"}, {}, &out));
}

TEST(SessionTest, ThreadCapIsReportedBySessionCreate) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "c", Tensor::Scalar<float>(2));
  ThreadPool::SetMaxThreads(ThreadPool::LiveThreads() + 8);
  std::unique_ptr<Session> sess;
  Status s = Session::Create(g, Opts(1000, 1), &sess);
  ThreadPool::SetMaxThreads(0);
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_EQ(sess, nullptr);
  EXPECT_HAS(s, "of 1000 threads");
  EXPECT_HAS(s, "inter_op");
  // A session built with the constructor reports it on every call.
  ThreadPool::SetMaxThreads(ThreadPool::LiveThreads() + 8);
  Session direct(g, Opts(1000, 1));
  ThreadPool::SetMaxThreads(0);
  std::vector<Tensor> out;
  EXPECT_EQ(direct.Run({}, {"c:0"}, {}, &out).code(), Code::kResourceExhausted);
}

}  // namespace
}  // namespace tensorweave
