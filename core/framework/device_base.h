// What a kernel sees of the device it runs on: where its tensors live and
// how values move between host memory and the device's own memory.
//
// The CPU computes in host memory, and so does every device whose
// host_memory() is true: its kernels read and write tensors as the CPU's do.
// An accelerator (the CUDA GPU, core/gpu/) has memory of its own. Its kernels
// get their inputs and allocate their outputs there, except for the arguments
// their KernelDef declares HostMemory (shapes, axes, sizes: small int32 values
// a kernel reads on the host); partitioning (core/runtime/graph_partition.h)
// moves every value that crosses between host and device memory with a
// _Send/_Recv pair, whose kernels on the device copy it.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_DEVICE_BASE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_DEVICE_BASE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tensorweave {

enum class MemoryType { kDevice = 0, kHost = 1 };

// One step's work on a device, recorded (a CUDA graph) to be replayed by
// later steps of the same signature and shapes instead of running its
// kernels again. What crossed between host and device during the recording
// is known by rendezvous key, so that the session can check that a later
// step would do the same work and hand it its new values.
class CapturedStep {
 public:
  struct Transfer {
    std::string key;
    // An input the device's kernels read on the host (a shape, an axis):
    // its value at capture is part of the recording.
    bool host_memory = false;
    DataType dtype = DT_INVALID;
    TensorShape shape;
    Tensor value;  // host_memory inputs: the value at capture
  };
  virtual ~CapturedStep() = default;
  // Values received from the host, and sent to it, in the captured step.
  virtual const std::vector<Transfer>& inputs() const = 0;
  virtual const std::vector<Transfer>& outputs() const = 0;
  // Runs the recording with new `inputs` (host tensors in inputs() order,
  // each of the recorded dtype and shape; host_memory ones are not read)
  // and returns the outputs in outputs() order, ready on the host.
  virtual Status Replay(const std::vector<Tensor>& inputs,
                        std::vector<Tensor>* outputs) = 0;
};

class DeviceBase {
 public:
  virtual ~DeviceBase() = default;

  // True when the device computes in host memory (the CPU).
  virtual bool host_memory() const { return true; }

  // An uninitialized tensor in the device's memory. Host memory devices:
  // Tensor::Allocate. Errors name the shape and dtype (ResourceExhausted
  // when the device is out of memory).
  virtual Status AllocateTensor(DataType dtype, const TensorShape& shape,
                                Tensor* out) {
    return Tensor::Allocate(dtype, shape, out);
  }

  // Copies of a value between host memory and the device's (allocated by
  // the callee; `*out` may share `in`'s buffer on host memory devices).
  // When they return, `*out` may be used by the device's later work (its
  // stream orders them); CopyToHost's result is ready to read on the host.
  virtual Status CopyFromHost(const Tensor& host, Tensor* out) {
    *out = host;
    return Status::OK();
  }
  virtual Status CopyToHost(const Tensor& device, Tensor* out) {
    *out = device;
    return Status::OK();
  }

  // Waits until the work queued so far on the device has finished; the
  // error of an asynchronous failure (a kernel fault) surfaces here.
  virtual Status Sync() { return Status::OK(); }

  // What the device's _Recv and _Send kernels do with a value crossing
  // from (to) the host under rendezvous `key`: copy it unless the kernels
  // read it in host memory, and while a step is captured, record it.
  virtual Status TransferIn(const std::string& key, bool host_memory,
                            const Tensor& host, Tensor* out) {
    if (host_memory || this->host_memory()) {
      *out = host;
      return Status::OK();
    }
    return CopyFromHost(host, out);
  }
  virtual Status TransferOut(const std::string& key, bool host_memory,
                             const Tensor& value, Tensor* host_out) {
    if (host_memory || this->host_memory()) {
      *host_out = value;
      return Status::OK();
    }
    return CopyToHost(value, host_out);
  }

  // Step capture. Between BeginCapture and EndCapture the device records
  // its kernels' work instead of running it (the values its transfers send
  // to the host are filled in by EndCapture, which runs the recording once:
  // the capturing step gets real values). Only one step may run on the
  // device meanwhile. EndCapture with a failed `step_status` abandons the
  // recording; a device that cannot capture returns Unimplemented.
  virtual bool SupportsCapture() const { return false; }
  virtual Status BeginCapture() {
    return errors::Unimplemented("this device cannot capture steps");
  }
  virtual Status EndCapture(const Status& step_status,
                            std::unique_ptr<CapturedStep>* captured) {
    return errors::Unimplemented("this device cannot capture steps");
  }

  // The device for kernels built or run outside a device (tests, the
  // constant folder): host memory, nothing to wait for.
  static DeviceBase* HostDefault();
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_DEVICE_BASE_H_
