// Steps on a device with memory of its own, without a GPU: "ACC", a test
// device whose memory is host memory it allocates and tracks, and which
// captures a step by recording its kernels' work as closures (as a CUDA
// graph records launches). Checks what the GPU relies on: kernels get
// device memory except the arguments they declare HostMemory, partitioning
// copies values between the memories (also on one device), feeds and
// fetches pass through the client's CPU, and captured steps replay with new
// values and fall back when shapes, host-read values or variables change.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/sendrecv_ops.h"
#include "core/runtime/session.h"

namespace tensorweave {

// Test only: y = x * k on the accelerator; k (int32 scalar) is read on the
// host.
REGISTER_OP("TestAccScale")
    .Input("x: float")
    .Input("k: int32")
    .Output("y: float")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Test only.");
// Test only: the number of elements of x, as a float in host memory.
REGISTER_OP("TestAccCount")
    .Input("x: float")
    .Output("n: float")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Test only.");

namespace {

constexpr const char* kAcc = "ACC";

class AccDevice;

// The device's memory: every live block, to tell device from host memory.
struct AccMemory {
  std::mutex mu;
  std::set<const void*> blocks;
  bool Contains(const void* p) {
    std::lock_guard<std::mutex> lock(mu);
    return blocks.count(p) > 0;
  }
};
AccMemory* Memory() {
  static AccMemory* memory = new AccMemory();
  return memory;
}

struct Recording : public CapturedStep {
  std::vector<Transfer> ins, outs;
  std::vector<std::function<void()>> work;
  std::vector<Tensor> in_staging, out_staging;  // host blocks the work uses
  std::vector<Tensor> pending_outs;             // the capturing step's outputs
  const std::vector<Transfer>& inputs() const override { return ins; }
  const std::vector<Transfer>& outputs() const override { return outs; }
  Status Replay(const std::vector<Tensor>& inputs,
                std::vector<Tensor>* outputs) override {
    ++replays;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (ins[i].host_memory) continue;
      std::memcpy(in_staging[i].raw_data(), inputs[i].raw_data(),
                  inputs[i].num_bytes());
    }
    for (auto& w : work) w();
    outputs->clear();
    for (size_t i = 0; i < outs.size(); ++i) {
      outputs->push_back(out_staging[i].DeepCopy());
    }
    return Status::OK();
  }
  int replays = 0;
};

class AccDevice : public Device {
 public:
  explicit AccDevice(DeviceAttributes a) : Device(std::move(a)) {}
  bool host_memory() const override { return false; }
  Status AllocateTensor(DataType dtype, const TensorShape& shape,
                        Tensor* out) override {
    const size_t bytes =
        std::max<size_t>(64, shape.num_elements() * DataTypeSize(dtype));
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    {
      std::lock_guard<std::mutex> lock(Memory()->mu);
      Memory()->blocks.insert(p);
    }
    auto buffer = TensorBuffer::Adopt(p, bytes, [p] {
      {
        std::lock_guard<std::mutex> lock(Memory()->mu);
        Memory()->blocks.erase(p);
      }
      std::free(p);
    });
    // (Recorded work holds its tensors, so their blocks outlive the step.)
    *out = Tensor(dtype, shape, buffer);
    return Status::OK();
  }
  Status CopyFromHost(const Tensor& host, Tensor* out) override {
    if (Memory()->Contains(host.raw_data())) {
      return errors::Internal("CopyFromHost of device memory");
    }
    TW_RETURN_IF_ERROR(AllocateTensor(host.dtype(), host.shape(), out));
    Do([src = host, dst = *out] {
      std::memcpy(dst.raw_data(), src.raw_data(), src.num_bytes());
    });
    return Status::OK();
  }
  Status CopyToHost(const Tensor& device, Tensor* out) override {
    if (!Memory()->Contains(device.buffer()->data())) {
      return errors::Internal("CopyToHost of host memory");
    }
    TW_RETURN_IF_ERROR(Tensor::Allocate(device.dtype(), device.shape(), out));
    std::memcpy(out->raw_data(), device.raw_data(), device.num_bytes());
    return Status::OK();
  }
  // A transfer between this device's host and device memory: its value is
  // the same in every replay (computed from shapes), so it is recorded as
  // work, not as an input or output of the recording.
  static bool WithinDevice(const std::string& key) {
    Rendezvous::ParsedKey parsed;
    return Rendezvous::ParseKey(key, &parsed).ok() &&
           parsed.src_device == parsed.dst_device;
  }
  Status TransferIn(const std::string& key, bool host_memory,
                    const Tensor& host, Tensor* out) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (recording_ == nullptr || WithinDevice(key)) {
      lock.unlock();
      return Device::TransferIn(key, host_memory, host, out);
    }
    CapturedStep::Transfer t{key, host_memory, host.dtype(), host.shape(),
                             host_memory ? host : Tensor()};
    recording_->ins.push_back(t);
    Tensor staging = host.DeepCopy();
    recording_->in_staging.push_back(staging);
    if (host_memory) {
      *out = host;
      return Status::OK();
    }
    lock.unlock();
    TW_RETURN_IF_ERROR(AllocateTensor(host.dtype(), host.shape(), out));
    Do([staging, dst = *out] {
      std::memcpy(dst.raw_data(), staging.raw_data(), staging.num_bytes());
    });
    return Status::OK();
  }
  Status TransferOut(const std::string& key, bool host_memory,
                     const Tensor& value, Tensor* host_out) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (recording_ == nullptr || WithinDevice(key)) {
      return Device::TransferOut(key, host_memory, value, host_out);
    }
    recording_->outs.push_back(
        CapturedStep::Transfer{key, host_memory, value.dtype(), value.shape()});
    Tensor staging = Tensor(value.dtype(), value.shape());
    recording_->out_staging.push_back(staging);
    recording_->work.push_back([value, staging] {
      std::memcpy(staging.raw_data(), value.raw_data(), value.num_bytes());
    });
    *host_out = Tensor(value.dtype(), value.shape());
    recording_->pending_outs.push_back(*host_out);
    return Status::OK();
  }
  bool SupportsCapture() const override { return true; }
  Status BeginCapture() override {
    std::lock_guard<std::mutex> lock(mu_);
    recording_ = std::make_unique<Recording>();
    ++captures;
    return Status::OK();
  }
  Status EndCapture(const Status& step_status,
                    std::unique_ptr<CapturedStep>* captured) override {
    std::unique_ptr<Recording> r;
    {
      std::lock_guard<std::mutex> lock(mu_);
      r = std::move(recording_);
    }
    if (!step_status.ok()) return step_status;
    for (auto& w : r->work) w();
    for (size_t i = 0; i < r->outs.size(); ++i) {
      std::memcpy(r->pending_outs[i].raw_data(), r->out_staging[i].raw_data(),
                  r->out_staging[i].num_bytes());
    }
    r->pending_outs.clear();
    last_ = r.get();
    *captured = std::move(r);
    return Status::OK();
  }

  // Runs `work` now, or records it while capturing.
  void Do(std::function<void()> work) {
    std::lock_guard<std::mutex> lock(mu_);
    if (recording_ != nullptr) {
      recording_->work.push_back(std::move(work));
    } else {
      work();
    }
  }

  bool capturing() {
    std::lock_guard<std::mutex> lock(mu_);
    return recording_ != nullptr;
  }

  int captures = 0;
  Recording* last_ = nullptr;
  // Kernels fail while a step is captured (a kernel that cannot be).
  bool fail_while_capturing = false;

 private:
  std::mutex mu_;
  std::unique_ptr<Recording> recording_;
};

class AccFactory : public DeviceFactory {
 public:
  Status CreateDevices(int count, const std::string& prefix,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    if (count == 0) return Status::OK();
    DeviceAttributes a;
    a.name = prefix + "/device:ACC:0";
    a.device_type = kAcc;
    auto device = std::make_unique<AccDevice>(a);
    last = device.get();
    devices->push_back(std::move(device));
    return Status::OK();
  }
  static AccDevice* last;
};
AccDevice* AccFactory::last = nullptr;

// A float kernel on ACC: checks its input is device memory, then computes
// (or records) out[i] = f(in[i], host scalar).
class AccScaleOp : public OpKernel {
 public:
  explicit AccScaleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    auto* acc = static_cast<AccDevice*>(ctx->device());
    OP_REQUIRES(ctx, !(acc->fail_while_capturing && acc->capturing()),
                errors::Internal("this kernel cannot be captured"));
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, Memory()->Contains(x.buffer()->data()),
                errors::Internal("x is not in device memory"));
    float k = 1;
    if (ctx->num_inputs() > 1) {
      const Tensor& kt = ctx->input(1);
      OP_REQUIRES(ctx, !Memory()->Contains(kt.buffer()->data()),
                  errors::Internal("k is not in host memory"));
      k = static_cast<float>(kt.data<int32_t>()[0]);
    }
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    OP_REQUIRES(ctx, Memory()->Contains(y->buffer()->data()),
                errors::Internal("y is not in device memory"));
    const bool square = type_string() == "Square";
    static_cast<AccDevice*>(ctx->device())->Do([x, out = *y, k, square] {
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const float v = x.data<float>()[i];
        out.data<float>()[i] = square ? v * v : v * k;
      }
    });
  }
};

class AccCountOp : public OpKernel {
 public:
  explicit AccCountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Tensor* n;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &n));
    OP_REQUIRES(ctx, !Memory()->Contains(n->buffer()->data()),
                errors::Internal("n is not in host memory"));
    n->data<float>()[0] = static_cast<float>(ctx->input(0).num_elements());
  }
};

const bool kRegistered = [] {
  DeviceFactory::Register(kAcc, std::make_unique<AccFactory>(), 150);
  RegisterSendRecvKernels(kAcc);
  KernelRegistry::Global()->Register(
      KernelDef("Square").Device(kAcc).TypeConstraint("T", {DT_FLOAT}),
      [](OpKernelConstruction* c) { return std::make_unique<AccScaleOp>(c); });
  KernelRegistry::Global()->Register(
      KernelDef("TestAccScale").Device(kAcc).HostMemoryInput(1),
      [](OpKernelConstruction* c) { return std::make_unique<AccScaleOp>(c); });
  KernelRegistry::Global()->Register(
      KernelDef("TestAccCount").Device(kAcc).HostMemoryOutput(0),
      [](OpKernelConstruction* c) { return std::make_unique<AccCountOp>(c); });
  return true;
}();

using test::ToVector;

Node* On(Graph* g, const std::string& device, const std::string& op,
         const std::string& name, const std::vector<std::string>& inputs,
         const test::Attrs& attrs = {}) {
  NodeDef def = test::MakeNodeDef(op, name, inputs, attrs);
  def.set_device(device);
  Node* node = nullptr;
  Status s = g->AddNode(def, &node);
  if (!s.ok()) ADD_FAILURE() << name << ": " << s;
  return node;
}

SessionOptions Options() {
  SessionOptions o;
  o.inter_op_threads = 2;
  o.intra_op_threads = 1;
  o.device_count[kAcc] = 1;
  return o;
}

int CountOps(const GraphDef& g, const std::string& op) {
  int n = 0;
  for (const NodeDef& node : g.node()) n += node.op() == op;
  return n;
}

// x (fed) -> Square on ACC -> TestAccScale(k) on ACC -> fetched; k is an
// int32 constant on the CPU, read by the kernel on the host.
std::shared_ptr<Graph> ScaleGraph(bool feed_k) {
  auto g = std::make_shared<Graph>();
  test::AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape::UnknownRank());
  if (feed_k) {
    test::AddPlaceholder(g.get(), "k", DT_INT32, PartialShape({}));
  } else {
    On(g.get(), "/cpu:0", "Const", "k", {},
       {{"dtype", test::AttrType(DT_INT32)},
        {"value", test::AttrTensor(Tensor::Scalar<int32_t>(3))}});
  }
  On(g.get(), "/device:ACC:0", "Square", "sq", {"x"},
     {{"T", test::AttrType(DT_FLOAT)}});
  On(g.get(), "/device:ACC:0", "TestAccScale", "y", {"sq", "k"});
  return g;
}

TEST(AcceleratorSessionTest, DeviceMemoryHostMemoryAndClientTransfers) {
  auto g = ScaleGraph(false);
  Session sess(g, Options());
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0"}, {"y:0"}, {}}, &handle));
  std::vector<Tensor> out;
  RunOptions options;
  options.output_partition_graphs = true;
  RunMetadata metadata;
  TW_ASSERT_OK(sess.RunCallable(handle, {Tensor::Vector<float>({1, 2, 3})},
                                options, &out, &metadata));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{3, 12, 27}));
  ASSERT_EQ(metadata.partition_graphs.size(), 2u);
  for (const GraphDef& part : metadata.partition_graphs) {
    const bool acc = part.node(0).device().find("ACC") != std::string::npos;
    // ACC: x and k come in (k to host memory), y goes out. CPU: the feed
    // and k go out, y comes in.
    EXPECT_EQ(CountOps(part, "_Recv"), acc ? 2 : 1);
    EXPECT_EQ(CountOps(part, "_Send"), acc ? 1 : 2);
    for (const NodeDef& node : part.node()) {
      if (node.op() != "_Recv" || !acc) continue;
      const bool host = node.attr().count("host_memory") > 0 &&
                        node.attr().at("host_memory").b();
      EXPECT_EQ(host, node.attr().at("tensor_type").type() == DT_INT32)
          << node.DebugString();
    }
  }
}

TEST(AcceleratorSessionTest, MemoryTypesDifferOnOneDevice) {
  // TestAccCount writes host memory; Square reads device memory: a copy on
  // ACC itself.
  auto g = std::make_shared<Graph>();
  test::AddPlaceholder(g.get(), "x", DT_FLOAT, PartialShape::UnknownRank());
  On(g.get(), "/device:ACC:0", "TestAccCount", "n", {"x"});
  On(g.get(), "/device:ACC:0", "Square", "n2", {"n"},
     {{"T", test::AttrType(DT_FLOAT)}});
  Session sess(g, Options());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({{"x:0", Tensor::Vector<float>({1, 2, 3, 4})}},
                        {"n2:0", "n:0"}, {}, &out));
  EXPECT_EQ(out[0].data<float>()[0], 16.0f);
  EXPECT_EQ(out[1].data<float>()[0], 4.0f);
  // Captured and replayed: the copy within the device is part of the
  // recording, not something the replay waits for.
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0"}, {"n2:0"}, {}}, &handle));
  AccDevice* acc = AccFactory::last;
  for (int step = 0; step < 5; ++step) {
    TW_ASSERT_OK(
        sess.RunCallable(handle, {Tensor::Vector<float>({1, 2, 3, 4})}, &out));
    EXPECT_EQ(out[0].data<float>()[0], 16.0f) << "step " << step;
  }
  EXPECT_EQ(acc->captures, 1);
  ASSERT_NE(acc->last_, nullptr);
  EXPECT_EQ(acc->last_->replays, 2);
}

TEST(AcceleratorSessionTest, CapturedStepsReplayWithNewValues) {
  auto g = ScaleGraph(false);
  Session sess(g, Options());
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0"}, {"y:0"}, {}}, &handle));
  AccDevice* acc = AccFactory::last;
  std::vector<Tensor> out;
  for (int step = 0; step < 6; ++step) {
    const float v = static_cast<float>(step);
    TW_ASSERT_OK(
        sess.RunCallable(handle, {Tensor::Vector<float>({v, v + 1})}, &out));
    EXPECT_EQ(ToVector<float>(out[0]),
              (std::vector<float>{3 * v * v, 3 * (v + 1) * (v + 1)}))
        << "step " << step;
  }
  // Steps 0 and 1 run normally, step 2 is captured, 3..5 replay it.
  EXPECT_EQ(acc->captures, 1);
  ASSERT_NE(acc->last_, nullptr);
  EXPECT_EQ(acc->last_->replays, 3);
  // A new shape: the recording is not used; after two steps with it, a new
  // one is made.
  for (int step = 0; step < 4; ++step) {
    TW_ASSERT_OK(
        sess.RunCallable(handle, {Tensor::Vector<float>({1, 2, 4})}, &out));
    EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{3, 12, 48}));
  }
  EXPECT_EQ(acc->captures, 2);
  EXPECT_EQ(acc->last_->replays, 1);
}

TEST(AcceleratorSessionTest, HostReadValueChangeFallsBack) {
  auto g = ScaleGraph(true);
  Session sess(g, Options());
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0", "k:0"}, {"y:0"}, {}}, &handle));
  AccDevice* acc = AccFactory::last;
  std::vector<Tensor> out;
  for (int step = 0; step < 5; ++step) {
    const int k = step < 4 ? 2 : 5;  // k changes after the capture
    TW_ASSERT_OK(sess.RunCallable(
        handle, {Tensor::Vector<float>({1, 2}), Tensor::Scalar<int32_t>(k)},
        &out));
    EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1.0f * k, 4.0f * k}))
        << "step " << step;
  }
  EXPECT_EQ(acc->captures, 1);
  EXPECT_EQ(acc->last_->replays, 1);  // step 3; step 4 ran normally
}

TEST(AcceleratorSessionTest, AFailedCaptureRunsTheStepNormally) {
  auto g = ScaleGraph(false);
  Session sess(g, Options());
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0"}, {"y:0"}, {}}, &handle));
  AccDevice* acc = AccFactory::last;
  acc->fail_while_capturing = true;
  std::vector<Tensor> out;
  for (int step = 0; step < 8; ++step) {
    TW_ASSERT_OK(
        sess.RunCallable(handle, {Tensor::Vector<float>({1, 2})}, &out));
    EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{3, 12}));
  }
  // Two captures were tried (steps 2 and 5), then no more.
  EXPECT_EQ(acc->captures, 2);
}

TEST(AcceleratorSessionTest, HostComputingOnDeviceOutputsIsNotCaptured) {
  auto g = ScaleGraph(false);
  On(g.get(), "/cpu:0", "Neg", "neg_y", {"y"});
  Session sess(g, Options());
  int64_t handle;
  TW_ASSERT_OK(sess.MakeCallable({{"x:0"}, {"neg_y:0"}, {}}, &handle));
  AccDevice* acc = AccFactory::last;
  std::vector<Tensor> out;
  for (int step = 0; step < 4; ++step) {
    TW_ASSERT_OK(
        sess.RunCallable(handle, {Tensor::Vector<float>({1, 2})}, &out));
    EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{-3, -12}));
  }
  EXPECT_EQ(acc->captures, 0);
}

}  // namespace
}  // namespace tensorweave
