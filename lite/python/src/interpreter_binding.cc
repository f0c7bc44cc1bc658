// tensorweave_lite._interpreter: the CPython binding of the lite runtime.
//
// Written against the plain CPython C API (no pybind11, no numpy headers) so
// that importing it costs a few hundred microseconds and a few hundred KiB.
// Tensors are handed to Python through the buffer protocol (TensorBuffer,
// with format and shape), which numpy turns into arrays without a copy; the
// Python layer (tensorweave_lite/_src/interpreter.py) builds the
// tf.lite.Interpreter-style API on top.
//
// The binding uses the C++ runtime directly rather than the C API because it
// also needs the arena size and the model's flatbuffer (operators, signature
// definitions, shape signatures) for `tensorweave-lite inspect`.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "lite/runtime/interpreter.h"
#include "lite/runtime/vector.h"

namespace {

// ---------------------------------------------------------------------------
// Errors: runtime statuses become ValueError (the caller's input or model is
// wrong) or RuntimeError (the call cannot be done now / internal failure).

PyObject* SetStatusError(const twl::Status& status) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case twl::StatusCode::kInvalidArgument:
    case twl::StatusCode::kInvalidModel:
    case twl::StatusCode::kUnsupported:
    case twl::StatusCode::kIoError:
      type = PyExc_ValueError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, status.message());
  return nullptr;
}

// Struct-module format character of each DataType (native byte order).
const char* BufferFormat(twl::DataType type) {
  switch (type) {
    case twl::DataType::kFloat32:
      return "f";
    case twl::DataType::kInt32:
      return "i";
    case twl::DataType::kInt64:
      return "q";
    case twl::DataType::kUInt8:
      return "B";
    case twl::DataType::kInt8:
      return "b";
    case twl::DataType::kBool:
      return "?";
    case twl::DataType::kFloat64:
      return "d";
    case twl::DataType::kInt16:
      return "h";
    case twl::DataType::kUInt16:
      return "H";
    case twl::DataType::kUInt32:
      return "I";
    case twl::DataType::kUInt64:
      return "Q";
    case twl::DataType::kFloat16:
      return "e";
  }
  return "B";
}

PyObject* IntTuple(const int32_t* values, int count) {
  PyObject* tuple = PyTuple_New(count);
  if (tuple == nullptr) return nullptr;
  for (int i = 0; i < count; ++i) {
    PyObject* value = PyLong_FromLong(values[i]);
    if (value == nullptr) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, i, value);
  }
  return tuple;
}

PyObject* FlatIntTuple(const flatbuffers::Vector<int32_t>* values) {
  if (values == nullptr) return PyTuple_New(0);
  return IntTuple(values->data(), static_cast<int>(values->size()));
}

// ---------------------------------------------------------------------------
// Interpreter object.

struct InterpreterState {
  Py_buffer content = {};  // model_content held for the interpreter's life
  bool has_content = false;
  std::unique_ptr<twl::Model> model;
  twl::OpResolver resolver;
  std::unique_ptr<twl::Interpreter> interpreter;
};

struct InterpreterObject {
  PyObject_HEAD InterpreterState* state;
  Py_ssize_t exports;  // live buffers handed out (numpy views)
  // Of those, views of dynamic tensors (shapes known only in invoke, whose
  // memory invoke may move): invoke refuses to run under one.
  Py_ssize_t dynamic_exports;
  bool busy;  // invoke() is running with the GIL released
};

extern PyTypeObject InterpreterType;
extern PyTypeObject TensorBufferType;

void DeleteState(InterpreterState* state) {
  if (state == nullptr) return;
  state->interpreter.reset();
  state->model.reset();
  if (state->has_content) PyBuffer_Release(&state->content);
  delete state;
}

// Whether `object` is immutable bytes that the model may read in place for
// the interpreter's life: a bytes object, or a read-only memoryview of one.
// Anything else (bytearray, numpy arrays, mmap, writable views) may change
// after verification, so it is copied.
bool IsImmutableBytes(PyObject* object) {
  if (PyBytes_CheckExact(object)) return true;
  if (!PyMemoryView_Check(object)) return false;
  const Py_buffer* view = PyMemoryView_GET_BUFFER(object);
  PyObject* base = PyMemoryView_GET_BASE(object);
  return view->readonly && base != nullptr && PyBytes_CheckExact(base) &&
         PyBuffer_IsContiguous(view, 'C');
}

int Interpreter_init(InterpreterObject* self, PyObject* args, PyObject* kwds) {
  static const char* kKeywords[] = {"model_path", "model_content",
                                    "num_threads", "verify_checksum", nullptr};
  PyObject* path_object = Py_None;
  PyObject* content_object = Py_None;
  int num_threads = 1;
  int verify_checksum = 1;
  if (!PyArg_ParseTupleAndKeywords(
          args, kwds, "|OOip", const_cast<char**>(kKeywords), &path_object,
          &content_object, &num_threads, &verify_checksum)) {
    return -1;
  }
  if ((path_object == Py_None) == (content_object == Py_None)) {
    PyErr_SetString(PyExc_ValueError,
                    "give exactly one of model_path and model_content");
    return -1;
  }
  if (self->state != nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "interpreter is already initialized");
    return -1;
  }
  InterpreterState* state = new (std::nothrow) InterpreterState();
  if (state == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  twl::ModelOptions model_options;
  model_options.verify_checksum = verify_checksum != 0;
  twl::Status status;
  if (path_object != Py_None) {
    PyObject* encoded = nullptr;
    if (!PyUnicode_FSConverter(path_object, &encoded)) {
      DeleteState(state);
      return -1;
    }
    status = twl::Model::CreateFromFile(PyBytes_AS_STRING(encoded),
                                        model_options, &state->model);
    Py_DECREF(encoded);
  } else {
    if (PyObject_GetBuffer(content_object, &state->content, PyBUF_SIMPLE) !=
        0) {
      DeleteState(state);
      return -1;
    }
    state->has_content = true;
    const void* data = state->content.buf;
    size_t size = static_cast<size_t>(state->content.len);
    // The verified bytes must be the bytes used: immutable, 16-byte aligned
    // bytes (CPython aligns bytes objects) are held and read in place;
    // everything else is copied once into memory the model owns, and the
    // caller's buffer is released at once.
    model_options.copy_buffer = !IsImmutableBytes(content_object) ||
                                reinterpret_cast<uintptr_t>(data) % 16 != 0;
    status =
        twl::Model::CreateFromBuffer(data, size, model_options, &state->model);
    if (model_options.copy_buffer) {
      PyBuffer_Release(&state->content);
      state->has_content = false;
    }
  }
  if (status.ok()) status = twl::RegisterBuiltinKernels(&state->resolver);
  if (status.ok()) {
    twl::InterpreterOptions options;
    options.num_threads = num_threads;
    status = twl::Interpreter::Create(state->model.get(), &state->resolver,
                                      options, &state->interpreter);
  }
  if (!status.ok()) {
    DeleteState(state);
    SetStatusError(status);
    return -1;
  }
  self->state = state;
  return 0;
}

void Interpreter_dealloc(InterpreterObject* self) {
  DeleteState(self->state);
  Py_TYPE(self)->tp_free(reinterpret_cast<PyObject*>(self));
}

// Returns the runtime interpreter, or null with an exception set.
twl::Interpreter* Get(InterpreterObject* self) {
  if (self->state == nullptr || !self->state->interpreter) {
    PyErr_SetString(PyExc_RuntimeError, "interpreter is not initialized");
    return nullptr;
  }
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError,
                    "interpreter is running invoke() in another thread");
    return nullptr;
  }
  return self->state->interpreter.get();
}

// Parses a tensor index argument and range-checks it.
bool TensorIndex(twl::Interpreter* interpreter, PyObject* arg, int* index) {
  long value = PyLong_AsLong(arg);
  if (value == -1 && PyErr_Occurred()) return false;
  if (value < 0 || value >= interpreter->num_tensors()) {
    PyErr_Format(PyExc_ValueError,
                 "tensor index %ld out of range (the model has %d tensors)",
                 value, interpreter->num_tensors());
    return false;
  }
  *index = static_cast<int>(value);
  return true;
}

PyObject* Interpreter_allocate_tensors(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  if (!interpreter->tensors_allocated() && self->exports > 0) {
    PyErr_Format(PyExc_RuntimeError,
                 "allocate_tensors() would move tensor memory while %zd numpy "
                 "view(s) from tensor() are alive; delete them first",
                 self->exports);
    return nullptr;
  }
  twl::Status status = interpreter->AllocateTensors();
  if (!status.ok()) return SetStatusError(status);
  Py_RETURN_NONE;
}

PyObject* Interpreter_invoke(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  twl::Status status;
  if (self->dynamic_exports > 0) {
    PyErr_Format(PyExc_RuntimeError,
                 "invoke() may move the memory of a dynamic tensor (its shape "
                 "is known only when the model runs) while %zd numpy view(s) "
                 "of one are alive; use get_tensor() (a copy) or delete them",
                 self->dynamic_exports);
    return nullptr;
  }
  self->busy = true;
  Py_BEGIN_ALLOW_THREADS status = interpreter->Invoke();
  Py_END_ALLOW_THREADS self->busy = false;
  if (!status.ok()) return SetStatusError(status);
  Py_RETURN_NONE;
}

// resize_input(input_position, shape_sequence)
PyObject* Interpreter_resize_input(InterpreterObject* self, PyObject* args) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  int position = 0;
  PyObject* dims_object = nullptr;
  if (!PyArg_ParseTuple(args, "iO", &position, &dims_object)) return nullptr;
  PyObject* dims = PySequence_Fast(dims_object, "shape must be a sequence");
  if (dims == nullptr) return nullptr;
  Py_ssize_t rank = PySequence_Fast_GET_SIZE(dims);
  if (rank > twl::kMaxDims) {
    Py_DECREF(dims);
    PyErr_Format(PyExc_ValueError, "rank %zd exceeds the maximum of %d", rank,
                 twl::kMaxDims);
    return nullptr;
  }
  int32_t values[twl::kMaxDims] = {};
  for (Py_ssize_t i = 0; i < rank; ++i) {
    long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(dims, i));
    if (value == -1 && PyErr_Occurred()) {
      Py_DECREF(dims);
      return nullptr;
    }
    if (value < 0 || value > INT32_MAX) {
      Py_DECREF(dims);
      PyErr_Format(PyExc_ValueError,
                   "dimension %zd is %ld; it must be in "
                   "0..2^31-1",
                   i, value);
      return nullptr;
    }
    values[i] = static_cast<int32_t>(value);
  }
  Py_DECREF(dims);
  twl::Shape shape;
  twl::Status status = twl::MakeShape(values, static_cast<int>(rank), &shape);
  if (status.ok()) status = interpreter->ResizeInputTensor(position, shape);
  if (!status.ok()) return SetStatusError(status);
  Py_RETURN_NONE;
}

PyObject* IndexList(twl::Interpreter* interpreter, bool inputs) {
  int count = inputs ? interpreter->num_inputs() : interpreter->num_outputs();
  PyObject* list = PyList_New(count);
  if (list == nullptr) return nullptr;
  for (int i = 0; i < count; ++i) {
    twl::Tensor* tensor =
        inputs ? interpreter->input(i) : interpreter->output(i);
    long index = static_cast<long>(tensor - interpreter->tensor(0));
    PyObject* value = PyLong_FromLong(index);
    if (value == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, value);
  }
  return list;
}

PyObject* Interpreter_inputs(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  return interpreter ? IndexList(interpreter, true) : nullptr;
}

PyObject* Interpreter_outputs(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  return interpreter ? IndexList(interpreter, false) : nullptr;
}

PyObject* Interpreter_num_tensors(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  return interpreter ? PyLong_FromLong(interpreter->num_tensors()) : nullptr;
}

// tensor_info(index) -> (name, type, shape, shape_signature or None, bytes,
//                        is_constant, buffer index)
PyObject* Interpreter_tensor_info(InterpreterObject* self, PyObject* arg) {
  twl::Interpreter* interpreter = Get(self);
  int index = 0;
  if (interpreter == nullptr || !TensorIndex(interpreter, arg, &index)) {
    return nullptr;
  }
  const twl::Tensor* tensor = interpreter->tensor(index);
  const twl::schema::Tensor* fb =
      self->state->model->main_subgraph()->tensors()->Get(index);
  PyObject* signature = nullptr;
  if (fb->shape_signature() != nullptr && fb->shape_signature()->size() != 0) {
    signature = FlatIntTuple(fb->shape_signature());
  } else {
    signature = Py_None;
    Py_INCREF(signature);
  }
  PyObject* shape = IntTuple(tensor->shape.dims, tensor->shape.rank);
  if (signature == nullptr || shape == nullptr) {
    Py_XDECREF(signature);
    Py_XDECREF(shape);
    return nullptr;
  }
  return Py_BuildValue("(siNNnOI)", tensor->name,
                       static_cast<int>(tensor->type), shape, signature,
                       static_cast<Py_ssize_t>(tensor->bytes),
                       tensor->is_constant ? Py_True : Py_False,
                       static_cast<unsigned>(fb->buffer()));
}

PyObject* NewTensorBuffer(InterpreterObject* owner, int index);

// tensor_buffer(index) -> TensorBuffer (buffer protocol, no copy)
PyObject* Interpreter_tensor_buffer(InterpreterObject* self, PyObject* arg) {
  twl::Interpreter* interpreter = Get(self);
  int index = 0;
  if (interpreter == nullptr || !TensorIndex(interpreter, arg, &index)) {
    return nullptr;
  }
  const twl::Tensor* tensor = interpreter->tensor(index);
  if (!tensor->is_constant && !interpreter->tensors_allocated()) {
    PyErr_Format(PyExc_RuntimeError,
                 "tensor %d '%s' has no memory yet: call allocate_tensors() "
                 "first (again after resize_tensor_input())",
                 index, tensor->name);
    return nullptr;
  }
  return NewTensorBuffer(self, index);
}

// Whether a struct-module format (as numpy exports it: native order, an
// optional '@', '=' or '<' prefix on this little-endian build) holds elements
// of `type`.
bool FormatMatches(const char* format, twl::DataType type) {
  if (format == nullptr) return false;
  if (*format == '@' || *format == '=' ||
      (*format == '<' && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)) {
    ++format;
  }
  if (format[0] == '\0' || format[1] != '\0') return false;
  switch (format[0]) {
    case 'l':  // numpy's int64 where long is 64 bits
      return sizeof(long) == 8 && type == twl::DataType::kInt64;
    case 'i':
      return type == twl::DataType::kInt32;
    default:
      return format[0] == BufferFormat(type)[0];
  }
}

// set_tensor_fast(index, array) -> bool: the common case of set_tensor in
// one call: copies a C-contiguous buffer of exactly the tensor's dtype and
// shape. Returns False, having changed nothing, for anything else (the
// Python layer then converts or reports what is wrong).
PyObject* Interpreter_set_tensor_fast(InterpreterObject* self,
                                      PyObject* const* args, Py_ssize_t nargs) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "set_tensor_fast(index, value)");
    return nullptr;
  }
  if (!PyLong_CheckExact(args[0]) || !PyObject_CheckBuffer(args[1]) ||
      !interpreter->tensors_allocated()) {
    Py_RETURN_FALSE;
  }
  const long index = PyLong_AsLong(args[0]);
  if (index < 0 || index >= interpreter->num_tensors()) {
    PyErr_Clear();  // an overflowing index; the Python layer reports it
    Py_RETURN_FALSE;
  }
  twl::Tensor* tensor = interpreter->tensor(static_cast<int>(index));
  if (tensor->is_constant) Py_RETURN_FALSE;
  Py_buffer view;
  if (PyObject_GetBuffer(args[1], &view, PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    Py_RETURN_FALSE;
  }
  bool match = FormatMatches(view.format, tensor->type) &&
               view.ndim == tensor->shape.rank &&
               static_cast<size_t>(view.len) == tensor->bytes &&
               PyBuffer_IsContiguous(&view, 'C');
  for (int i = 0; match && i < view.ndim; ++i) {
    match = view.shape[i] == tensor->shape.dims[i];
  }
  if (match && view.len != 0) memcpy(tensor->data, view.buf, tensor->bytes);
  PyBuffer_Release(&view);
  return PyBool_FromLong(match);
}

// set_tensor_bytes(index, buffer): copies exactly the tensor's byte size.
PyObject* Interpreter_set_tensor_bytes(InterpreterObject* self,
                                       PyObject* args) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  PyObject* index_object = nullptr;
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "Oy*", &index_object, &view)) return nullptr;
  int index = 0;
  PyObject* result = nullptr;
  if (TensorIndex(interpreter, index_object, &index)) {
    twl::Tensor* tensor = interpreter->tensor(index);
    if (tensor->is_constant) {
      PyErr_Format(PyExc_ValueError,
                   "tensor %d '%s' is a constant of the model and cannot be "
                   "set",
                   index, tensor->name);
    } else if (!interpreter->tensors_allocated()) {
      PyErr_Format(PyExc_RuntimeError,
                   "tensor %d '%s' has no memory yet: call allocate_tensors() "
                   "first (again after resize_tensor_input())",
                   index, tensor->name);
    } else if (static_cast<size_t>(view.len) != tensor->bytes) {
      PyErr_Format(PyExc_ValueError, "tensor %d '%s' holds %zu bytes, got %zd",
                   index, tensor->name, tensor->bytes, view.len);
    } else {
      if (view.len != 0) memcpy(tensor->data, view.buf, tensor->bytes);
      result = Py_None;
      Py_INCREF(result);
    }
  }
  PyBuffer_Release(&view);
  return result;
}

// nodes() -> [(op_name, version, inputs, outputs), ...] in execution order.
PyObject* Interpreter_nodes(InterpreterObject* self, PyObject*) {
  if (Get(self) == nullptr) return nullptr;
  const auto* operators = self->state->model->main_subgraph()->operators();
  Py_ssize_t count = operators ? operators->size() : 0;
  PyObject* list = PyList_New(count);
  if (list == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < count; ++i) {
    const twl::schema::Operator* op = operators->Get(i);
    PyObject* item =
        Py_BuildValue("(siNN)", twl::OpName(op->opcode()), op->version(),
                      FlatIntTuple(op->inputs()), FlatIntTuple(op->outputs()));
    if (item == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

PyObject* TensorMaps(
    const flatbuffers::Vector<flatbuffers::Offset<twl::schema::TensorMap>>*
        maps) {
  Py_ssize_t count = maps ? maps->size() : 0;
  PyObject* list = PyList_New(count);
  if (list == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < count; ++i) {
    const twl::schema::TensorMap* map = maps->Get(i);
    PyObject* item = Py_BuildValue(
        "(sI)", map->name() ? map->name()->c_str() : "", map->tensor_index());
    if (item == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

// signatures() -> [(key, [(name, tensor)], [(name, tensor)], subgraph), ...]
PyObject* Interpreter_signatures(InterpreterObject* self, PyObject*) {
  if (Get(self) == nullptr) return nullptr;
  const auto* sigs = self->state->model->fb()->signature_defs();
  Py_ssize_t count = sigs ? sigs->size() : 0;
  PyObject* list = PyList_New(count);
  if (list == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < count; ++i) {
    const twl::schema::SignatureDef* sig = sigs->Get(i);
    PyObject* item = Py_BuildValue(
        "(sNNI)", sig->signature_key() ? sig->signature_key()->c_str() : "",
        TensorMaps(sig->inputs()), TensorMaps(sig->outputs()),
        sig->subgraph_index());
    if (item == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

// model_info() -> dict(version, description, metadata, size, checksum)
// (checksum: the stored CRC-32, or None without an integrity trailer)
PyObject* Interpreter_model_info(InterpreterObject* self, PyObject*) {
  if (Get(self) == nullptr) return nullptr;
  const twl::schema::Model* fb = self->state->model->fb();
  PyObject* metadata = PyDict_New();
  if (metadata == nullptr) return nullptr;
  if (fb->metadata() != nullptr) {
    for (const twl::schema::Metadata* entry : *fb->metadata()) {
      if (entry->key() == nullptr) continue;
      PyObject* value = PyUnicode_DecodeUTF8(
          entry->value() ? entry->value()->c_str() : "",
          entry->value() ? entry->value()->size() : 0, "replace");
      if (value == nullptr ||
          PyDict_SetItemString(metadata, entry->key()->c_str(), value) != 0) {
        Py_XDECREF(value);
        Py_DECREF(metadata);
        return nullptr;
      }
      Py_DECREF(value);
    }
  }
  const twl::Model& model = *self->state->model;
  PyObject* checksum = model.has_checksum()
                           ? PyLong_FromUnsignedLong(model.checksum())
                           : (Py_INCREF(Py_None), Py_None);
  if (checksum == nullptr) {
    Py_DECREF(metadata);
    return nullptr;
  }
  return Py_BuildValue(
      "{sIsssNsnsN}", "version", fb->version(), "description",
      fb->description() ? fb->description()->c_str() : "", "metadata", metadata,
      "size", static_cast<Py_ssize_t>(model.size()), "checksum", checksum);
}

PyObject* Interpreter_arena_size(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  return PyLong_FromSize_t(interpreter->arena_size());
}

PyObject* Interpreter_tensors_allocated(InterpreterObject* self, PyObject*) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  return PyBool_FromLong(interpreter->tensors_allocated());
}

// Sums each node's eval time over profiled invokes.
class NodeTimeProfiler : public twl::Profiler {
 public:
  explicit NodeTimeProfiler(std::vector<double>* times) : times_(times) {}
  void OnNodeDone(int node, twl::BuiltinOperator, double us) override {
    if (node >= 0 && static_cast<size_t>(node) < times_->size()) {
      (*times_)[node] += us;
    }
  }

 private:
  std::vector<double>* times_;
};

// profile_invoke(runs) -> [microseconds per node, summed over the runs].
PyObject* Interpreter_profile_invoke(InterpreterObject* self, PyObject* arg) {
  twl::Interpreter* interpreter = Get(self);
  if (interpreter == nullptr) return nullptr;
  long runs = PyLong_AsLong(arg);
  if (runs == -1 && PyErr_Occurred()) return nullptr;
  if (runs < 1) {
    PyErr_SetString(PyExc_ValueError, "runs must be at least 1");
    return nullptr;
  }
  const auto* operators = self->state->model->main_subgraph()->operators();
  std::vector<double> times(operators ? operators->size() : 0, 0.0);
  NodeTimeProfiler profiler(&times);
  twl::Status status;
  self->busy = true;
  Py_BEGIN_ALLOW_THREADS interpreter->set_profiler(&profiler);
  for (long i = 0; i < runs && status.ok(); ++i) status = interpreter->Invoke();
  interpreter->set_profiler(nullptr);
  Py_END_ALLOW_THREADS self->busy = false;
  if (!status.ok()) return SetStatusError(status);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(times.size()));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < times.size(); ++i) {
    PyObject* value = PyFloat_FromDouble(times[i]);
    if (value == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), value);
  }
  return list;
}

PyObject* Interpreter_num_views(InterpreterObject* self, PyObject*) {
  return PyLong_FromSsize_t(self->exports);
}

PyObject* Interpreter_num_dynamic_views(InterpreterObject* self, PyObject*) {
  return PyLong_FromSsize_t(self->dynamic_exports);
}

PyMethodDef kInterpreterMethods[] = {
    {"allocate_tensors",
     reinterpret_cast<PyCFunction>(Interpreter_allocate_tensors), METH_NOARGS,
     "Prepares every op and plans the arena."},
    {"invoke", reinterpret_cast<PyCFunction>(Interpreter_invoke), METH_NOARGS,
     "Runs the model (releases the GIL)."},
    {"resize_input", reinterpret_cast<PyCFunction>(Interpreter_resize_input),
     METH_VARARGS, "resize_input(input_position, shape)"},
    {"inputs", reinterpret_cast<PyCFunction>(Interpreter_inputs), METH_NOARGS,
     "Tensor indices of the graph inputs."},
    {"outputs", reinterpret_cast<PyCFunction>(Interpreter_outputs), METH_NOARGS,
     "Tensor indices of the graph outputs."},
    {"num_tensors", reinterpret_cast<PyCFunction>(Interpreter_num_tensors),
     METH_NOARGS, "Number of tensors in the main subgraph."},
    {"tensor_info", reinterpret_cast<PyCFunction>(Interpreter_tensor_info),
     METH_O,
     "(name, type, shape, shape_signature, bytes, is_constant, buffer)"},
    {"tensor_buffer", reinterpret_cast<PyCFunction>(Interpreter_tensor_buffer),
     METH_O, "A buffer-protocol view of a tensor's memory."},
    {"set_tensor_fast",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(Interpreter_set_tensor_fast)),
     METH_FASTCALL,
     "set_tensor_fast(index, array) -> bool: copies an array of exactly the "
     "tensor's dtype and shape (C order); False, changing nothing, for any "
     "other value."},
    {"set_tensor_bytes",
     reinterpret_cast<PyCFunction>(Interpreter_set_tensor_bytes), METH_VARARGS,
     "Copies a contiguous buffer of exactly the tensor's size into it."},
    {"nodes", reinterpret_cast<PyCFunction>(Interpreter_nodes), METH_NOARGS,
     "[(op_name, version, inputs, outputs)] in execution order."},
    {"signatures", reinterpret_cast<PyCFunction>(Interpreter_signatures),
     METH_NOARGS, "[(key, inputs, outputs, subgraph_index)]"},
    {"model_info", reinterpret_cast<PyCFunction>(Interpreter_model_info),
     METH_NOARGS, "Model version, description, metadata and size."},
    {"arena_size", reinterpret_cast<PyCFunction>(Interpreter_arena_size),
     METH_NOARGS, "Bytes of the planned arena (0 before allocate_tensors)."},
    {"tensors_allocated",
     reinterpret_cast<PyCFunction>(Interpreter_tensors_allocated), METH_NOARGS,
     "True after a successful allocate_tensors() with nothing resized since."},
    {"profile_invoke",
     reinterpret_cast<PyCFunction>(Interpreter_profile_invoke), METH_O,
     "profile_invoke(runs) -> [microseconds of each node, summed over runs]"},
    {"num_views", reinterpret_cast<PyCFunction>(Interpreter_num_views),
     METH_NOARGS, "Live buffer views of tensor memory."},
    {"num_dynamic_views",
     reinterpret_cast<PyCFunction>(Interpreter_num_dynamic_views), METH_NOARGS,
     "Live buffer views of dynamic tensors (invoke refuses to run under "
     "one)."},
    {nullptr, nullptr, 0, nullptr},
};

PyTypeObject InterpreterType = {PyVarObject_HEAD_INIT(nullptr, 0)};

// ---------------------------------------------------------------------------
// TensorBuffer: exports one tensor's memory with its format and shape. It
// holds a reference to the interpreter, and the interpreter counts live
// exports so that allocate_tensors() refuses to move memory under a view.

struct TensorBufferObject {
  PyObject_HEAD InterpreterObject* owner;
  int index;
  int rank;
  Py_ssize_t shape[twl::kMaxDims];
};

PyObject* NewTensorBuffer(InterpreterObject* owner, int index) {
  TensorBufferObject* self =
      PyObject_New(TensorBufferObject, &TensorBufferType);
  if (self == nullptr) return nullptr;
  Py_INCREF(owner);
  self->owner = owner;
  self->index = index;
  const twl::Tensor* tensor = owner->state->interpreter->tensor(index);
  self->rank = tensor->shape.rank;
  for (int i = 0; i < self->rank; ++i) self->shape[i] = tensor->shape.dims[i];
  return reinterpret_cast<PyObject*>(self);
}

void TensorBuffer_dealloc(TensorBufferObject* self) {
  Py_XDECREF(self->owner);
  PyObject_Free(self);
}

int TensorBuffer_getbuffer(TensorBufferObject* self, Py_buffer* view,
                           int flags) {
  twl::Interpreter* interpreter = self->owner->state->interpreter.get();
  twl::Tensor* tensor = interpreter->tensor(self->index);
  if (!tensor->is_constant && !interpreter->tensors_allocated()) {
    PyErr_Format(PyExc_RuntimeError,
                 "tensor %d '%s' was resized or is not allocated: call "
                 "allocate_tensors() and ask for a new view",
                 self->index, tensor->name);
    return -1;
  }
  bool readonly = tensor->is_constant;
  if ((flags & PyBUF_WRITABLE) && readonly) {
    PyErr_Format(PyExc_BufferError, "tensor %d '%s' is a read-only constant",
                 self->index, tensor->name);
    return -1;
  }
  if (tensor->is_dynamic) {
    // Its shape is the one the last invoke gave it.
    self->rank = tensor->shape.rank;
    for (int i = 0; i < self->rank; ++i) self->shape[i] = tensor->shape.dims[i];
  }
  static char empty[8];
  Py_ssize_t itemsize =
      static_cast<Py_ssize_t>(twl::DataTypeSize(tensor->type));
  view->buf = tensor->data != nullptr ? tensor->data : empty;
  view->obj = reinterpret_cast<PyObject*>(self);
  Py_INCREF(self);
  view->len = static_cast<Py_ssize_t>(tensor->bytes);
  view->readonly = readonly ? 1 : 0;
  view->itemsize = itemsize;
  view->format = (flags & PyBUF_FORMAT)
                     ? const_cast<char*>(BufferFormat(tensor->type))
                     : nullptr;
  view->ndim = self->rank;
  view->shape = (flags & PyBUF_ND) ? self->shape : nullptr;
  view->strides = nullptr;  // C-contiguous
  view->suboffsets = nullptr;
  // Marks a view of a dynamic tensor (see dynamic_exports).
  view->internal = tensor->is_dynamic ? self : nullptr;
  if (tensor->is_dynamic) ++self->owner->dynamic_exports;
  ++self->owner->exports;
  return 0;
}

void TensorBuffer_releasebuffer(TensorBufferObject* self, Py_buffer* view) {
  if (view->internal != nullptr) --self->owner->dynamic_exports;
  --self->owner->exports;
}

PyBufferProcs kTensorBufferProcs = {
    reinterpret_cast<getbufferproc>(TensorBuffer_getbuffer),
    reinterpret_cast<releasebufferproc>(TensorBuffer_releasebuffer),
};

PyTypeObject TensorBufferType = {PyVarObject_HEAD_INIT(nullptr, 0)};

// ---------------------------------------------------------------------------
// Module.

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "_interpreter",
    "The lite runtime's CPython binding (private; use tensorweave_lite).",
    -1,
    nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__interpreter(void) {
  InterpreterType.tp_name = "tensorweave_lite._interpreter.Interpreter";
  InterpreterType.tp_basicsize = sizeof(InterpreterObject);
  InterpreterType.tp_flags = Py_TPFLAGS_DEFAULT;
  InterpreterType.tp_doc =
      "Interpreter(model_path=None, model_content=None, num_threads=1, "
      "verify_checksum=True)";
  InterpreterType.tp_new = PyType_GenericNew;
  InterpreterType.tp_init = reinterpret_cast<initproc>(Interpreter_init);
  InterpreterType.tp_dealloc =
      reinterpret_cast<destructor>(Interpreter_dealloc);
  InterpreterType.tp_methods = kInterpreterMethods;

  TensorBufferType.tp_name = "tensorweave_lite._interpreter.TensorBuffer";
  TensorBufferType.tp_basicsize = sizeof(TensorBufferObject);
  TensorBufferType.tp_flags = Py_TPFLAGS_DEFAULT;
  TensorBufferType.tp_doc = "Buffer-protocol view of one tensor's memory.";
  TensorBufferType.tp_dealloc =
      reinterpret_cast<destructor>(TensorBuffer_dealloc);
  TensorBufferType.tp_as_buffer = &kTensorBufferProcs;

  if (PyType_Ready(&InterpreterType) < 0) return nullptr;
  if (PyType_Ready(&TensorBufferType) < 0) return nullptr;
  PyObject* module = PyModule_Create(&kModule);
  if (module == nullptr) return nullptr;
  // The vector kernels this process runs ("avx512", "avx2", "sse2",
  // "neon"), and whether the build carries several sets to pick from.
  if (PyModule_AddStringConstant(module, "KERNEL_ISA", twl::KernelIsa()) < 0 ||
      PyModule_AddIntConstant(module, "MULTI_ISA", TWL_MULTI_ISA) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
  Py_INCREF(&InterpreterType);
  if (PyModule_AddObject(module, "Interpreter",
                         reinterpret_cast<PyObject*>(&InterpreterType)) < 0) {
    Py_DECREF(&InterpreterType);
    Py_DECREF(module);
    return nullptr;
  }
  PyModule_AddIntConstant(module, "SCHEMA_VERSION", twl::kSchemaVersion);
  return module;
}
