// MutexV2 / MutexLock / ConsumeMutexLock under concurrent steps: a lock
// tensor held by the caller keeps the mutex, a waiting step finishes when it
// is dropped, a timeout or Session::Close ends a waiting step (and the mutex
// still works after), and read-add-assign steps under the mutex lose no
// update.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddVariable;
using test::AttrString;
using test::HasSubstr;

// m (MutexV2), lock (MutexLock of m), and the counter v (int32) with
// `increment`: lock, read v, add 1, assign, consume the lock.
std::shared_ptr<Graph> MutexGraph() {
  auto g = std::make_shared<Graph>();
  AddOp(g.get(), "MutexV2", "m", {}, {{"shared_name", AttrString("m")}});
  AddOp(g.get(), "MutexLock", "lock", {"m"});
  AddVariable(g.get(), "v", DT_INT32, PartialShape({}));
  AddConst(g.get(), "zero", Tensor::Scalar<int32_t>(0));
  AddOp(g.get(), "Assign", "init", {"v", "zero"});
  AddConst(g.get(), "one", Tensor::Scalar<int32_t>(1));
  AddOp(g.get(), "Identity", "read", {"v", "^lock"});
  AddOp(g.get(), "Add", "add", {"read", "one"});
  AddOp(g.get(), "Assign", "assign", {"v", "add"});
  AddOp(g.get(), "ConsumeMutexLock", "consume", {"lock", "^assign"});
  return g;
}

SessionOptions TwoThreads() {
  SessionOptions options;
  options.inter_op_threads = 2;
  options.intra_op_threads = 1;
  return options;
}

TEST(MutexOpsTest, AFetchedLockHoldsTheMutexUntilDropped) {
  Session session(MutexGraph(), TwoThreads());
  std::vector<Tensor> held;
  ASSERT_TRUE(session.Run({}, {"lock:0"}, {}, &held).ok());
  std::atomic<bool> finished{false};
  Status waiting;
  std::thread other([&] {
    std::vector<Tensor> out;
    waiting = session.Run({}, {"lock:0"}, {}, &out);
    finished = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(finished.load());  // waits for the held lock
  held.clear();                   // releases the mutex
  other.join();
  EXPECT_TRUE(waiting.ok()) << waiting;
}

TEST(MutexOpsTest, TimeoutEndsAWaitingStepAndTheMutexStillWorks) {
  Session session(MutexGraph(), TwoThreads());
  std::vector<Tensor> held;
  ASSERT_TRUE(session.Run({}, {"lock:0"}, {}, &held).ok());
  int64_t handle;
  ASSERT_TRUE(
      session.MakeCallable(CallableSpec{{}, {"lock:0"}, {}}, &handle).ok());
  RunOptions options;
  options.timeout_in_ms = 50;
  std::vector<Tensor> out;
  Status s = session.RunCallable(handle, {}, options, &out, nullptr);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
  held.clear();
  s = session.RunCallable(handle, {}, options, &out, nullptr);
  EXPECT_TRUE(s.ok()) << s;  // the timed-out waiter is gone; the mutex free
}

TEST(MutexOpsTest, SessionCloseCancelsAStepWaitingForTheMutex) {
  Session session(MutexGraph(), TwoThreads());
  std::vector<Tensor> held;
  ASSERT_TRUE(session.Run({}, {"lock:0"}, {}, &held).ok());
  Status waiting;
  std::thread other([&] {
    std::vector<Tensor> out;
    waiting = session.Run({}, {"lock:0"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(session.Close().ok());
  other.join();
  EXPECT_EQ(waiting.code(), Code::kCancelled) << waiting;
  EXPECT_TRUE(HasSubstr(waiting.message(), "MutexLock of mutex 'm'"))
      << waiting;
}

TEST(MutexOpsTest, ReadAddAssignUnderTheMutexLosesNoUpdate) {
  Session session(MutexGraph(), TwoThreads());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({}, {}, {"init"}, &out).ok());
  constexpr int kThreads = 4, kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        std::vector<Tensor> unused;
        ASSERT_TRUE(session.Run({}, {}, {"consume"}, &unused).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(session.Run({}, {"v:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<int32_t>()[0], kThreads * kPerThread);
}

TEST(MutexOpsTest, BadHandlesAndLocksAreInvalidArgument) {
  auto g = MutexGraph();
  AddConst(g.get(), "text", Tensor::Scalar<std::string>("not a lock"));
  AddOp(g.get(), "ConsumeMutexLock", "bad_consume", {"text"});
  AddOp(g.get(), "MutexLock", "bad_lock", {"text"});
  AddOp(g.get(), "FIFOQueueV2", "q", {},
        {{"component_types", [] {
            AttrValue v;
            v.mutable_list()->add_type(DT_INT32);
            return v;
          }()}});
  AddOp(g.get(), "MutexLock", "queue_lock", {"q"});
  Session session(g, TwoThreads());
  std::vector<Tensor> out;
  Status s = session.Run({}, {}, {"bad_consume"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "bad_consume")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "mutex lock made by MutexLock")) << s;
  s = session.Run({}, {"bad_lock:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "is not a mutex handle")) << s;
  s = session.Run({}, {"queue_lock:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "is a FIFOQueue")) << s;
}

}  // namespace
}  // namespace tensorweave
