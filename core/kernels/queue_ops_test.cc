// Queue kernels under concurrent steps: producers and consumers in many
// threads, blocking waits served by later steps, step timeouts and
// Session::Close while a step waits (also run under ThreadSanitizer:
// bazel test --config=tsan //core/kernels:queue_ops_test).
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AttrInt;
using test::HasSubstr;

AttrValue TypeList(std::vector<DataType> types) {
  AttrValue v;
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}

AttrValue ShapeList(std::vector<PartialShape> shapes) {
  AttrValue v;
  v.mutable_list();  // an empty list is still a list
  for (const auto& s : shapes) s.ToProto(v.mutable_list()->add_shape());
  return v;
}

// q (FIFOQueueV2 of int32 scalars), x (a fed int32), enqueue, dequeue,
// dequeue_many (n = 3), close, size.
std::shared_ptr<Graph> QueueGraph(int64_t capacity) {
  auto g = std::make_shared<Graph>();
  AddOp(g.get(), "FIFOQueueV2", "q", {},
        {{"component_types", TypeList({DT_INT32})},
         {"shapes", ShapeList({PartialShape({})})},
         {"capacity", AttrInt(capacity)}});
  AddPlaceholder(g.get(), "x", DT_INT32);
  AddOp(g.get(), "QueueEnqueueV2", "enqueue", {"q", "x"},
        {{"Tcomponents", TypeList({DT_INT32})}});
  AddOp(g.get(), "QueueDequeueV2", "dequeue", {"q"},
        {{"component_types", TypeList({DT_INT32})}});
  AddConst(g.get(), "n", Tensor::Scalar<int32_t>(3));
  AddOp(g.get(), "QueueDequeueManyV2", "dequeue_many", {"q", "n"},
        {{"component_types", TypeList({DT_INT32})}});
  AddOp(g.get(), "QueueCloseV2", "close", {"q"});
  AddOp(g.get(), "QueueSizeV2", "size", {"q"});
  return g;
}

SessionOptions TwoThreads() {
  SessionOptions options;
  options.inter_op_threads = 2;
  options.intra_op_threads = 1;
  return options;
}

Status Enqueue(Session* s, int32_t v) {
  std::vector<Tensor> out;
  return s->Run({{"x:0", Tensor::Scalar<int32_t>(v)}}, {}, {"enqueue"}, &out);
}

Status Dequeue(Session* s, int32_t* v) {
  std::vector<Tensor> out;
  TW_RETURN_IF_ERROR(s->Run({}, {"dequeue:0"}, {}, &out));
  *v = out[0].data<int32_t>()[0];
  return Status::OK();
}

TEST(QueueOpsTest, ConcurrentProducersAndConsumersSeeEachElementOnce) {
  Session session(QueueGraph(4), TwoThreads());
  constexpr int kThreads = 4, kPerThread = 150;
  std::vector<std::atomic<int>> seen(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        ASSERT_TRUE(Enqueue(&session, t * kPerThread + i).ok());
      }
    });
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        int32_t v = -1;
        ASSERT_TRUE(Dequeue(&session, &v).ok());
        ASSERT_GE(v, 0);
        ASSERT_LT(v, kThreads * kPerThread);
        seen[v]++;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& count : seen) EXPECT_EQ(count.load(), 1);
}

TEST(QueueOpsTest, TimeoutEndsABlockedStepAndKeepsTheElements) {
  Session session(QueueGraph(10), TwoThreads());
  ASSERT_TRUE(Enqueue(&session, 7).ok());
  int64_t handle;
  ASSERT_TRUE(
      session.MakeCallable(CallableSpec{{}, {"dequeue_many:0"}, {}}, &handle)
          .ok());
  RunOptions options;
  options.timeout_in_ms = 50;
  std::vector<Tensor> out;
  Status s = session.RunCallable(handle, {}, options, &out, nullptr);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
  ASSERT_TRUE(session.Run({}, {"size:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<int32_t>()[0], 1);  // the taken element came back
  int32_t v = 0;
  ASSERT_TRUE(Dequeue(&session, &v).ok());
  EXPECT_EQ(v, 7);
}

TEST(QueueOpsTest, CloseServesWaitersWithOutOfRange) {
  Session session(QueueGraph(10), TwoThreads());
  ASSERT_TRUE(Enqueue(&session, 1).ok());
  Status waiting;
  std::thread consumer([&] {
    std::vector<Tensor> out;
    waiting = session.Run({}, {"dequeue_many:0"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({}, {}, {"close"}, &out).ok());
  consumer.join();
  EXPECT_EQ(waiting.code(), Code::kOutOfRange) << waiting;
  EXPECT_TRUE(HasSubstr(waiting.message(),
                        "is closed and has insufficient elements (requested "
                        "3, current size 1)"))
      << waiting;
  Status closed = Enqueue(&session, 2);
  EXPECT_EQ(closed.code(), Code::kCancelled);
  EXPECT_TRUE(HasSubstr(closed.message(), "FIFOQueue '_0_q' is closed."))
      << closed;
}

TEST(QueueOpsTest, SessionCloseCancelsAStepWaitingInAnotherThread) {
  Session session(QueueGraph(10), TwoThreads());
  Status waiting;
  std::thread consumer([&] {
    int32_t v;
    waiting = Dequeue(&session, &v);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(session.Close().ok());
  consumer.join();
  EXPECT_EQ(waiting.code(), Code::kCancelled) << waiting;
  EXPECT_TRUE(HasSubstr(waiting.message(), "Dequeue operation was cancelled"));
}

TEST(QueueOpsTest, BadHandleAndComponentsAreInvalidArgument) {
  auto g = QueueGraph(2);
  Session session(g, TwoThreads());
  std::vector<Tensor> out;
  Status s =
      session.Run({{"x:0", Tensor::Scalar<int32_t>(1)}}, {}, {"enqueue"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // A dequeue whose component_types do not match the queue's.
  AddOp(g.get(), "QueueDequeueV2", "bad_dequeue", {"q"},
        {{"component_types", TypeList({DT_FLOAT})}});
  s = session.Run({}, {"bad_dequeue:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "bad_dequeue")) << s;
}

}  // namespace
}  // namespace tensorweave
