#include "core/runtime/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/runtime/executor_test_util.h"

namespace tensorweave {

// ------------------------------------------------ test-only op + kernel ---
// TestRecordThread: sleeps, records the thread it ran on and the order in
// which nodes start and end, outputs its input. With `barrier` = n > 0 it
// first waits (at most 10 s) until n such nodes have reached the barrier:
// nodes that all get through it ran at the same time. Expensive, so the
// executor spreads such nodes over the inter-op pool.
REGISTER_OP("TestRecordThread")
    .Input("x: float32")
    .Output("y: float32")
    .Attr("sleep_ms: int = 100")
    .Attr("barrier: int = 0")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Test only: sleeps and records its thread id and start/end order.");

namespace {

std::mutex g_record_mu;
std::condition_variable g_record_cv;
std::map<std::string, std::thread::id>* g_record_threads =
    new std::map<std::string, std::thread::id>();
std::vector<std::string>* g_record_events = new std::vector<std::string>();
int g_barrier_arrived = 0;
std::vector<std::string>* g_barrier_passed = new std::vector<std::string>();

void ResetRecords() {
  std::lock_guard<std::mutex> lock(g_record_mu);
  g_record_threads->clear();
  g_record_events->clear();
  g_barrier_passed->clear();
  g_barrier_arrived = 0;
}

class TestRecordThreadOp : public OpKernel {
 public:
  explicit TestRecordThreadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("sleep_ms", &sleep_ms_));
    ctx->SetStatus(ctx->GetAttr("barrier", &barrier_));
  }
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    Record("start:" + name());
    if (barrier_ > 0) {
      std::unique_lock<std::mutex> lock(g_record_mu);
      ++g_barrier_arrived;
      g_record_cv.notify_all();
      // A bound for a broken executor, not a timing: the other node arrives
      // within microseconds when the two run concurrently.
      if (g_record_cv.wait_for(lock, std::chrono::seconds(10), [this] {
            return g_barrier_arrived >= barrier_;
          })) {
        g_barrier_passed->push_back(name());
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    {
      std::lock_guard<std::mutex> lock(g_record_mu);
      (*g_record_threads)[name()] = std::this_thread::get_id();
    }
    Record("end:" + name());
    ctx->set_output(0, ctx->input(0));
  }

 private:
  static void Record(const std::string& event) {
    std::lock_guard<std::mutex> lock(g_record_mu);
    g_record_events->push_back(event);
  }

  int64_t sleep_ms_ = 0;
  int64_t barrier_ = 0;
};

REGISTER_KERNEL(KernelDef("TestRecordThread"), TestRecordThreadOp);

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AttrInt;
using test::ToVector;

bool HasSubstr(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

using test::ExecutorHarness;

std::vector<std::string> Names(const Executor& ex) {
  std::vector<std::string> names;
  for (const Node* n : ex.nodes()) names.push_back(n->name());
  return names;
}

TEST(ExecutorTest, PrunesToWhatFetchesNeed) {
  Graph g;
  AddConst(&g, "a", Tensor::Scalar<float>(2));
  AddConst(&g, "b", Tensor::Scalar<float>(3));
  AddPlaceholder(&g, "p", DT_FLOAT);
  AddOp(&g, "Add", "ab", {"a", "b"});
  AddOp(&g, "Mul", "ap", {"a", "p"});
  AddOp(&g, "Neg", "neg", {"ab"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({}, {"neg:0"}, {}, &ex));
  EXPECT_EQ(Names(*ex), (std::vector<std::string>{"a", "b", "ab", "neg"}));
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {}, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data<float>()[0], -5.0f);

  // Feeding an intermediate cuts off what is upstream of it.
  TW_ASSERT_OK(h.Create({"ab:0"}, {"neg:0"}, {}, &ex));
  EXPECT_EQ(Names(*ex), (std::vector<std::string>{"neg"}));
  TW_ASSERT_OK(h.Run(*ex, {Tensor::Scalar<float>(10)}, &out));
  EXPECT_EQ(out[0].data<float>()[0], -10.0f);

  // Fetching a fed tensor alone runs nothing.
  TW_ASSERT_OK(h.Create({"p:0"}, {"p:0", "p:0"}, {}, &ex));
  EXPECT_TRUE(ex->nodes().empty());
  TW_ASSERT_OK(h.Run(*ex, {Tensor::Scalar<float>(7)}, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data<float>()[0], 7.0f);
  EXPECT_EQ(out[1].data<float>()[0], 7.0f);

  // Wrong number of feeds.
  Status s = h.Run(*ex, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "expected 1 feeds, got 0")) << s;
}

TEST(ExecutorTest, SameTensorFetchedTwiceAndConsumedTwice) {
  Graph g;
  AddConst(&g, "a", Tensor::Vector<float>({1, 2}));
  AddOp(&g, "Add", "twice", {"a", "a"});
  AddOp(&g, "Mul", "sq", {"twice", "twice"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({}, {"sq:0", "twice:0", "sq:0"}, {}, &ex));
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    TW_ASSERT_OK(h.Run(*ex, {}, &out));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{4, 16}));
    EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{2, 4}));
    EXPECT_EQ(ToVector<float>(out[2]), (std::vector<float>{4, 16}));
  }
}

TEST(ExecutorTest, IndependentExpensiveNodesRunInParallel) {
  // Each node waits at a barrier for the other: both get through only if the
  // executor runs them at the same time (no wall-clock bound involved).
  Graph g;
  AddConst(&g, "c1", Tensor::Scalar<float>(1));
  AddConst(&g, "c2", Tensor::Scalar<float>(2));
  AddOp(&g, "TestRecordThread", "slow1", {"c1"},
        {{"sleep_ms", AttrInt(0)}, {"barrier", AttrInt(2)}});
  AddOp(&g, "TestRecordThread", "slow2", {"c2"},
        {{"sleep_ms", AttrInt(0)}, {"barrier", AttrInt(2)}});
  AddOp(&g, "Add", "sum", {"slow1", "slow2"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({}, {"sum:0"}, {}, &ex));
  for (int run = 0; run < 3; ++run) {
    ResetRecords();
    std::vector<Tensor> out;
    TW_ASSERT_OK(h.Run(*ex, {}, &out));
    EXPECT_EQ(out[0].data<float>()[0], 3.0f);
    std::lock_guard<std::mutex> lock(g_record_mu);
    EXPECT_EQ(g_barrier_passed->size(), 2u)
        << "the two independent nodes did not run concurrently";
    ASSERT_EQ(g_record_threads->size(), 2u);
    EXPECT_NE(g_record_threads->at("slow1"), g_record_threads->at("slow2"));
  }
}

TEST(ExecutorTest, ExpensiveChainOfDependentNodesIsSequential) {
  Graph g;
  AddConst(&g, "c", Tensor::Scalar<float>(1));
  AddOp(&g, "TestRecordThread", "s1", {"c"}, {{"sleep_ms", AttrInt(5)}});
  AddOp(&g, "TestRecordThread", "s2", {"s1"}, {{"sleep_ms", AttrInt(5)}});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({}, {"s2:0"}, {}, &ex));
  ResetRecords();
  std::vector<Tensor> out;
  TW_ASSERT_OK(h.Run(*ex, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 1.0f);
  std::lock_guard<std::mutex> lock(g_record_mu);
  EXPECT_EQ(*g_record_events, (std::vector<std::string>{"start:s1", "end:s1",
                                                        "start:s2", "end:s2"}));
}

TEST(ExecutorTest, ErrorAbortsStepAndNamesNode) {
  Graph g;
  AddPlaceholder(&g, "dims", DT_INT32, PartialShape({1}));
  AddConst(&g, "x", Tensor::Vector<float>({1, 2, 3, 4}));
  AddOp(&g, "Reshape", "reshape_it", {"x", "dims"});
  AddOp(&g, "Neg", "after", {"reshape_it"});
  AddConst(&g, "other", Tensor::Scalar<float>(1));
  AddOp(&g, "TestRecordThread", "side", {"other"}, {{"sleep_ms", AttrInt(1)}});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"dims:0"}, {"after:0", "side:0"}, {}, &ex));
  std::vector<Tensor> out;
  Status s = h.Run(*ex, {Tensor::Vector<int32_t>({3})}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "[[node reshape_it")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "4 values")) << s;
  // The executor is reusable after a failed step.
  TW_ASSERT_OK(h.Run(*ex, {Tensor::Vector<int32_t>({4})}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{-1, -2, -3, -4}));
}

TEST(ExecutorTest, ConcurrentRunsOfOneExecutor) {
  Graph g;
  AddPlaceholder(&g, "x", DT_INT64, PartialShape({}));
  AddConst(&g, "k", Tensor::Scalar<int64_t>(3));
  AddOp(&g, "Mul", "y", {"x", "k"});
  AddOp(&g, "Add", "z", {"y", "x"});
  ExecutorHarness h(&g);
  std::unique_ptr<Executor> ex;
  TW_ASSERT_OK(h.Create({"x:0"}, {"z:0"}, {}, &ex));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        int64_t x = t * 1000 + i;
        std::vector<Tensor> out;
        Status s = h.Run(*ex, {Tensor::Scalar<int64_t>(x)}, &out);
        if (!s.ok() || out[0].data<int64_t>()[0] != 4 * x) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace tensorweave
