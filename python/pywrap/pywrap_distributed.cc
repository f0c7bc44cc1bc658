// The Python bindings of the distributed runtime's C++ core
// (distributed/worker_env.h, distributed/cluster_partition.h), used by the
// grpcio services in distributed/*.py. Registered into _pywrap_tensorweave
// by RegisterDistributedBindings.
//
//   WorkerEnv(job, task, device_count={}, inter_op_threads=0,
//             intra_op_threads=0, stale_step_timeout_ms=300000)
//     .task_name -> "/job:<job>/replica:0/task:<task>"
//     .device_attributes() -> [(name, device_type, memory_limit,
//                               incarnation, physical_device_desc)]
//     .register_graph(graph_def_bytes) -> handle (int)
//     .run_graph(handle, step_id, feeds: {name: ndarray}, fetches: [name],
//                timeout_ms=0, cleanup=True, wait_for_sends=True) -> [ndarray]
//         Releases the GIL. Numeric results are arrays that view the
//         tensor's memory (no copy; read-only where the memory is shared,
//         e.g. with a variable); 0-d results stay 0-d arrays; string
//         results are object arrays of bytes. cleanup=True ends the step's
//         rendezvous when the call returns (one RunGraph per task per step).
//         wait_for_sends=False returns once the executors are done, without
//         waiting for the pushes of the values sent to other tasks to be
//         acknowledged (RunGraphOptions::wait_for_sends).
//     .run_graph_traced(...same arguments...) -> ([ndarray], step_stats)
//         As run_graph, traced: step_stats is a serialized StepStats with
//         one DeviceStepStats per device of this task.
//     .run_graph_reply(handle, step_id, feeds, fetches, timeout_ms=0,
//                      reply_task="", wait_for_sends=True) -> bytes
//         As run_graph (cleanup=True), its reply in binary form
//         (distributed/reply_wire.h): the outputs, and with a reply_task
//         the values the step sent that task (not pushed: the caller, that
//         task, delivers them). For a graph that cannot wait on the
//         caller's task.
//     .deliver_reply(step_id, reply) -> [ndarray]
//         Reads such a reply (any buffer): delivers its values into this
//         task's rendezvous, returns its outputs (as run_graph's).
//         InvalidArgumentError for malformed bytes.
//     .set_transport(fn | None)
//         fn(dst_task, step_id, key, value, is_dead, done) is called from
//         executor threads (with the GIL) for every value sent to another
//         task: value is an ndarray viewing the tensor (read-only where its
//         memory is shared; an object array of bytes for a string tensor).
//         It must return quickly and call done(code, message="") exactly
//         once (code 0: delivered), from any thread. An exception raised by
//         fn fails the send with it, and so does a done that Python drops
//         uncalled (the step ends instead of waiting for it).
//     .deliver(step_id, key, value, dtype, shape, is_dead=False) -> bool
//         value: any C-contiguous buffer (bytes, bytearray, memoryview,
//         ndarray) holding the tensor's bytes, or a list or object array of
//         bytes for a string tensor; copied once into the tensor (without
//         the GIL). False: the step has ended here and the value was
//         dropped. InvalidArgumentError when the bytes do not match dtype
//         and shape or the key is malformed or not for this task.
//     .abort_step(step_id, code=10, message="") / .cleanup_step(step_id)
//     .deregister_graph(handle), .reset(containers=[])
//     .num_steps(), .num_tombstones(), .collect_garbage()  (tests)
//   partition_for_cluster(graph_def_bytes, devices: [(name, type,
//       incarnation)], feeds, fetches, targets, default_device="",
//       allow_soft_placement=False)
//     -> {task: (graph_def_bytes, feeds, fetches, targets)}, tasks in order of
//     first appearance; feeds and fetches by the names the step gave them
//     (RunGraph of that task's registered graph takes them so); a fed fetch
//     is in no task's fetches.
// Errors are raised as the tensorweave.errors classes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "distributed/cluster_partition.h"
#include "distributed/reply_wire.h"
#include "distributed/worker_env.h"
#include "python/pywrap/pywrap_status.h"

namespace py = pybind11;

namespace tensorweave {
namespace {

// An ndarray viewing `tensor`'s memory (it keeps the buffer alive); read-only
// unless the tensor is its buffer's only user.
py::array NumericView(const Tensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().dims().begin(),
                                 tensor.shape().dims().end());
  py::dtype dtype(DataTypeName(tensor.dtype()));
  const bool writable = tensor.BufferUniquelyOwned();
  auto* keep = new std::shared_ptr<TensorBuffer>(tensor.buffer());
  py::capsule owner(keep, [](void* p) {
    delete static_cast<std::shared_ptr<TensorBuffer>*>(p);
  });
  py::array out(dtype, shape, tensor.raw_data(), owner);
  if (!writable) {
    py::detail::array_proxy(out.ptr())->flags &=
        ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  }
  return out;
}

py::array StringArray(const Tensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().dims().begin(),
                                 tensor.shape().dims().end());
  py::array out(py::dtype("O"), shape);
  auto** items = static_cast<PyObject**>(out.mutable_data());
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    const std::string& s = tensor.data<std::string>()[i];
    PyObject* old = items[i];
    items[i] = PyBytes_FromStringAndSize(s.data(), s.size());
    Py_XDECREF(old);
  }
  return out;
}

py::object TensorToPy(const Tensor& tensor) {
  if (tensor.dtype() == DT_STRING) return StringArray(tensor);
  return NumericView(tensor);
}

std::vector<int64_t> ShapeFromPy(const py::handle& shape) {
  std::vector<int64_t> dims;
  for (const auto& d : shape) dims.push_back(d.cast<int64_t>());
  return dims;
}

// A Tensor from a Python feed value (an ndarray, or anything numpy makes
// one of): one copy.
Tensor FeedToTensor(const std::string& name, const py::handle& value) {
  // (ascontiguousarray would make a 0-d array 1-d.)
  py::array array = py::module_::import("numpy").attr("asarray")(
      value, py::arg("order") = "C");
  const char kind = array.dtype().kind();
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  Tensor tensor;
  if (kind == 'O' || kind == 'S' || kind == 'U') {
    std::vector<std::string> elements;
    py::list flat = array.attr("ravel")().attr("tolist")();
    for (const auto& item : flat) {
      if (py::isinstance<py::bytes>(item)) {
        elements.push_back(std::string(item.cast<py::bytes>()));
      } else if (py::isinstance<py::str>(item)) {
        elements.push_back(item.cast<std::string>());
      } else {
        ThrowIfError(errors::InvalidArgument(
            "the feed '", name, "' holds a ",
            std::string(py::str(py::type::handle_of(item).attr("__name__"))),
            " where bytes or str were expected"));
      }
    }
    ThrowIfError(TensorFromStrings(shape, std::move(elements), &tensor));
    return tensor;
  }
  DataType dtype;
  const std::string dtype_name = py::str(array.dtype().attr("name"));
  if (!DataTypeFromName(dtype_name, &dtype)) {
    ThrowIfError(errors::InvalidArgument("the feed '", name, "' has dtype ",
                                         dtype_name,
                                         ", which tensorweave has not"));
  }
  ThrowIfError(TensorFromBytes(dtype, shape, array.data(),
                               static_cast<size_t>(array.nbytes()), &tensor));
  return tensor;
}

// Destroys a Python object with the GIL, from whatever thread drops it.
std::shared_ptr<py::object> KeepPy(py::object object) {
  return std::shared_ptr<py::object>(new py::object(std::move(object)),
                                     [](py::object* o) {
                                       py::gil_scoped_acquire gil;
                                       delete o;
                                     });
}

// The `done` of one send as Python holds it: called at most once; one that
// Python drops without calling fails the send (on a thread of its own, not
// under the GIL), so the step ends instead of waiting for it forever.
class DoneOnce {
 public:
  DoneOnce(TransportDone done, std::string key, std::string dst_task)
      : done_(std::move(done)),
        key_(std::move(key)),
        dst_task_(std::move(dst_task)) {}
  ~DoneOnce() {
    if (called_.exchange(true)) return;
    Status status =
        errors::Internal("the transport of ", key_, " to ", dst_task_,
                         " dropped its done callback uncalled");
    std::thread([done = std::move(done_), status] { done(status); }).detach();
  }
  void Call(const Status& status) {
    if (called_.exchange(true)) return;
    done_(status);
  }

 private:
  TransportDone done_;
  const std::string key_, dst_task_;
  std::atomic<bool> called_{false};
};

class PyWorkerEnv {
 public:
  PyWorkerEnv(const std::string& job, int task,
              const std::map<std::string, int>& device_count,
              int inter_op_threads, int intra_op_threads,
              int64_t stale_step_timeout_ms) {
    WorkerEnvOptions options;
    options.job = job;
    options.task = task;
    options.device_count = device_count;
    options.inter_op_threads = inter_op_threads;
    options.intra_op_threads = intra_op_threads;
    options.rendezvous.stale_step_timeout_ms = stale_step_timeout_ms;
    ThrowIfError(WorkerEnv::Create(options, &env_));
  }
  ~PyWorkerEnv() {
    // Executor threads may be waiting for the GIL (a transport call).
    py::gil_scoped_release release;
    env_.reset();
  }

  std::string TaskName() const { return env_->task_name(); }

  py::list DeviceAttributes() const {
    py::list out;
    for (const Device* d : env_->devices().devices()) {
      const auto& a = d->attributes();
      out.append(py::make_tuple(a.name, a.device_type, a.memory_limit,
                                a.incarnation, a.physical_device_desc));
    }
    return out;
  }

  int64_t RegisterGraph(const py::bytes& serialized) {
    GraphDef def;
    const std::string data = serialized;
    if (!def.ParseFromString(data)) {
      ThrowIfError(errors::InvalidArgument(
          "register_graph: the bytes are not a serialized GraphDef"));
    }
    int64_t handle = 0;
    Status status;
    {
      py::gil_scoped_release release;
      status = env_->RegisterGraph(def, RegisterGraphOptions(), &handle);
    }
    ThrowIfError(status);
    return handle;
  }

  py::list RunGraph(int64_t handle, int64_t step_id, const py::dict& feeds,
                    const std::vector<std::string>& fetches, int64_t timeout_ms,
                    bool cleanup, bool wait_for_sends) {
    return Run(handle, step_id, feeds, fetches, timeout_ms, cleanup,
               wait_for_sends, nullptr);
  }

  // RunGraph traced: (outputs, serialized StepStats of this task's devices).
  py::tuple RunGraphTraced(int64_t handle, int64_t step_id,
                           const py::dict& feeds,
                           const std::vector<std::string>& fetches,
                           int64_t timeout_ms, bool cleanup,
                           bool wait_for_sends) {
    StepStats stats;
    py::list outputs = Run(handle, step_id, feeds, fetches, timeout_ms, cleanup,
                           wait_for_sends, &stats);
    return py::make_tuple(outputs, py::bytes(stats.SerializeAsString()));
  }

  // RunGraph whose reply is binary (distributed/reply_wire.h): its outputs
  // and, with a `reply_task`, the values the step sent that task, which are
  // not pushed.
  py::bytes RunGraphReply(int64_t handle, int64_t step_id,
                          const py::dict& feeds,
                          const std::vector<std::string>& fetches,
                          int64_t timeout_ms, const std::string& reply_task,
                          bool wait_for_sends) {
    std::vector<SentValue> sent;
    RunGraphOptions options;
    options.timeout_ms = timeout_ms;
    options.wait_for_sends = wait_for_sends;
    if (!reply_task.empty()) {
      options.reply_task = reply_task;
      options.reply_sends = &sent;
    }
    std::vector<Tensor> outputs;
    RunTensors(handle, step_id, feeds, fetches, options, &outputs);
    const size_t size = RunGraphReplySize(outputs, sent);
    PyObject* bytes =
        PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
    if (bytes == nullptr) throw py::error_already_set();
    char* out = PyBytes_AS_STRING(bytes);
    if (size < (64 << 10)) {  // (a small copy: no GIL hand-off)
      WriteRunGraphReply(outputs, sent, out);
    } else {
      py::gil_scoped_release release;
      WriteRunGraphReply(outputs, sent, out);
    }
    return py::reinterpret_steal<py::bytes>(bytes);
  }

  // Reads a binary RunGraph reply of step `step_id` (any buffer): delivers
  // the values it carries into this task's rendezvous and returns its
  // outputs. InvalidArgumentError when the bytes are malformed or a value's
  // key is not for this task (the others are delivered).
  py::list DeliverReply(int64_t step_id, const py::object& reply) {
    Py_buffer view;
    if (PyObject_GetBuffer(reply.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      ThrowIfError(errors::InvalidArgument(
          "deliver_reply: the reply is not a contiguous buffer"));
    }
    std::vector<Tensor> outputs;
    std::vector<SentValue> sent;
    Status status;
    {
      py::gil_scoped_release release;
      status =
          ReadRunGraphReply(static_cast<const char*>(view.buf),
                            static_cast<size_t>(view.len), &outputs, &sent);
      if (!status.ok()) sent.clear();
      for (const SentValue& v : sent) {
        bool accepted;
        Status s = env_->rendezvous_mgr()->Deliver(step_id, v.key, v.value,
                                                   v.is_dead, &accepted);
        if (!s.ok() && status.ok()) {
          status = Status(s.code(), "RunGraph reply: deliver of " + v.key +
                                        ": " + s.message());
        }
      }
      sent.clear();
    }
    PyBuffer_Release(&view);
    ThrowIfError(status);
    py::list result;
    for (const Tensor& t : outputs) result.append(TensorToPy(t));
    return result;
  }

  void RunTensors(int64_t handle, int64_t step_id, const py::dict& feeds,
                  const std::vector<std::string>& fetches,
                  const RunGraphOptions& options,
                  std::vector<Tensor>* outputs) {
    std::vector<std::pair<std::string, Tensor>> inputs;
    for (const auto& [key, value] : feeds) {
      const std::string name = key.cast<std::string>();
      inputs.emplace_back(name, FeedToTensor(name, value));
    }
    Status status;
    {
      py::gil_scoped_release release;
      status =
          env_->RunGraph(handle, step_id, inputs, fetches, options, outputs);
      inputs.clear();
    }
    ThrowIfError(status);
  }

  py::list Run(int64_t handle, int64_t step_id, const py::dict& feeds,
               const std::vector<std::string>& fetches, int64_t timeout_ms,
               bool cleanup, bool wait_for_sends, StepStats* step_stats) {
    RunGraphOptions options;
    options.timeout_ms = timeout_ms;
    options.cleanup = cleanup;
    options.wait_for_sends = wait_for_sends;
    options.step_stats = step_stats;
    std::vector<Tensor> outputs;
    RunTensors(handle, step_id, feeds, fetches, options, &outputs);
    py::list result;
    for (const Tensor& t : outputs) result.append(TensorToPy(t));
    return result;
  }

  void SetTransport(py::object fn) {
    if (fn.is_none()) {
      py::gil_scoped_release release;
      env_->rendezvous_mgr()->SetTransport(nullptr);
      return;
    }
    std::shared_ptr<py::object> keep = KeepPy(std::move(fn));
    Transport transport = [keep](const std::string& dst_task, int64_t step_id,
                                 const std::string& key, const Tensor& value,
                                 bool is_dead, TransportDone done) {
      auto once = std::make_shared<DoneOnce>(std::move(done), key, dst_task);
      Status error;
      {
        py::gil_scoped_acquire gil;
        try {
          py::object py_value = TensorToPy(value);
          py::cpp_function py_done(
              [once](int code, const std::string& message) {
                Status status = code == 0
                                    ? Status::OK()
                                    : Status(static_cast<Code>(code), message);
                py::gil_scoped_release release;
                once->Call(status);
              },
              py::arg("code"), py::arg("message") = "");
          (*keep)(dst_task, step_id, key, py_value, is_dead, py_done);
        } catch (py::error_already_set& e) {
          error = errors::Internal("the transport of ", key, " to ", dst_task,
                                   " raised ", e.what());
        } catch (const std::exception& e) {
          error = errors::Internal("the transport of ", key, " to ", dst_task,
                                   " failed: ", e.what());
        }
      }
      if (!error.ok()) once->Call(error);
    };
    py::gil_scoped_release release;
    env_->rendezvous_mgr()->SetTransport(std::move(transport));
  }

  bool Deliver(int64_t step_id, const std::string& key, const py::object& value,
               int dtype_enum, const py::object& shape_obj, bool is_dead) {
    if (!IsValidDataType(dtype_enum) || dtype_enum == DT_INVALID) {
      ThrowIfError(errors::InvalidArgument("deliver of ", key,
                                           ": unknown dtype ", dtype_enum));
    }
    const DataType dtype = static_cast<DataType>(dtype_enum);
    const std::vector<int64_t> shape = ShapeFromPy(shape_obj);
    Tensor tensor;
    Status status;
    bool accepted = false;
    if (dtype == DT_STRING) {
      py::object items = value;
      if (py::isinstance<py::array>(value)) {
        items = value.attr("ravel")().attr("tolist")();
      } else if (!py::isinstance<py::list>(value) &&
                 !py::isinstance<py::tuple>(value)) {
        ThrowIfError(errors::InvalidArgument(
            "deliver of ", key,
            ": a string tensor comes as a list or object array of bytes"));
      }
      std::vector<std::string> elements;
      for (const auto& item : items) {
        if (!py::isinstance<py::bytes>(item)) {
          ThrowIfError(errors::InvalidArgument(
              "deliver of ", key, ": a string tensor's elements are bytes"));
        }
        elements.push_back(std::string(item.cast<py::bytes>()));
      }
      status = TensorFromStrings(shape, std::move(elements), &tensor);
      if (status.ok()) {
        py::gil_scoped_release release;
        status = env_->rendezvous_mgr()->Deliver(step_id, key, tensor, is_dead,
                                                 &accepted);
      }
    } else {
      Py_buffer view;
      if (PyObject_GetBuffer(value.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        ThrowIfError(errors::InvalidArgument(
            "deliver of ", key,
            ": the value is not a C-contiguous buffer (bytes, bytearray, "
            "memoryview or ndarray)"));
      }
      {
        py::gil_scoped_release release;
        status = TensorFromBytes(dtype, shape, view.buf,
                                 static_cast<size_t>(view.len), &tensor);
        if (status.ok()) {
          status = env_->rendezvous_mgr()->Deliver(step_id, key, tensor,
                                                   is_dead, &accepted);
        }
      }
      PyBuffer_Release(&view);
    }
    if (!status.ok()) {
      ThrowIfError(
          Status(status.code(), "deliver of " + key + ": " + status.message()));
    }
    return accepted;
  }

  void AbortStep(int64_t step_id, int code, const std::string& message) {
    if (code == 0) code = static_cast<int>(Code::kAborted);
    py::gil_scoped_release release;
    env_->rendezvous_mgr()->Abort(
        step_id,
        Status(static_cast<Code>(code),
               message.empty() ? "step " + std::to_string(step_id) + " aborted"
                               : message));
  }

  void CleanupStep(int64_t step_id) {
    py::gil_scoped_release release;
    env_->rendezvous_mgr()->Cleanup(step_id);
  }

  void DeregisterGraph(int64_t handle) {
    ThrowIfError(env_->DeregisterGraph(handle));
  }

  void Reset(const std::vector<std::string>& containers) {
    Status status;
    {
      py::gil_scoped_release release;
      status = env_->Reset(containers);
    }
    ThrowIfError(status);
  }

  size_t NumSteps() const { return env_->rendezvous_mgr()->NumSteps(); }
  size_t NumTombstones() const {
    return env_->rendezvous_mgr()->NumTombstones();
  }
  void CollectGarbage() {
    py::gil_scoped_release release;
    env_->rendezvous_mgr()->CollectGarbage();
  }

 private:
  std::unique_ptr<WorkerEnv> env_;
};

py::dict PyPartitionForCluster(const py::bytes& serialized,
                               const py::list& devices,
                               const std::vector<std::string>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets,
                               const std::string& default_device,
                               bool allow_soft_placement) {
  GraphDef def;
  const std::string data = serialized;
  if (!def.ParseFromString(data)) {
    ThrowIfError(errors::InvalidArgument(
        "partition_for_cluster: the bytes are not a serialized GraphDef"));
  }
  std::vector<ClusterDevice> cluster;
  for (const auto& item : devices) {
    py::tuple t = item.cast<py::tuple>();
    if (t.size() < 3) {
      ThrowIfError(errors::InvalidArgument(
          "partition_for_cluster: a device is (name, type, incarnation)"));
    }
    ClusterDevice d;
    d.name = t[0].cast<std::string>();
    d.device_type = t[1].cast<std::string>();
    d.incarnation = t[2].cast<uint64_t>();
    cluster.push_back(std::move(d));
  }
  ClusterPlacementOptions options;
  options.default_device = default_device;
  options.placement.allow_soft_placement = allow_soft_placement;
  std::vector<TaskGraph> tasks;
  Status status;
  {
    py::gil_scoped_release release;
    status = PartitionForCluster(def, cluster, feeds, fetches, targets, options,
                                 &tasks);
  }
  ThrowIfError(status);
  py::dict out;
  for (const TaskGraph& t : tasks) {
    out[py::str(t.task)] = py::make_tuple(
        py::bytes(t.graph_def.SerializeAsString()), py::cast(t.feeds),
        py::cast(t.fetches), py::cast(t.targets));
  }
  return out;
}

}  // namespace

void RegisterDistributedBindings(py::module_& m) {
  py::class_<PyWorkerEnv>(m, "WorkerEnv")
      .def(py::init<const std::string&, int, const std::map<std::string, int>&,
                    int, int, int64_t>(),
           py::arg("job"), py::arg("task"),
           py::arg("device_count") = std::map<std::string, int>(),
           py::arg("inter_op_threads") = 0, py::arg("intra_op_threads") = 0,
           py::arg("stale_step_timeout_ms") = 300000)
      .def_property_readonly("task_name", &PyWorkerEnv::TaskName)
      .def("device_attributes", &PyWorkerEnv::DeviceAttributes)
      .def("register_graph", &PyWorkerEnv::RegisterGraph)
      .def("run_graph", &PyWorkerEnv::RunGraph, py::arg("handle"),
           py::arg("step_id"), py::arg("feeds"), py::arg("fetches"),
           py::arg("timeout_ms") = 0, py::arg("cleanup") = true,
           py::arg("wait_for_sends") = true)
      .def("run_graph_traced", &PyWorkerEnv::RunGraphTraced, py::arg("handle"),
           py::arg("step_id"), py::arg("feeds"), py::arg("fetches"),
           py::arg("timeout_ms") = 0, py::arg("cleanup") = true,
           py::arg("wait_for_sends") = true)
      .def("run_graph_reply", &PyWorkerEnv::RunGraphReply, py::arg("handle"),
           py::arg("step_id"), py::arg("feeds"), py::arg("fetches"),
           py::arg("timeout_ms") = 0, py::arg("reply_task") = "",
           py::arg("wait_for_sends") = true)
      .def("deliver_reply", &PyWorkerEnv::DeliverReply, py::arg("step_id"),
           py::arg("reply"))
      .def("set_transport", &PyWorkerEnv::SetTransport)
      .def("deliver", &PyWorkerEnv::Deliver, py::arg("step_id"), py::arg("key"),
           py::arg("value"), py::arg("dtype"), py::arg("shape"),
           py::arg("is_dead") = false)
      .def("abort_step", &PyWorkerEnv::AbortStep, py::arg("step_id"),
           py::arg("code") = static_cast<int>(Code::kAborted),
           py::arg("message") = "")
      .def("cleanup_step", &PyWorkerEnv::CleanupStep)
      .def("deregister_graph", &PyWorkerEnv::DeregisterGraph)
      .def("reset", &PyWorkerEnv::Reset,
           py::arg("containers") = std::vector<std::string>())
      .def("num_steps", &PyWorkerEnv::NumSteps)
      .def("num_tombstones", &PyWorkerEnv::NumTombstones)
      .def("collect_garbage", &PyWorkerEnv::CollectGarbage);
  m.def("partition_for_cluster", &PyPartitionForCluster, py::arg("graph_def"),
        py::arg("devices"), py::arg("feeds"), py::arg("fetches"),
        py::arg("targets"), py::arg("default_device") = "",
        py::arg("allow_soft_placement") = false);
}

}  // namespace tensorweave
