// Kernels: the code that runs an op on a device, registered per (op, device,
// dtype constraints). A kernel is built once per node and session, from the
// node's attrs, and then computes many steps, possibly concurrently.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_OP_KERNEL_H_
#define TENSORWEAVE_CORE_FRAMEWORK_OP_KERNEL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/device_base.h"
#include "core/framework/graph.h"
#include "core/framework/rendezvous.h"
#include "core/framework/resource.h"
#include "core/framework/tensor.h"

namespace tensorweave {

class CancellationManager;
class OpKernelContext;
class ThreadPool;

inline constexpr const char* DEVICE_CPU = "CPU";

class OpKernelConstruction {
 public:
  OpKernelConstruction(const Node* node, const std::string& device_type,
                       DeviceBase* device = nullptr)
      : node_(node),
        device_type_(device_type),
        device_(device != nullptr ? device : DeviceBase::HostDefault()) {}
  const Node& node() const { return *node_; }
  const std::string& device_type() const { return device_type_; }
  // The device the kernel will run on (never null: a host memory default
  // for kernels built outside a device).
  DeviceBase* device() const { return device_; }
  template <typename T>
  Status GetAttr(const std::string& name, T* value) const {
    return ::tensorweave::GetAttr(node_->attrs(), name, value);
  }
  // Records a failure; the kernel is then discarded.
  void SetStatus(const Status& status) {
    if (status_.ok()) status_ = status;
  }
  const Status& status() const { return status_; }

 private:
  const Node* node_;
  std::string device_type_;
  DeviceBase* device_;
  Status status_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx) : node_(&ctx->node()) {}
  virtual ~OpKernel() = default;
  virtual void Compute(OpKernelContext* ctx) = 0;
  // Expensive kernels are worth running on another thread than their
  // producer's; cheap ones run inline.
  virtual bool IsExpensive() const { return false; }

  const Node& node() const { return *node_; }
  const std::string& name() const { return node_->name(); }
  const std::string& type_string() const { return node_->type_string(); }

  // Non-null for kernels that finish later than Compute returns.
  virtual class AsyncOpKernel* AsAsync() { return nullptr; }

  // Whether the device work of one step may be recorded and replayed for
  // later steps (CapturedStep): false for a kernel whose work changes from
  // step to step in a way its inputs do not show (a random op that passes
  // a host-side counter to its device kernel). Kernels that run on the
  // host read only inputs the replay checks, so they may stay true.
  virtual bool CanBeCaptured() const { return true; }

  // Where each input and output lives on a device with memory of its own
  // (KernelDef::HostMemory*); kDevice for arguments not declared.
  MemoryType input_memory_type(int i) const {
    return i < static_cast<int>(input_memory_.size()) ? input_memory_[i]
                                                      : MemoryType::kDevice;
  }
  MemoryType output_memory_type(int i) const {
    return i < static_cast<int>(output_memory_.size()) ? output_memory_[i]
                                                       : MemoryType::kDevice;
  }

 private:
  friend class KernelRegistry;
  const Node* node_;
  std::vector<MemoryType> input_memory_;
  std::vector<MemoryType> output_memory_;
};

// A kernel that waits for something (a value from another device) without
// holding a thread: ComputeAsync returns at once and calls `done` when the
// outputs are set (or the status is), from any thread.
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  void Compute(OpKernelContext* ctx) final;  // ComputeAsync, then waits
  AsyncOpKernel* AsAsync() final { return this; }
};

// What the executor hands a kernel for one step. An input is a value, or a
// variable for inputs declared Ref(T).
struct TensorValue {
  Tensor tensor;
  Var* ref = nullptr;
  bool has_value() const { return tensor.valid() || ref != nullptr; }
};

class OpKernelContext {
 public:
  struct Params {
    const OpKernel* kernel = nullptr;
    TensorValue* inputs = nullptr;  // one per input of the node
    ResourceMgr* resource_mgr = nullptr;
    ThreadPool* intra_op_pool = nullptr;
    Rendezvous* rendezvous = nullptr;  // the step's, for _Send and _Recv
    // The step's: a kernel that blocks registers how to stop waiting.
    CancellationManager* cancellation_manager = nullptr;
    int64_t step_id = 0;
    // The device the kernel runs on (nullptr: DeviceBase::HostDefault()).
    DeviceBase* device = nullptr;
  };
  explicit OpKernelContext(const Params& params);
  OpKernelContext(const OpKernelContext&) = delete;
  OpKernelContext& operator=(const OpKernelContext&) = delete;

  int num_inputs() const { return params_.kernel->node().num_inputs(); }
  const Tensor& input(int i) const { return params_.inputs[i].tensor; }
  Var* input_ref(int i) const { return params_.inputs[i].ref; }
  int num_outputs() const { return num_outputs_; }

  // Allocates output i (uninitialized contents), in the device's memory
  // unless the kernel declares the output HostMemory. A negative dimension
  // is InvalidArgument; a size that overflows, exceeds MaxTensorBytes() or
  // cannot be allocated is ResourceExhausted naming the shape and dtype (the
  // executor adds the node).
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // A scratch tensor in the device's memory, for this kernel's work only.
  Status allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out) {
    return device()->AllocateTensor(dtype, shape, out);
  }
  // Reuses the buffer of input `input` for output `output` when this step
  // holds the only reference to it and dtype and size agree; else
  // allocates. Lets element-wise kernels work in place.
  Status forward_input_or_allocate_output(int input, int output,
                                          const TensorShape& shape,
                                          Tensor** out);
  void set_output(int i, Tensor tensor) {
    outputs_[i].tensor = std::move(tensor);
  }
  void set_output_ref(int i, Var* var) { outputs_[i].ref = var; }

  void SetStatus(const Status& status) {
    if (status_.ok() && !status.ok()) status_ = status;
  }
  const Status& status() const { return status_; }

  ResourceMgr* resource_mgr() const { return params_.resource_mgr; }
  ThreadPool* intra_op_pool() const { return params_.intra_op_pool; }
  Rendezvous* rendezvous() const { return params_.rendezvous; }
  CancellationManager* cancellation_manager() const {
    return params_.cancellation_manager;
  }
  int64_t step_id() const { return params_.step_id; }
  const OpKernel& kernel() const { return *params_.kernel; }
  DeviceBase* device() const {
    return params_.device != nullptr ? params_.device
                                     : DeviceBase::HostDefault();
  }

  // num_outputs() values, one per output of the node.
  TensorValue* mutable_outputs() { return outputs_; }
  const TensorValue* outputs() const { return outputs_; }

 private:
  const Params& params_;
  // Most nodes have one or two outputs: those live in the context, so that
  // running a kernel allocates nothing for them.
  static constexpr int kInlineOutputs = 2;
  int num_outputs_;
  TensorValue inline_outputs_[kInlineOutputs];
  std::unique_ptr<TensorValue[]> heap_outputs_;
  TensorValue* outputs_;
  Status status_;
};

// Returns from a kernel's Compute (or constructor) when `status` fails.
#define OP_REQUIRES_OK(ctx, ...)              \
  do {                                        \
    ::tensorweave::Status _s = (__VA_ARGS__); \
    if (!_s.ok()) {                           \
      (ctx)->SetStatus(_s);                   \
      return;                                 \
    }                                         \
  } while (0)

#define OP_REQUIRES(ctx, condition, status) \
  do {                                      \
    if (!(condition)) {                     \
      (ctx)->SetStatus(status);             \
      return;                               \
    }                                       \
  } while (0)

// Registration: REGISTER_KERNEL(KernelDef("Add").TypeConstraint("T",
// {DT_FLOAT, DT_DOUBLE}), AddOp);
struct KernelDef {
  explicit KernelDef(std::string op_name) : op(std::move(op_name)) {}
  KernelDef& Device(std::string type) {
    device = std::move(type);
    return *this;
  }
  KernelDef& TypeConstraint(std::string attr, std::vector<DataType> allowed) {
    constraints[std::move(attr)] = std::move(allowed);
    return *this;
  }
  // On a device with memory of its own: input (output) `i` is read
  // (written) in host memory. A negative index counts from the end (-1: the
  // last), for ops with a list argument before it.
  KernelDef& HostMemoryInput(int i) {
    host_inputs.push_back(i);
    return *this;
  }
  KernelDef& HostMemoryOutput(int i) {
    host_outputs.push_back(i);
    return *this;
  }
  // Every argument in host memory: a CPU kernel registered for another
  // device, for small int32 shape arithmetic that should not cross to the
  // host and back (Shape, BroadcastGradientArgs, ...).
  KernelDef& AllHostMemory() {
    all_host_memory = true;
    return *this;
  }
  std::string op;
  std::string device = DEVICE_CPU;
  std::map<std::string, std::vector<DataType>> constraints;
  std::vector<int> host_inputs;
  std::vector<int> host_outputs;
  bool all_host_memory = false;
};

using KernelFactory =
    std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

class KernelRegistry {
 public:
  static KernelRegistry* Global();
  void Register(KernelDef def, KernelFactory factory);
  // Builds the kernel for `node` on `device_type` (for `device`, when
  // given); NotFound names the dtypes asked for and what is registered.
  Status CreateKernel(const Node& node, const std::string& device_type,
                      std::unique_ptr<OpKernel>* kernel,
                      DeviceBase* device = nullptr) const;
  // The memory type of each input and output of the kernel `node` would
  // get on `device_type` (partitioning decides by them where values are
  // copied). NotFound as CreateKernel.
  Status MemoryTypes(const Node& node, const std::string& device_type,
                     std::vector<MemoryType>* inputs,
                     std::vector<MemoryType>* outputs) const;
  bool HasKernel(const std::string& op, const std::string& device_type) const;
  // A kernel of `device_type` for this node's op and dtypes (the placer).
  bool SupportsNode(const Node& node, const std::string& device_type) const;
  std::vector<std::string> RegisteredOps() const;

 private:
  // The registration matching `node`'s dtypes (nullptr: none; `registered`
  // then lists what there is).
  const std::pair<KernelDef, KernelFactory>* Find(
      const Node& node, const std::string& device_type,
      std::string* registered) const;
  std::multimap<std::string, std::pair<KernelDef, KernelFactory>> kernels_;
};

struct KernelRegistrar {
  KernelRegistrar(KernelDef def, KernelFactory factory) {
    KernelRegistry::Global()->Register(std::move(def), std::move(factory));
  }
};

#define REGISTER_KERNEL(def, ...) \
  REGISTER_KERNEL_UNIQ_HELPER(__COUNTER__, def, __VA_ARGS__)
#define REGISTER_KERNEL_UNIQ_HELPER(ctr, def, ...) \
  REGISTER_KERNEL_UNIQ(ctr, def, __VA_ARGS__)
#define REGISTER_KERNEL_UNIQ(ctr, def, ...)                       \
  static ::tensorweave::KernelRegistrar tw_kernel_registrar_##ctr \
      __attribute__((unused)) (                                   \
          def,                                                    \
          [](::tensorweave::OpKernelConstruction* ctx)            \
              -> std::unique_ptr<::tensorweave::OpKernel> {       \
            return std::make_unique<__VA_ARGS__>(ctx);            \
          })

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_OP_KERNEL_H_
