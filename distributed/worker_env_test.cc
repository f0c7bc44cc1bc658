// The worker runtime without gRPC: two WorkerEnvs (a ps task and a worker
// task) in one process, wired by a transport that calls Deliver directly,
// run a step partitioned by PartitionForCluster; aborts, stale and malformed
// deliveries, registration errors.
#include "distributed/worker_env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/shape_inference.h"
#include "core/runtime/session.h"
#include "distributed/cluster_partition.h"

namespace tensorweave {

REGISTER_OP("TestDistributedNoKernel")
    .Output("out: float")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Test only: an op with no kernel.");

namespace {

using test::AddConst;
using test::AddOp;
using test::AttrBool;
using test::AttrType;
using test::MakeTensor;
using test::ToVector;

const char kPs[] = "/job:ps/replica:0/task:0/device:CPU:0";
const char kWorker[] = "/job:worker/replica:0/task:0/device:CPU:0";

// A ps task and a worker task whose transport delivers straight into the
// other (on another thread, as a gRPC completion would).
struct TwoTasks {
  std::unique_ptr<WorkerEnv> ps, worker;
  std::map<std::string, WorkerEnv*> by_task;
  std::atomic<int> sent{0};

  explicit TwoTasks(RemoteRendezvousOptions rendezvous = {}) {
    WorkerEnvOptions o;
    o.inter_op_threads = 2;
    o.intra_op_threads = 1;
    o.rendezvous = rendezvous;
    o.job = "ps";
    TW_EXPECT_OK(WorkerEnv::Create(o, &ps));
    o.job = "worker";
    TW_EXPECT_OK(WorkerEnv::Create(o, &worker));
    by_task[ps->task_name()] = ps.get();
    by_task[worker->task_name()] = worker.get();
    for (WorkerEnv* env : {ps.get(), worker.get()}) {
      env->rendezvous_mgr()->SetTransport(
          [this](const std::string& dst_task, int64_t step_id,
                 const std::string& key, const Tensor& value, bool is_dead,
                 TransportDone done) {
            ++sent;
            WorkerEnv* dst =
                by_task.count(dst_task) ? by_task[dst_task] : nullptr;
            std::thread([=] {
              if (dst == nullptr) {
                done(errors::Unavailable("no task ", dst_task));
                return;
              }
              bool accepted;
              done(dst->rendezvous_mgr()->Deliver(step_id, key, value, is_dead,
                                                  &accepted));
            }).detach();
          });
    }
  }

  std::vector<ClusterDevice> Devices() const {
    std::vector<ClusterDevice> out;
    for (WorkerEnv* env : {ps.get(), worker.get()}) {
      for (const Device* d : env->devices().devices()) {
        out.push_back(
            {d->name(), d->device_type(), d->attributes().incarnation});
      }
    }
    return out;
  }

  // Partitions the step, registers each task's part and runs the step (one
  // RunGraph per task, concurrently); the fetches in step order.
  Status Run(const GraphDef& def,
             const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, int64_t step_id,
             std::vector<Tensor>* outputs) {
    std::vector<std::string> feed_names;
    for (const auto& f : feeds) feed_names.push_back(f.first);
    ClusterPlacementOptions options;
    options.default_device = "/job:worker/replica:0/task:0";
    std::vector<TaskGraph> tasks;
    TW_RETURN_IF_ERROR(PartitionForCluster(def, Devices(), feed_names, fetches,
                                           targets, options, &tasks));
    std::vector<std::future<Status>> runs;
    std::vector<std::vector<Tensor>> task_outputs(tasks.size());
    for (size_t t = 0; t < tasks.size(); ++t) {
      WorkerEnv* env = by_task.at(tasks[t].task);
      int64_t handle;
      TW_RETURN_IF_ERROR(env->RegisterGraph(tasks[t].graph_def,
                                            RegisterGraphOptions(), &handle));
      std::vector<std::pair<std::string, Tensor>> task_feeds;
      for (int f : tasks[t].feed_index) task_feeds.push_back(feeds[f]);
      runs.push_back(std::async(std::launch::async, [=, &task_outputs, &tasks] {
        RunGraphOptions run_options;
        run_options.timeout_ms = 20000;
        return env->RunGraph(handle, step_id, task_feeds, tasks[t].fetches,
                             run_options, &task_outputs[t]);
      }));
    }
    Status status;
    for (auto& r : runs) {
      Status s = r.get();
      if (status.ok()) status = s;
    }
    TW_RETURN_IF_ERROR(status);
    outputs->assign(fetches.size(), Tensor());
    for (size_t t = 0; t < tasks.size(); ++t) {
      for (size_t j = 0; j < tasks[t].fetch_index.size(); ++j) {
        (*outputs)[tasks[t].fetch_index[j]] = task_outputs[t][j];
      }
    }
    return Status::OK();
  }
};

// v (on the ps task) = [1, 2, 3]; y = v * x + 1 (on the worker task);
// update: v += x (on the ps, with x from the worker).
void BuildModel(Graph* g, bool with_devices) {
  auto on = [&](Node* n, const char* device) {
    if (with_devices) g->SetRequestedDevice(n, device);
    return n;
  };
  on(test::AddVariable(g, "v", DT_FLOAT, PartialShape({3})), kPs);
  on(AddConst(g, "v_init", MakeTensor<float>({3}, {1, 2, 3})), kPs);
  on(AddOp(g, "Assign", "v_assign", {"v", "v_init"}), kPs);
  test::AddPlaceholder(g, "x", DT_FLOAT, PartialShape({3}));
  AddOp(g, "Identity", "v_read", {"v"});
  on(g->FindNode("v_read"), kPs);
  AddOp(g, "Mul", "vx", {"v_read", "x"});
  AddConst(g, "one", Tensor::Scalar<float>(1.0f));
  AddOp(g, "Add", "y", {"vx", "one"});
  // After the step's reads (so that both runs agree on what they see).
  AddOp(g, "AssignAdd", "v_update", {"v", "x", "^y", "^v_read"});
}

TEST(WorkerEnvTest, VariableOnPsComputeOnWorkerMatchesOneSession) {
  TwoTasks tasks;
  Graph g;
  BuildModel(&g, /*with_devices=*/true);
  GraphDef def;
  g.ToGraphDef(&def);

  // The oracle: the same graph without devices, in one session.
  auto local = std::make_shared<Graph>();
  BuildModel(local.get(), /*with_devices=*/false);
  Session session(local, SessionOptions());
  std::vector<Tensor> expected, got;
  TW_ASSERT_OK(session.Run({}, {}, {"v_assign"}, &expected));
  TW_ASSERT_OK(tasks.Run(def, {}, {}, {"v_assign"}, 1, &got));
  const Tensor x = MakeTensor<float>({3}, {0.5f, -1.0f, 2.0f});
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(session.Run({{"x:0", x}}, {"y:0", "v_read:0"}, {"v_update"},
                             &expected));
    TW_ASSERT_OK(tasks.Run(def, {{"x:0", x}}, {"y:0", "v_read:0"}, {"v_update"},
                           10 + step, &got));
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(ToVector<float>(got[0]), ToVector<float>(expected[0]));
    EXPECT_EQ(ToVector<float>(got[1]), ToVector<float>(expected[1]));
  }
  // The variable lives on the ps task only, and tensors crossed tasks.
  EXPECT_NE(tasks.ps->resource_mgr()->FindVar("", "v"), nullptr);
  EXPECT_EQ(tasks.worker->resource_mgr()->FindVar("", "v"), nullptr);
  EXPECT_GT(tasks.sent.load(), 0);
  // Every step's rendezvous was cleaned up.
  EXPECT_EQ(tasks.ps->rendezvous_mgr()->NumSteps(), 0u);
  EXPECT_EQ(tasks.worker->rendezvous_mgr()->NumSteps(), 0u);
  // Reset drops the ps's variable.
  TW_EXPECT_OK(tasks.ps->Reset({}));
  EXPECT_EQ(tasks.ps->resource_mgr()->FindVar("", "v"), nullptr);
}

TEST(WorkerEnvTest, PlacementPinsAndDefaultsAndFeedsByName) {
  TwoTasks tasks;
  Graph g;
  BuildModel(&g, true);
  GraphDef def;
  g.ToGraphDef(&def);
  ClusterPlacementOptions options;
  options.default_device = "/job:worker/replica:0/task:0";
  std::vector<TaskGraph> parts;
  TW_ASSERT_OK(PartitionForCluster(def, tasks.Devices(), {"x:0"}, {"y:0"},
                                   {"v_update"}, options, &parts));
  ASSERT_EQ(parts.size(), 2u);
  std::map<std::string, std::string> device_of;
  for (const TaskGraph& t : parts) {
    for (const NodeDef& n : t.graph_def.node())
      device_of[n.name()] = n.device();
  }
  EXPECT_EQ(device_of["v"], kPs);
  EXPECT_EQ(device_of["v_update"], kPs);  // colocated with its variable
  EXPECT_EQ(device_of["vx"], kWorker);
  EXPECT_EQ(device_of["y"], kWorker);
  for (const TaskGraph& t : parts) {
    if (t.task == "/job:worker/replica:0/task:0") {
      EXPECT_EQ(t.fetches, std::vector<std::string>({"y:0"}));
      EXPECT_EQ(t.fetch_index, std::vector<int>({0}));
    }
    // x is read on both tasks (by vx and by v_update): fed to both by name.
    EXPECT_EQ(t.feeds, std::vector<std::string>({"x:0"}));
  }
  // An impossible pin is the placer's error naming the node.
  Graph bad;
  AddConst(&bad, "c", Tensor::Scalar<float>(1.0f));
  bad.SetRequestedDevice(bad.FindNode("c"), "/job:ps/replica:0/task:7");
  GraphDef bad_def;
  bad.ToGraphDef(&bad_def);
  Status s = PartitionForCluster(bad_def, tasks.Devices(), {}, {"c:0"}, {},
                                 options, &parts);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("c"), std::string::npos) << s;
}

TEST(WorkerEnvTest, ConcurrentStepsStayApart) {
  // x (fed on the worker) -> ps: d = x * 2 -> worker: y = d + 1; several
  // steps in flight at once, values pushed before or after the receiving
  // task's RunGraph starts.
  TwoTasks tasks;
  Graph g;
  test::AddPlaceholder(&g, "x", DT_FLOAT, PartialShape({}));
  AddConst(&g, "two", Tensor::Scalar<float>(2.0f));
  AddOp(&g, "Mul", "d", {"x", "two"});
  for (const char* n : {"two", "d"}) g.SetRequestedDevice(g.FindNode(n), kPs);
  AddConst(&g, "one", Tensor::Scalar<float>(1.0f));
  AddOp(&g, "Add", "y", {"d", "one"});
  GraphDef def;
  g.ToGraphDef(&def);
  ClusterPlacementOptions options;
  options.default_device = "/job:worker/replica:0/task:0";
  std::vector<TaskGraph> parts;
  TW_ASSERT_OK(PartitionForCluster(def, tasks.Devices(), {"x:0"}, {"y:0"}, {},
                                   options, &parts));
  ASSERT_EQ(parts.size(), 2u);
  std::map<std::string, int64_t> handle;
  for (const TaskGraph& t : parts) {
    TW_ASSERT_OK(tasks.by_task.at(t.task)->RegisterGraph(t.graph_def, {},
                                                         &handle[t.task]));
  }
  const std::string worker = tasks.worker->task_name();
  const std::string ps = tasks.ps->task_name();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 4; ++thread) {
    threads.emplace_back([&, thread] {
      for (int i = 0; i < 25; ++i) {
        const int64_t step = 1000 + thread * 100 + i;
        const float x = static_cast<float>(step);
        RunGraphOptions run_options;
        run_options.timeout_ms = 20000;
        auto ps_run = std::async(std::launch::async, [&] {
          std::vector<Tensor> out;
          return tasks.ps->RunGraph(handle[ps], step,
                                    {{"x:0", Tensor::Scalar<float>(x)}}, {},
                                    run_options, &out);
        });
        std::vector<Tensor> out;
        Status s = tasks.worker->RunGraph(handle[worker], step, {}, {"y:0"},
                                          run_options, &out);
        Status ps_status = ps_run.get();
        if (!s.ok() || !ps_status.ok() || out.size() != 1 ||
            out[0].data<float>()[0] != 2 * x + 1) {
          ++wrong;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(tasks.ps->rendezvous_mgr()->NumSteps(), 0u);
  EXPECT_EQ(tasks.worker->rendezvous_mgr()->NumSteps(), 0u);
}

// The worker's part of a step that waits for a value from the ps task.
int64_t RegisterWaitingPart(TwoTasks* tasks) {
  Graph g;
  AddConst(&g, "a", Tensor::Scalar<float>(2.0f));
  g.SetRequestedDevice(g.FindNode("a"), kPs);
  AddOp(&g, "Neg", "b", {"a"});
  GraphDef def;
  g.ToGraphDef(&def);
  ClusterPlacementOptions options;
  options.default_device = "/job:worker/replica:0/task:0";
  std::vector<TaskGraph> parts;
  EXPECT_TRUE(PartitionForCluster(def, tasks->Devices(), {}, {"b:0"}, {},
                                  options, &parts)
                  .ok());
  for (const TaskGraph& t : parts) {
    if (t.task != tasks->worker->task_name()) continue;
    int64_t handle = -1;
    TW_EXPECT_OK(tasks->worker->RegisterGraph(t.graph_def, {}, &handle));
    return handle;
  }
  ADD_FAILURE() << "no worker part";
  return -1;
}

TEST(WorkerEnvTest, AbortMidStepUnblocksTheWaitingRecv) {
  TwoTasks tasks;
  const int64_t handle = RegisterWaitingPart(&tasks);
  auto run = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    RunGraphOptions options;
    options.timeout_ms = 30000;  // a safety net: the abort comes first
    return tasks.worker->RunGraph(handle, 42, {}, {"b:0"}, options, &out);
  });
  // The step is running (its rendezvous exists) before it is aborted.
  while (tasks.worker->rendezvous_mgr()->NumSteps() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  tasks.worker->rendezvous_mgr()->Abort(
      42, errors::Unavailable("the ps task died"));
  Status s = run.get();
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_NE(s.message().find("the ps task died"), std::string::npos) << s;
  EXPECT_EQ(tasks.worker->rendezvous_mgr()->NumSteps(), 0u);
  // A RunGraph of the aborted step that comes later fails at once.
  std::vector<Tensor> out;
  s = tasks.worker->RunGraph(handle, 42, {}, {"b:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
}

TEST(WorkerEnvTest, TimeoutEndsAStepWhoseValueNeverComes) {
  TwoTasks tasks;
  const int64_t handle = RegisterWaitingPart(&tasks);
  std::vector<Tensor> out;
  RunGraphOptions options;
  options.timeout_ms = 50;
  Status s = tasks.worker->RunGraph(handle, 7, {}, {"b:0"}, options, &out);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
}

TEST(WorkerEnvTest, ValueDeliveredBeforeTheStepStartsIsReceived) {
  TwoTasks tasks;
  const int64_t handle = RegisterWaitingPart(&tasks);
  // The ps's _Send key, as the partition made it.
  const Device* ps_cpu = tasks.ps->devices().devices().front();
  const std::string key = Rendezvous::CreateKey(
      ps_cpu->name(), ps_cpu->attributes().incarnation, kWorker, "a:0");
  bool accepted = false;
  TW_ASSERT_OK(tasks.worker->rendezvous_mgr()->Deliver(
      5, key, Tensor::Scalar<float>(2.5f), false, &accepted));
  EXPECT_TRUE(accepted);
  std::vector<Tensor> out;
  RunGraphOptions options;
  options.timeout_ms = 20000;
  TW_ASSERT_OK(tasks.worker->RunGraph(handle, 5, {}, {"b:0"}, options, &out));
  EXPECT_EQ(ToVector<float>(out[0]), std::vector<float>({-2.5f}));
  // A late delivery for the step that ended is dropped, not kept.
  TW_ASSERT_OK(tasks.worker->rendezvous_mgr()->Deliver(
      5, key, Tensor::Scalar<float>(1.0f), false, &accepted));
  EXPECT_FALSE(accepted);
  EXPECT_EQ(tasks.worker->rendezvous_mgr()->NumSteps(), 0u);
}

TEST(WorkerEnvTest, ReplySendsAreReturnedToTheCallerNotPushed) {
  TwoTasks tasks;
  Graph g;
  BuildModel(&g, true);
  GraphDef def;
  g.ToGraphDef(&def);
  std::vector<Tensor> got;
  TW_ASSERT_OK(tasks.Run(def, {}, {}, {"v_assign"}, 1, &got));
  ClusterPlacementOptions placement;
  placement.default_device = "/job:worker/replica:0/task:0";
  // y = v * x + 1: the ps's part only sends v to the worker.
  std::vector<TaskGraph> parts;
  TW_ASSERT_OK(PartitionForCluster(def, tasks.Devices(), {"x:0"}, {"y:0"}, {},
                                   placement, &parts));
  ASSERT_EQ(parts.size(), 2u);
  const size_t ps = parts[0].task == tasks.ps->task_name() ? 0 : 1;
  int64_t handles[2];
  for (size_t t = 0; t < 2; ++t) {
    TW_ASSERT_OK(tasks.by_task.at(parts[t].task)
                     ->RegisterGraph(parts[t].graph_def, {}, &handles[t]));
  }
  const int sent_before = tasks.sent.load();
  std::vector<SentValue> held = {{"stale", Tensor(), true}};  // (cleared)
  RunGraphOptions options;
  options.reply_task = tasks.worker->task_name();
  options.reply_sends = &held;
  std::vector<Tensor> out;
  TW_ASSERT_OK(tasks.ps->RunGraph(handles[ps], 20, {}, parts[ps].fetches,
                                  options, &out));
  EXPECT_EQ(tasks.sent.load(), sent_before);  // nothing was pushed
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(ToVector<float>(held[0].value), std::vector<float>({1, 2, 3}));
  EXPECT_FALSE(held[0].is_dead);
  EXPECT_EQ(tasks.ps->rendezvous_mgr()->NumSteps(), 0u);
  // The caller delivers it, and its part runs with it.
  bool accepted = false;
  TW_ASSERT_OK(tasks.worker->rendezvous_mgr()->Deliver(
      20, held[0].key, held[0].value, false, &accepted));
  EXPECT_TRUE(accepted);
  const Tensor x = MakeTensor<float>({3}, {0.5f, -1.0f, 2.0f});
  RunGraphOptions worker_options;
  worker_options.timeout_ms = 20000;
  TW_ASSERT_OK(tasks.worker->RunGraph(handles[1 - ps], 20, {{"x:0", x}},
                                      parts[1 - ps].fetches, worker_options,
                                      &out));
  EXPECT_EQ(ToVector<float>(out[0]), std::vector<float>({1.5f, -1.0f, 7.0f}));

  // A call that fails returns nothing held: the ps's part of the update
  // waits for y's control edge from the worker, which never runs its part.
  TW_ASSERT_OK(PartitionForCluster(def, tasks.Devices(), {"x:0"}, {"y:0"},
                                   {"v_update"}, placement, &parts));
  const size_t ps2 = parts[0].task == tasks.ps->task_name() ? 0 : 1;
  int64_t handle;
  TW_ASSERT_OK(tasks.ps->RegisterGraph(parts[ps2].graph_def, {}, &handle));
  std::vector<std::pair<std::string, Tensor>> ps_feeds;
  for (size_t f = 0; f < parts[ps2].feed_index.size(); ++f) {
    ps_feeds.push_back({"x:0", x});
  }
  options.timeout_ms = 50;
  Status s = tasks.ps->RunGraph(handle, 21, ps_feeds, parts[ps2].fetches,
                                options, &out);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
  EXPECT_TRUE(held.empty());
  EXPECT_EQ(tasks.sent.load(), sent_before);
}

TEST(WorkerEnvTest, StaleStepsAreCollectedAndTombstonesBounded) {
  RemoteRendezvousOptions options;
  options.stale_step_timeout_ms = 1;
  options.max_tombstones = 3;
  TwoTasks tasks(options);
  RemoteRendezvousMgr* mgr = tasks.worker->rendezvous_mgr();
  const std::string key =
      Rendezvous::CreateKey(kPs, 1, kWorker, "never_received:0");
  bool accepted = false;
  TW_ASSERT_OK(
      mgr->Deliver(99, key, Tensor::Scalar<float>(1.0f), false, &accepted));
  EXPECT_TRUE(accepted);
  EXPECT_EQ(mgr->NumSteps(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  mgr->CollectGarbage();
  EXPECT_EQ(mgr->NumSteps(), 0u);
  TW_ASSERT_OK(
      mgr->Deliver(99, key, Tensor::Scalar<float>(1.0f), false, &accepted));
  EXPECT_FALSE(accepted);
  for (int step = 100; step < 110; ++step) mgr->Cleanup(step);
  EXPECT_EQ(mgr->NumTombstones(), 3u);
  EXPECT_EQ(mgr->NumSteps(), 0u);
}

TEST(WorkerEnvTest, MalformedDeliveriesAreInvalidArgument) {
  TwoTasks tasks;
  RemoteRendezvousMgr* mgr = tasks.worker->rendezvous_mgr();
  std::vector<char> bytes(20);
  Tensor t;
  EXPECT_EQ(TensorFromBytes(DT_FLOAT, {2, 3}, bytes.data(), 20, &t).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(TensorFromBytes(DT_FLOAT, {-1, 5}, bytes.data(), 20, &t).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(TensorFromBytes(DT_FLOAT, {int64_t{1} << 62, int64_t{1} << 62},
                            bytes.data(), 20, &t)
                .code(),
            Code::kInvalidArgument);
  EXPECT_EQ(TensorFromBytes(DT_STRING, {1}, bytes.data(), 20, &t).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(
      TensorFromBytes(static_cast<DataType>(999), {5}, bytes.data(), 20, &t)
          .code(),
      Code::kInvalidArgument);
  TW_ASSERT_OK(TensorFromBytes(DT_FLOAT, {5}, bytes.data(), 20, &t));
  EXPECT_EQ(t.shape(), TensorShape({5}));
  EXPECT_EQ(TensorFromStrings({3}, {"a", "b"}, &t).code(),
            Code::kInvalidArgument);
  // A peer's shape of 2^29 strings (16 GiB of std::string) with one string
  // sent, and negative or overflowing shapes: refused before allocating.
  EXPECT_EQ(TensorFromStrings({int64_t{1} << 29}, {"a"}, &t).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(TensorFromStrings({-1}, {"a"}, &t).code(), Code::kInvalidArgument);
  EXPECT_EQ(TensorFromStrings({int64_t{1} << 62, 8}, {}, &t).code(),
            Code::kInvalidArgument);
  TW_ASSERT_OK(TensorFromStrings({2}, {"a", "b"}, &t));
  bool accepted = true;
  Status s = mgr->Deliver(1, "not a key", t, false, &accepted);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_FALSE(accepted);
  // A value for a device of another task.
  s = mgr->Deliver(1, Rendezvous::CreateKey(kWorker, 1, kPs, "z:0"), t, false,
                   &accepted);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  mgr->Cleanup(1);
}

TEST(WorkerEnvTest, RegisterGraphValidatesDevicesKernelsAndIncarnations) {
  TwoTasks tasks;
  int64_t handle;
  {
    Graph g;
    AddConst(&g, "c", Tensor::Scalar<float>(1.0f));
    g.SetRequestedDevice(g.FindNode("c"), kPs);  // not the worker's
    GraphDef def;
    g.ToGraphDef(&def);
    Status s = tasks.worker->RegisterGraph(def, {}, &handle);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("'c'"), std::string::npos) << s;
  }
  {
    Graph g;
    AddOp(&g, "TestDistributedNoKernel", "nk", {});
    g.SetRequestedDevice(g.FindNode("nk"), kWorker);
    GraphDef def;
    g.ToGraphDef(&def);
    Status s = tasks.worker->RegisterGraph(def, {}, &handle);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("nk"), std::string::npos) << s;
  }
  {
    // A _Send made for an earlier incarnation of the worker's device.
    Graph g;
    AddConst(&g, "c", Tensor::Scalar<float>(1.0f));
    AddOp(&g, "_Send", "send", {"c"},
          {{"T", AttrType(DT_FLOAT)},
           {"tensor_name", test::AttrString("c:0")},
           {"send_device", test::AttrString(kWorker)},
           {"send_device_incarnation", test::AttrInt(12345)},
           {"recv_device", test::AttrString(kPs)},
           {"client_terminated", AttrBool(false)}});
    for (const char* n : {"c", "send"}) {
      g.SetRequestedDevice(g.FindNode(n), kWorker);
    }
    GraphDef def;
    g.ToGraphDef(&def);
    Status s = tasks.worker->RegisterGraph(def, {}, &handle);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  }
  EXPECT_EQ(tasks.worker->NumRegisteredGraphs(), 0u);
  std::vector<Tensor> out;
  EXPECT_EQ(tasks.worker->RunGraph(12345, 1, {}, {}, {}, &out).code(),
            Code::kNotFound);
}

}  // namespace
}  // namespace tensorweave
