// The Python bindings of the core: graphs, sessions and the op registry.
// Errors come back to Python as tensorweave.errors exceptions.
#include <dlfcn.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

#include "core/framework/graph.h"
#include "core/framework/op_def.h"
#include "core/kernels/script_ops.h"
#include "core/runtime/session.h"
#include "python/pywrap/pywrap_status.h"

namespace py = pybind11;

namespace tensorweave {
namespace {

// numpy dtype numbers for each DataType (string tensors are object arrays).
py::dtype NumpyDtype(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return py::dtype::of<float>();
    case DT_DOUBLE:
      return py::dtype::of<double>();
    case DT_INT32:
      return py::dtype::of<int32_t>();
    case DT_UINT8:
      return py::dtype::of<uint8_t>();
    case DT_INT64:
      return py::dtype::of<int64_t>();
    case DT_BOOL:
      return py::dtype::of<bool>();
    case DT_INT8:
      return py::dtype::of<int8_t>();
    case DT_INT16:
      return py::dtype::of<int16_t>();
    case DT_UINT16:
      return py::dtype::of<uint16_t>();
    case DT_UINT32:
      return py::dtype::of<uint32_t>();
    case DT_UINT64:
      return py::dtype::of<uint64_t>();
    case DT_HALF:
      return py::dtype("float16");
    case DT_BFLOAT16: {  // ml_dtypes' numpy extension type, as TensorFlow
      static PyObject* bfloat16 =
          py::dtype::from_args(
              py::module_::import("ml_dtypes").attr("bfloat16"))
              .release()
              .ptr();
      return py::reinterpret_borrow<py::dtype>(bfloat16);
    }
    case DT_COMPLEX64:
      return py::dtype("complex64");
    case DT_COMPLEX128:
      return py::dtype("complex128");
    default:
      return py::dtype("O");
  }
}

// A numpy array of `tensor`: shares its buffer when this is the only
// reference to it (nothing else can change it), else a copy.
py::object TensorToNumpy(Tensor tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().dims().begin(),
                                 tensor.shape().dims().end());
  if (tensor.dtype() == DT_STRING) {
    py::array out(py::dtype("O"), shape);
    auto** items = static_cast<PyObject**>(out.mutable_data());
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      const std::string& s = tensor.data<std::string>()[i];
      PyObject* old = items[i];
      items[i] = PyBytes_FromStringAndSize(s.data(), s.size());
      Py_XDECREF(old);
    }
    return std::move(out);
  }
  py::dtype dtype = NumpyDtype(tensor.dtype());
  if (!tensor.BufferUniquelyOwned()) {
    py::array out(dtype, shape);
    if (tensor.num_bytes() > 0) {
      std::memcpy(out.mutable_data(), tensor.raw_data(), tensor.num_bytes());
    }
    return std::move(out);
  }
  auto* keep = new std::shared_ptr<TensorBuffer>(tensor.buffer());
  py::capsule owner(keep, [](void* p) {
    delete static_cast<std::shared_ptr<TensorBuffer>*>(p);
  });
  return py::array(dtype, shape, tensor.raw_data(), owner);
}

// A Tensor holding a copy of a C-contiguous numpy array of the given dtype
// (Python converts values before calling).
TensorShape ArrayShape(const py::array& array) {
  return TensorShape(
      std::vector<int64_t>(array.shape(), array.shape() + array.ndim()));
}

// What the Python layer's conversion guarantees of a numeric array: the
// tensor's dtype, C order.
void CheckNumericArray(const py::array& array, DataType dtype) {
  if (!array.dtype().is(NumpyDtype(dtype)) &&
      !array.dtype().equal(NumpyDtype(dtype))) {
    ThrowIfError(errors::InvalidArgument(
        "internal: array dtype does not match ", DataTypeName(dtype)));
  }
  if (!(array.flags() & py::array::c_style)) {
    ThrowIfError(errors::InvalidArgument("internal: array is not contiguous"));
  }
}

Tensor NumpyToTensor(const py::array& array, DataType dtype) {
  Tensor tensor(dtype, ArrayShape(array));
  if (dtype == DT_STRING) {
    py::array flat = array.attr("ravel")();
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      py::object item = flat[py::int_(i)];
      if (py::isinstance<py::str>(item)) {
        tensor.data<std::string>()[i] = item.cast<std::string>();
      } else {
        tensor.data<std::string>()[i] = std::string(item.cast<py::bytes>());
      }
    }
    return tensor;
  }
  CheckNumericArray(array, dtype);
  if (tensor.num_bytes() > 0) {
    std::memcpy(tensor.raw_data(), array.data(), tensor.num_bytes());
  }
  return tensor;
}

// Feeds borrow the caller's numpy memory instead of copying it (a cache-cold
// copy of a 400 KB batch costs ~60 us, 2% of a small MLP's training step).
// Borrowed buffers are never "uniquely owned", so no kernel writes into them
// or adopts them (variables copy them, fetches of them are copied). A buffer
// keeps its array alive by a reference, which it drops when the last tensor
// using it dies: possibly on a worker thread, without the GIL, so the drop is
// queued and done under the GIL: at the end of each run, or, when no run
// is active (a tensor outlived its run), by a pending call.
class DeferredDecrefs {
 public:
  // Runs in progress (each drains the queue when it ends).
  static void BeginRun() {
    std::lock_guard<std::mutex> lock(mu());
    ++active_runs_;
  }
  static void EndRun() {
    {
      std::lock_guard<std::mutex> lock(mu());
      --active_runs_;
    }
    Drain();
  }
  static void Push(PyObject* object) {
    bool schedule;
    {
      std::lock_guard<std::mutex> lock(mu());
      pending().push_back(object);
      schedule = !scheduled_ && active_runs_ == 0;
      if (schedule) scheduled_ = true;
    }
    if (schedule && Py_AddPendingCall(&DrainCall, nullptr) != 0) {
      std::lock_guard<std::mutex> lock(mu());
      scheduled_ = false;  // the next run drains it
    }
  }
  // With the GIL held.
  static void Drain() {
    std::vector<PyObject*> objects;
    {
      std::lock_guard<std::mutex> lock(mu());
      objects.swap(pending());
      scheduled_ = false;
    }
    for (PyObject* o : objects) Py_DECREF(o);
  }

 private:
  static int DrainCall(void*) {
    Drain();
    return 0;
  }
  static std::mutex& mu() {
    static std::mutex* m = new std::mutex();
    return *m;
  }
  static std::vector<PyObject*>& pending() {
    static auto* v = new std::vector<PyObject*>();
    return *v;
  }
  static inline bool scheduled_ = false;
  static inline int active_runs_ = 0;
};

// A feed value: the array's own memory (strings are converted).
Tensor FeedTensor(const py::array& array, DataType dtype) {
  if (dtype == DT_STRING) return NumpyToTensor(array, dtype);
  CheckNumericArray(array, dtype);
  PyObject* owner = array.ptr();
  Py_INCREF(owner);
  auto buffer = TensorBuffer::Borrow(const_cast<void*>(array.data()),
                                     static_cast<size_t>(array.nbytes()),
                                     [owner] { DeferredDecrefs::Push(owner); });
  return Tensor(dtype, ArrayShape(array), std::move(buffer));
}

void ShapeToProto(const py::handle& value, TensorShapeProto* proto) {
  if (value.is_none()) {
    proto->set_unknown_rank(true);
    return;
  }
  for (const auto& d : value) {
    proto->add_dim()->set_size(d.is_none() ? -1 : d.cast<int64_t>());
  }
}

void TensorToAttr(const py::handle& value, TensorProto* proto) {
  py::tuple pair = value.cast<py::tuple>();  // (numpy array, dtype enum)
  DataType dtype = static_cast<DataType>(pair[1].cast<int>());
  NumpyToTensor(pair[0].cast<py::array>(), dtype).ToProto(proto);
}

// Converts a Python value to the AttrValue of an attr of type `type`.
void PyToAttr(const std::string& type, const py::handle& value,
              AttrValue* attr) {
  if (type == "int") {
    attr->set_i(value.cast<int64_t>());
  } else if (type == "float") {
    attr->set_f(value.cast<float>());
  } else if (type == "bool") {
    attr->set_b(value.cast<bool>());
  } else if (type == "string") {
    attr->set_s(py::isinstance<py::bytes>(value)
                    ? std::string(value.cast<py::bytes>())
                    : value.cast<std::string>());
  } else if (type == "type") {
    attr->set_type(static_cast<DataType>(value.cast<int>()));
  } else if (type == "shape") {
    ShapeToProto(value, attr->mutable_shape());
  } else if (type == "tensor") {
    TensorToAttr(value, attr->mutable_tensor());
  } else if (type.rfind("list(", 0) == 0) {
    std::string item_type = type.substr(5, type.size() - 6);
    auto* list = attr->mutable_list();
    for (const auto& item : value) {
      if (item_type == "int") {
        list->add_i(item.cast<int64_t>());
      } else if (item_type == "float") {
        list->add_f(item.cast<float>());
      } else if (item_type == "bool") {
        list->add_b(item.cast<bool>());
      } else if (item_type == "string") {
        list->add_s(item.cast<std::string>());
      } else if (item_type == "type") {
        list->add_type(static_cast<DataType>(item.cast<int>()));
      } else if (item_type == "shape") {
        ShapeToProto(item, list->add_shape());
      } else if (item_type == "tensor") {
        TensorToAttr(item, list->add_tensor());
      }
    }
  } else {
    ThrowIfError(errors::Unimplemented("attr type ", type, " from Python"));
  }
}

// The attr type of an internal ('_'-prefixed) attr's Python value.
std::string InternalAttrType(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return "bool";
  if (py::isinstance<py::int_>(value)) return "int";
  if (py::isinstance<py::float_>(value)) return "float";
  if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value)) {
    return "string";
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    for (const auto& item : value) {
      if (!py::isinstance<py::str>(item) && !py::isinstance<py::bytes>(item)) {
        ThrowIfError(
            errors::InvalidArgument("internal attr lists hold strings, got ",
                                    std::string(py::repr(item))));
      }
    }
    return "list(string)";
  }
  ThrowIfError(errors::InvalidArgument("unsupported internal attr value ",
                                       std::string(py::repr(value))));
  return "";
}

py::object ShapeToPy(const PartialShape& shape) {
  if (!shape.known_rank()) return py::none();
  py::list dims;
  for (int64_t d : shape.dims()) {
    if (d < 0) {
      dims.append(py::none());
    } else {
      dims.append(d);
    }
  }
  return std::move(dims);
}

py::object AttrToPy(const AttrValue& attr) {
  switch (attr.value_case()) {
    case AttrValue::kS:
      return py::bytes(attr.s());
    case AttrValue::kI:
      return py::int_(attr.i());
    case AttrValue::kF:
      return py::float_(attr.f());
    case AttrValue::kB:
      return py::bool_(attr.b());
    case AttrValue::kType:
      return py::int_(static_cast<int>(attr.type()));
    case AttrValue::kShape: {
      PartialShape shape;
      ThrowIfError(PartialShape::FromProto(attr.shape(), &shape));
      return ShapeToPy(shape);
    }
    case AttrValue::kTensor: {
      Tensor tensor;
      ThrowIfError(Tensor::FromProto(attr.tensor(), &tensor));
      return TensorToNumpy(tensor.DeepCopy());
    }
    case AttrValue::kList: {
      const auto& l = attr.list();
      py::list out;
      for (const auto& s : l.s()) out.append(py::bytes(s));
      for (int64_t i : l.i()) out.append(i);
      for (float f : l.f()) out.append(f);
      for (bool b : l.b()) out.append(b);
      for (int t : l.type()) out.append(t);
      for (const auto& s : l.shape()) {
        PartialShape shape;
        ThrowIfError(PartialShape::FromProto(s, &shape));
        out.append(ShapeToPy(shape));
      }
      return std::move(out);
    }
    default:
      return py::none();
  }
}

// The Python-facing graph: the C++ graph plus node lookups by id.
class PyGraph {
 public:
  PyGraph() : graph_(std::make_shared<Graph>()) {}

  // Returns the new node's id.
  int AddNode(const std::string& op, const std::string& name,
              const std::vector<std::string>& inputs,
              const std::vector<std::string>& control_inputs,
              const py::dict& attrs, const std::string& device) {
    const OpDef* op_def;
    ThrowIfError(OpRegistry::Global()->LookUp(op, &op_def));
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    def.set_device(device);
    for (const auto& input : inputs) def.add_input(input);
    for (const auto& input : control_inputs) def.add_input("^" + input);
    for (const auto& item : attrs) {
      std::string attr_name = item.first.cast<std::string>();
      const AttrDef* attr_def = op_def->FindAttr(attr_name);
      if (attr_def == nullptr && attr_name.rfind('_', 0) == 0) {
        // An internal attr no op declares (`_class`: a list of strings).
        PyToAttr(InternalAttrType(item.second), item.second,
                 &(*def.mutable_attr())[attr_name]);
        continue;
      }
      if (attr_def == nullptr) {
        ThrowIfError(errors::InvalidArgument(
            "op '", op, "' has no attr '", attr_name, "' (node '", name, "')"));
      }
      try {
        PyToAttr(attr_def->type, item.second,
                 &(*def.mutable_attr())[attr_name]);
      } catch (const py::cast_error&) {
        ThrowIfError(errors::InvalidArgument(
            "attr '", attr_name, "' of node '", name, "' (op: '", op,
            "') must be of type ", attr_def->type, ", got ",
            std::string(py::repr(item.second))));
      }
    }
    Node* node;
    ThrowIfError(graph_->AddNode(std::move(def), &node));
    return node->id();
  }

  Node* GetNode(int id) const {
    Node* node = graph_->node(id);
    if (node == nullptr) {
      ThrowIfError(errors::InvalidArgument("no node with id ", id));
    }
    return node;
  }

  // tf.Tensor.set_shape: `shape` is None (unknown rank) or a list of ints
  // and None.
  void SetOutputShape(int id, int index, const py::object& shape) {
    Node* node = GetNode(id);
    PartialShape refined;
    if (!shape.is_none()) {
      std::vector<int64_t> dims;
      for (const auto& d : shape) {
        dims.push_back(d.is_none() ? -1 : d.cast<int64_t>());
      }
      refined = PartialShape(std::move(dims));
    }
    ThrowIfError(graph_->RefineOutputShape(node, index, refined));
  }

  py::tuple NodeInfo(int id) const {
    // (name, op, device, [(input node id, index)], [control input ids],
    //  [(dtype, shape, is_ref)] per output)
    Node* node = GetNode(id);
    py::list inputs, controls, outputs;
    for (int i = 0; i < node->num_inputs(); ++i) {
      inputs.append(
          py::make_tuple(node->input(i).node->id(), node->input(i).index));
    }
    for (Node* c : node->control_inputs()) controls.append(c->id());
    for (int i = 0; i < node->num_outputs(); ++i) {
      outputs.append(py::make_tuple(static_cast<int>(node->output_type(i)),
                                    ShapeToPy(node->output_shape(i)),
                                    static_cast<bool>(node->output_is_ref(i))));
    }
    return py::make_tuple(node->name(), node->type_string(), node->device(),
                          inputs, controls, outputs);
  }

  py::object GetAttr(int id, const std::string& name) const {
    Node* node = GetNode(id);
    auto it = node->attrs().find(name);
    if (it == node->attrs().end()) {
      ThrowIfError(errors::InvalidArgument("node '", node->name(),
                                           "' has no attr named '", name, "'"));
    }
    return AttrToPy(it->second);
  }

  py::bytes NodeDefBytes(int id) const {
    return py::bytes(GetNode(id)->def().SerializeAsString());
  }

  int FindNode(const std::string& name) const {
    Node* node = graph_->FindNode(name);
    return node == nullptr ? -1 : node->id();
  }

  void SetDevice(int id, const std::string& device) {
    graph_->SetRequestedDevice(GetNode(id), device);
  }

  // Re-points input `index` of node `dst` at output `src_index` of `src`.
  void UpdateInput(int dst, int index, int src, int src_index) {
    ThrowIfError(graph_->UpdateInput(GetNode(dst), index,
                                     Endpoint{GetNode(src), src_index}));
  }

  int NumNodes() const { return graph_->num_nodes(); }

  py::bytes ToGraphDef() const {
    GraphDef def;
    graph_->ToGraphDef(&def);
    return py::bytes(def.SerializeAsString());
  }

  std::vector<int> ImportGraphDef(
      const std::string& data, const std::string& prefix,
      const std::map<std::string, std::string>& input_map) {
    GraphDef def;
    if (!def.ParseFromString(data)) {
      ThrowIfError(errors::InvalidArgument(
          "the bytes given to import_graph_def are not a GraphDef"));
    }
    ImportOptions options;
    options.prefix = prefix;
    for (const auto& [key, value] : input_map) {
      Endpoint e;
      ThrowIfError(graph_->ParseTensorName(value, &e));
      options.input_map[key.find(':') == std::string::npos ? key + ":0" : key] =
          e;
    }
    std::vector<Node*> added;
    ThrowIfError(graph_->ImportGraphDef(def, options, &added));
    std::vector<int> ids;
    for (Node* n : added) ids.push_back(n->id());
    return ids;
  }

  const std::shared_ptr<Graph>& graph() const { return graph_; }

 private:
  std::shared_ptr<Graph> graph_;
};

// A device as Python sees it: (name, device_type, memory_limit,
// incarnation, physical_device_desc).
py::list DevicesToPy(const std::vector<Device*>& devices) {
  py::list out;
  for (const Device* d : devices) {
    const DeviceAttributes& a = d->attributes();
    out.append(py::make_tuple(a.name, a.device_type, a.memory_limit,
                              a.incarnation, a.physical_device_desc));
  }
  return out;
}

// The devices a session with this device_count would have.
py::list ListLocalDevices(const std::map<std::string, int>& device_count) {
  std::unique_ptr<DeviceSet> devices;
  ThrowIfError(
      DeviceSet::CreateLocal(device_count, "localhost", 0, 0, &devices));
  return DevicesToPy(devices->devices());
}

// Loads a device plug-in library (the CUDA device, libtensorweave_gpu.so)
// into the process and runs its TW_GpuPluginInit. The plug-in leaves the
// core's symbols (the kernel and device registries, Tensor, ...) undefined:
// they must resolve against this extension, which Python loaded with
// RTLD_LOCAL, so it is first promoted to global scope (dlopen of itself with
// RTLD_NOLOAD | RTLD_GLOBAL). Returns (loaded, count, message): loaded is
// false when the library could not be loaded or has no entry point (message:
// why); else count is what TW_GpuPluginInit returned (the number of GPUs, or
// -1 when CUDA is not usable) and message what it said. Never throws.
py::tuple LoadGpuPlugin(const std::string& path) {
  auto failed = [](const std::string& why) {
    return py::make_tuple(false, -1, why);
  };
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadGpuPlugin), &info) == 0 ||
      info.dli_fname == nullptr) {
    return failed("cannot find the path of the core extension (dladdr failed)");
  }
  if (dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == nullptr) {
    const char* e = dlerror();
    return failed(std::string("cannot make the core extension's symbols "
                              "global: ") +
                  (e ? e : "unknown dlopen error"));
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    return failed(std::string("cannot load ") + path + ": " +
                  (e ? e : "unknown dlopen error"));
  }
  using InitFn = int (*)(char*, int);
  auto init = reinterpret_cast<InitFn>(dlsym(handle, "TW_GpuPluginInit"));
  if (init == nullptr) {
    // The library stays loaded: its static registrations may have run, and
    // unloading a library whose factories are registered is unsafe.
    return failed(path + " has no TW_GpuPluginInit entry point");
  }
  char message[1024] = {0};
  int count = init(message, sizeof(message));
  message[sizeof(message) - 1] = '\0';
  return py::make_tuple(true, count, std::string(message));
}

// "GPU:0", "/device:GPU:0", "/physical_device:GPU:0", "gpu:1" -> (type, index).
std::pair<std::string, int> ParseMemoryDevice(const std::string& device) {
  std::string d = device;
  for (const char* prefix : {"/physical_device:", "/device:", "/"}) {
    if (d.rfind(prefix, 0) == 0) {
      d = d.substr(std::strlen(prefix));
      break;
    }
  }
  const size_t colon = d.find(':');
  std::string type = d.substr(0, colon);
  for (char& c : type) c = static_cast<char>(std::toupper(c));
  int index = 0;
  if (colon != std::string::npos) {
    const std::string digits = d.substr(colon + 1);
    if (digits.empty() ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 6) {
      throw py::value_error("Invalid device name '" + device +
                            "': expected \"<TYPE>:<index>\", e.g. \"GPU:0\"");
    }
    index = std::stoi(digits);
  }
  if (type.empty()) {
    throw py::value_error("Invalid device name '" + device + "'");
  }
  return {type, index};
}

// tf.config.experimental.get_memory_info: {"current": bytes, "peak": bytes}
// of the device; ValueError for a device type that does not track memory
// (the CPU, as in TF) or a device that does not exist.
py::dict GetMemoryInfo(const std::string& device) {
  auto [type, index] = ParseMemoryDevice(device);
  DeviceFactory* factory = DeviceFactory::Get(type);
  if (factory == nullptr) {
    throw py::value_error("No matching devices found for '" + device + "'");
  }
  int64_t current = 0, peak = 0;
  if (!factory->GetMemoryInfo(index, &current, &peak)) {
    throw py::value_error("Device '" + device +
                          "' does not support getting memory information "
                          "(or does not exist)");
  }
  py::dict out;
  out["current"] = current;
  out["peak"] = peak;
  return out;
}

void ResetMemoryStats(const std::string& device) {
  auto [type, index] = ParseMemoryDevice(device);
  DeviceFactory* factory = DeviceFactory::Get(type);
  if (factory == nullptr) {
    throw py::value_error("No matching devices found for '" + device + "'");
  }
  if (!factory->ResetMemoryStats(index)) {
    throw py::value_error("Device '" + device +
                          "' does not support resetting memory statistics "
                          "(or does not exist)");
  }
}

// ConfigProto's graph optimizer switches, as session_config.py's
// graph_optimizer_options() computes them (a name left out keeps its
// default: on).
GraphOptimizerOptions ToGraphOptimizerOptions(
    const std::map<std::string, int64_t>& values) {
  GraphOptimizerOptions options;
  const std::map<std::string, bool*> flags = {
      {"constant_folding", &options.constant_folding},
      {"arithmetic_optimization", &options.arithmetic_optimization},
      {"common_subexpression_elimination",
       &options.common_subexpression_elimination},
      {"dependency_optimization", &options.dependency_optimization},
      {"remapping", &options.remapping},
      {"model_pruning", &options.model_pruning}};
  for (const auto& [name, value] : values) {
    auto flag = flags.find(name);
    if (flag != flags.end()) {
      *flag->second = value != 0;
    } else if (name == "max_constant_bytes") {
      options.max_constant_bytes = value;
    } else {
      throw py::value_error("unknown graph optimizer option '" + name + "'");
    }
  }
  return options;
}

class PySession {
 public:
  PySession(const PyGraph& graph, int inter_op_threads, int intra_op_threads,
            const std::map<std::string, int>& device_count,
            bool allow_soft_placement, bool log_device_placement,
            int64_t operation_timeout_in_ms) {
    SessionOptions options;
    options.inter_op_threads = inter_op_threads;
    options.intra_op_threads = intra_op_threads;
    options.device_count = device_count;
    options.placement.allow_soft_placement = allow_soft_placement;
    options.placement.log_device_placement = log_device_placement;
    options.operation_timeout_in_ms = operation_timeout_in_ms;
    ThrowIfError(Session::Create(graph.graph(), options, &session_));
  }
  // Without the GIL: destroying the session destroys its resources, and an
  // iterator's threads (tf.data's parallel map) may be waiting for the GIL
  // in a py_func when the iterator joins them.
  ~PySession() {
    py::gil_scoped_release release;
    session_.reset();
  }

  py::list ListDevices() { return DevicesToPy(session_->devices()->devices()); }

  // The graph optimizer passes of the steps prepared from now on.
  void SetGraphOptimizer(const std::map<std::string, int64_t>& values) {
    session_->SetGraphOptimizerOptions(ToGraphOptimizerOptions(values));
  }

  int64_t MakeCallable(const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets) {
    CallableSpec spec{feeds, fetches, targets};
    int64_t handle;
    Status status;
    {
      py::gil_scoped_release release;
      status = session_->MakeCallable(spec, &handle);
    }
    ThrowIfError(status);
    return handle;
  }

  // feeds: (array, dtype enum) pairs in the callable's feed order.
  py::list RunCallable(int64_t handle, const py::list& feeds) {
    return Run(handle, feeds, nullptr, nullptr);
  }

  // As run_callable, with RunOptions' fields; returns (outputs, metadata)
  // with metadata {"partition_graphs": [serialized GraphDef, ...],
  // "step_stats": serialized StepStats (b"" when not traced)}.
  py::tuple RunCallableWithMetadata(int64_t handle, const py::list& feeds,
                                    bool output_partition_graphs,
                                    int trace_level, int64_t timeout_in_ms) {
    RunOptions options;
    options.output_partition_graphs = output_partition_graphs;
    options.trace_level = trace_level;
    options.timeout_in_ms = timeout_in_ms;
    RunMetadata metadata;
    py::list outputs = Run(handle, feeds, &options, &metadata);
    py::list graphs;
    for (const GraphDef& g : metadata.partition_graphs) {
      graphs.append(py::bytes(g.SerializeAsString()));
    }
    py::bytes step_stats(metadata.step_stats.SerializeAsString());
    return py::make_tuple(outputs,
                          py::dict(py::arg("partition_graphs") = graphs,
                                   py::arg("step_stats") = step_stats));
  }

  // Without the GIL: steps blocked in other threads are cancelled, and
  // what they finish may run Python (py_func).
  void Close() {
    py::gil_scoped_release release;
    session_->Close();
  }

 private:
  py::list Run(int64_t handle, const py::list& feeds, const RunOptions* options,
               RunMetadata* metadata) {
    DeferredDecrefs::BeginRun();
    struct EndRun {
      ~EndRun() { DeferredDecrefs::EndRun(); }
    } end_run;  // after the tensors below are gone
    std::vector<Tensor> inputs;
    inputs.reserve(feeds.size());
    for (const auto& item : feeds) {
      py::tuple pair = item.cast<py::tuple>();
      inputs.push_back(FeedTensor(pair[0].cast<py::array>(),
                                  static_cast<DataType>(pair[1].cast<int>())));
    }
    std::vector<Tensor> outputs;
    Status status;
    {
      py::gil_scoped_release release;
      status = options == nullptr
                   ? session_->RunCallable(handle, inputs, &outputs)
                   : session_->RunCallable(handle, inputs, *options, &outputs,
                                           metadata);
      inputs.clear();
    }
    ThrowIfError(status);
    // As TensorFlow's Session.run: a 0-d result is a numpy scalar (bytes
    // for a string), anything else an array.
    py::list result;
    for (Tensor& t : outputs) {
      const bool scalar = t.shape().dims().empty();
      py::object value = TensorToNumpy(std::move(t));
      result.append(scalar ? value[py::tuple()] : value);
    }
    return result;
  }

  std::unique_ptr<Session> session_;
};

// An op's definition as Python sees it (python/tensorweave/_src/ops/gen_ops.py
// builds the wrappers from it): inputs and outputs, attrs with their
// defaults, allowed values and minimums, the doc.
py::dict OpDefToPy(const OpDef& op) {
  auto args = [](const std::vector<ArgDef>& defs) {
    py::list l;
    for (const auto& a : defs) {
      l.append(py::dict(py::arg("name") = a.name,
                        py::arg("type") = static_cast<int>(a.type),
                        py::arg("type_attr") = a.type_attr,
                        py::arg("number_attr") = a.number_attr,
                        py::arg("type_list_attr") = a.type_list_attr,
                        py::arg("is_ref") = a.is_ref));
    }
    return l;
  };
  py::list attrs;
  for (const auto& a : op.attrs) {
    py::list allowed_types;
    for (DataType t : a.allowed_types)
      allowed_types.append(static_cast<int>(t));
    attrs.append(py::dict(
        py::arg("name") = a.name, py::arg("type") = a.type,
        py::arg("has_default") = a.has_default,
        py::arg("default") =
            a.has_default ? AttrToPy(a.default_value) : py::none(),
        py::arg("allowed_types") = allowed_types,
        py::arg("allowed_values") = py::cast(a.allowed_strings),
        py::arg("minimum") =
            a.has_minimum ? py::object(py::int_(a.minimum)) : py::none()));
  }
  return py::dict(
      py::arg("name") = op.name, py::arg("inputs") = args(op.inputs),
      py::arg("outputs") = args(op.outputs), py::arg("attrs") = attrs,
      py::arg("is_stateful") = op.is_stateful, py::arg("doc") = op.doc);
}

py::list OpDefs() {
  py::list out;
  for (const auto& name : OpRegistry::Global()->ListOps()) {
    out.append(OpDefToPy(*OpRegistry::Global()->Find(name)));
  }
  return out;
}

// One op's definition (None when no op of that name is registered): cheaper
// than op_defs() where a module needs a few ops at import.
py::object OpDefByName(const std::string& name) {
  const OpDef* op = OpRegistry::Global()->Find(name);
  if (op == nullptr) return py::none();
  return OpDefToPy(*op);
}

py::list OpNames() { return py::cast(OpRegistry::Global()->ListOps()); }

// Installs the Python side of PyFunc: trampoline(token, [arrays]) returns
// (code, message, [(array, dtype enum), ...]); a nonzero code is the error.
void SetPyFuncTrampoline(py::function trampoline) {
  // Lives as long as the process (kernels may call it from any thread).
  auto* keep = new py::object(std::move(trampoline));
  SetPyFuncCallback([keep](const std::string& token,
                           const std::vector<Tensor>& inputs,
                           std::vector<Tensor>* outputs) -> Status {
    py::gil_scoped_acquire gil;
    try {
      py::list args;
      for (const Tensor& t : inputs) args.append(TensorToNumpy(t.DeepCopy()));
      py::tuple result = (*keep)(token, args);
      const int code = result[0].cast<int>();
      if (code != 0) {
        return Status(static_cast<Code>(code), result[1].cast<std::string>());
      }
      for (auto item : result[2]) {
        py::tuple pair = item.cast<py::tuple>();
        const auto dtype = static_cast<DataType>(pair[1].cast<int>());
        outputs->push_back(NumpyToTensor(pair[0].cast<py::array>(), dtype));
      }
      return Status::OK();
    } catch (const std::exception& e) {
      return errors::Internal("calling the Python function ", token, ": ",
                              e.what());
    }
  });
}

}  // namespace

// The distributed runtime's classes (pywrap_distributed.cc).
void RegisterDistributedBindings(py::module_& m);

}  // namespace tensorweave

PYBIND11_MODULE(_pywrap_tensorweave, m) {
  using namespace tensorweave;
  m.doc() = "tensorweave's C++ core";
  py::class_<PyGraph>(m, "Graph")
      .def(py::init<>())
      .def("add_node", &PyGraph::AddNode)
      .def("node_info", &PyGraph::NodeInfo)
      .def("set_output_shape", &PyGraph::SetOutputShape)
      .def("get_attr", &PyGraph::GetAttr)
      .def("node_def", &PyGraph::NodeDefBytes)
      .def("find_node", &PyGraph::FindNode)
      .def("set_device", &PyGraph::SetDevice)
      .def("update_input", &PyGraph::UpdateInput)
      .def("num_nodes", &PyGraph::NumNodes)
      .def("to_graph_def", &PyGraph::ToGraphDef)
      .def("import_graph_def", &PyGraph::ImportGraphDef);
  py::class_<PySession>(m, "Session")
      .def(py::init<const PyGraph&, int, int, const std::map<std::string, int>&,
                    bool, bool, int64_t>(),
           py::arg("graph"), py::arg("inter_op_threads"),
           py::arg("intra_op_threads"),
           py::arg("device_count") = std::map<std::string, int>(),
           py::arg("allow_soft_placement") = false,
           py::arg("log_device_placement") = false,
           py::arg("operation_timeout_in_ms") = 0)
      .def("make_callable", &PySession::MakeCallable)
      .def("run_callable", &PySession::RunCallable)
      .def("run_callable_with_metadata", &PySession::RunCallableWithMetadata,
           py::arg("handle"), py::arg("feeds"),
           py::arg("output_partition_graphs"), py::arg("trace_level") = 0,
           py::arg("timeout_in_ms") = 0)
      .def("list_devices", &PySession::ListDevices)
      .def("set_graph_optimizer", &PySession::SetGraphOptimizer)
      .def("close", &PySession::Close);
  m.def("list_local_devices", &ListLocalDevices,
        py::arg("device_count") = std::map<std::string, int>());
  m.def("op_defs", &OpDefs);
  m.def("op_def", &OpDefByName);
  m.def("op_names", &OpNames);
  m.def("set_py_func_trampoline", &SetPyFuncTrampoline);
  // The ops with a kernel (for `device_type` only, e.g. "GPU", when given).
  m.def(
      "registered_kernels",
      [](const std::string& device_type) {
        std::vector<std::string> ops =
            KernelRegistry::Global()->RegisteredOps();
        if (device_type.empty()) return ops;
        std::vector<std::string> on_device;
        for (const std::string& op : ops) {
          if (KernelRegistry::Global()->HasKernel(op, device_type)) {
            on_device.push_back(op);
          }
        }
        return on_device;
      },
      py::arg("device_type") = "");
  // (captures, replays, fallbacks) of captured device steps, process-wide.
  m.def("step_capture_counters", [] {
    Session::CaptureCounters c = Session::GetCaptureCounters();
    return py::make_tuple(c.captures, c.replays, c.fallbacks);
  });
  m.def("load_gpu_plugin", &LoadGpuPlugin, py::arg("path"));
  m.def("get_memory_info", &GetMemoryInfo, py::arg("device"));
  m.def("reset_memory_stats", &ResetMemoryStats, py::arg("device"));
  RegisterDistributedBindings(m);
}
