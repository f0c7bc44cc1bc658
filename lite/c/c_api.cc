// The C API over twl::Model and twl::Interpreter. TwlTensor is a
// twl::Tensor; the other handles are small owning structs.
#include "lite/c/c_api.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "lite/runtime/interpreter.h"

struct TwlModel {
  std::shared_ptr<twl::Model> model;
};

struct TwlInterpreterOptions {
  twl::InterpreterOptions options;
};

// Forwards the interpreter's per-node times to a C callback.
class CallbackProfiler : public twl::Profiler {
 public:
  void OnNodeDone(int node, twl::BuiltinOperator op,
                  double microseconds) override {
    callback(user_data, node, twl::OpName(op), microseconds);
  }
  TwlOpProfileCallback callback = nullptr;
  void* user_data = nullptr;
};

struct TwlInterpreter {
  std::shared_ptr<twl::Model> model;  // keeps the model alive
  twl::OpResolver resolver;
  std::unique_ptr<twl::Interpreter> interpreter;
  CallbackProfiler profiler;
  char error[twl::Status::kMaxMessage] = "";
};

namespace {

static_assert(kTwlInternal == static_cast<int>(twl::StatusCode::kInternal) &&
                  kTwlIoError == static_cast<int>(twl::StatusCode::kIoError),
              "TwlStatus must mirror twl::StatusCode");
static_assert(kTwlBool == static_cast<int>(twl::DataType::kBool) &&
                  kTwlFloat16 == static_cast<int>(twl::DataType::kFloat16) &&
                  kTwlInt64 == static_cast<int>(twl::DataType::kInt64),
              "TwlType must mirror twl::DataType");

thread_local char g_last_error[twl::Status::kMaxMessage] = "";

void SetLastError(const char* message) {
  snprintf(g_last_error, sizeof(g_last_error), "%s", message);
}

TwlStatus ToC(const twl::Status& status) {
  if (!status.ok()) SetLastError(status.message());
  return static_cast<TwlStatus>(status.code());
}

TwlStatus Record(TwlInterpreter* interpreter, const twl::Status& status) {
  if (!status.ok()) {
    snprintf(interpreter->error, sizeof(interpreter->error), "%s",
             status.message());
  }
  return ToC(status);
}

twl::Tensor* Unwrap(TwlTensor* tensor) {
  return reinterpret_cast<twl::Tensor*>(tensor);
}
const twl::Tensor* Unwrap(const TwlTensor* tensor) {
  return reinterpret_cast<const twl::Tensor*>(tensor);
}
TwlTensor* Wrap(twl::Tensor* tensor) {
  return reinterpret_cast<TwlTensor*>(tensor);
}

TwlModel* WrapModel(twl::Status status, std::unique_ptr<twl::Model> model) {
  if (!status.ok()) {
    SetLastError(status.message());
    return nullptr;
  }
  TwlModel* result = new (std::nothrow) TwlModel();
  if (result == nullptr) {
    SetLastError("out of memory");
    return nullptr;
  }
  result->model = std::shared_ptr<twl::Model>(model.release());
  return result;
}

twl::ModelOptions ModelOptionsOf(uint32_t flags, bool copy) {
  twl::ModelOptions options;
  options.verify_checksum = (flags & kTwlModelSkipChecksum) == 0;
  options.copy_buffer = copy || (flags & kTwlModelCopyBuffer) != 0;
  return options;
}

TwlModel* InvalidFlags(uint32_t flags) {
  char text[128];
  snprintf(text, sizeof(text),
           "unknown model flags 0x%x (known: kTwlModelSkipChecksum, "
           "kTwlModelCopyBuffer)",
           flags);
  SetLastError(text);
  return nullptr;
}

constexpr uint32_t kKnownModelFlags =
    kTwlModelSkipChecksum | kTwlModelCopyBuffer;

twl::Status NullArgument(const char* what) {
  return twl::Status::Error(twl::StatusCode::kInvalidArgument, "%s is NULL",
                            what);
}

}  // namespace

extern "C" {

const char* twl_last_error_message(void) { return g_last_error; }

TwlModel* twl_model_create_from_file(const char* path) {
  std::unique_ptr<twl::Model> model;
  twl::Status status = twl::Model::CreateFromFile(path, &model);
  return WrapModel(status, std::move(model));
}

TwlModel* twl_model_create_from_buffer(const void* data, size_t size) {
  std::unique_ptr<twl::Model> model;
  twl::Status status = twl::Model::CreateFromBuffer(data, size, &model);
  return WrapModel(status, std::move(model));
}

TwlModel* twl_model_create_from_buffer_copy(const void* data, size_t size) {
  return twl_model_create_from_buffer_with_flags(data, size,
                                                 kTwlModelCopyBuffer);
}

TwlModel* twl_model_create_from_file_with_flags(const char* path,
                                                uint32_t flags) {
  if ((flags & ~kKnownModelFlags) != 0) return InvalidFlags(flags);
  std::unique_ptr<twl::Model> model;
  twl::Status status = twl::Model::CreateFromFile(
      path, ModelOptionsOf(flags & ~kTwlModelCopyBuffer, false), &model);
  return WrapModel(status, std::move(model));
}

TwlModel* twl_model_create_from_buffer_with_flags(const void* data, size_t size,
                                                  uint32_t flags) {
  if ((flags & ~kKnownModelFlags) != 0) return InvalidFlags(flags);
  std::unique_ptr<twl::Model> model;
  twl::Status status = twl::Model::CreateFromBuffer(
      data, size, ModelOptionsOf(flags, false), &model);
  return WrapModel(status, std::move(model));
}

int twl_model_has_checksum(const TwlModel* model) {
  return model != nullptr && model->model->has_checksum() ? 1 : 0;
}

void twl_model_delete(TwlModel* model) { delete model; }

TwlInterpreterOptions* twl_interpreter_options_create(void) {
  return new (std::nothrow) TwlInterpreterOptions();
}

void twl_interpreter_options_set_num_threads(TwlInterpreterOptions* options,
                                             int num_threads) {
  if (options != nullptr) options->options.num_threads = num_threads;
}

void twl_interpreter_options_set_use_reference_kernels(
    TwlInterpreterOptions* options, int use_reference_kernels) {
  if (options != nullptr) {
    options->options.use_reference_kernels = use_reference_kernels != 0;
  }
}

void twl_interpreter_options_delete(TwlInterpreterOptions* options) {
  delete options;
}

TwlInterpreter* twl_interpreter_create(const TwlModel* model,
                                       const TwlInterpreterOptions* options) {
  if (model == nullptr) {
    SetLastError("model is NULL");
    return nullptr;
  }
  std::unique_ptr<TwlInterpreter> result(new (std::nothrow) TwlInterpreter());
  if (!result) {
    SetLastError("out of memory");
    return nullptr;
  }
  result->model = model->model;
  twl::Status status = twl::RegisterBuiltinKernels(&result->resolver);
  if (status.ok()) {
    status = twl::Interpreter::Create(
        result->model.get(), &result->resolver,
        options ? options->options : twl::InterpreterOptions(),
        &result->interpreter);
  }
  if (!status.ok()) {
    SetLastError(status.message());
    return nullptr;
  }
  return result.release();
}

void twl_interpreter_delete(TwlInterpreter* interpreter) { delete interpreter; }

TwlStatus twl_interpreter_allocate_tensors(TwlInterpreter* interpreter) {
  if (interpreter == nullptr) return ToC(NullArgument("interpreter"));
  return Record(interpreter, interpreter->interpreter->AllocateTensors());
}

TwlStatus twl_interpreter_resize_input_tensor(TwlInterpreter* interpreter,
                                              int index, const int* dims,
                                              int num_dims) {
  if (interpreter == nullptr) return ToC(NullArgument("interpreter"));
  if (dims == nullptr && num_dims > 0) {
    return Record(interpreter, NullArgument("dims"));
  }
  twl::Shape shape;
  twl::Status status = twl::MakeShape(dims, num_dims, &shape);
  if (status.ok()) {
    status = interpreter->interpreter->ResizeInputTensor(index, shape);
  }
  return Record(interpreter, status);
}

TwlStatus twl_interpreter_invoke(TwlInterpreter* interpreter) {
  if (interpreter == nullptr) return ToC(NullArgument("interpreter"));
  return Record(interpreter, interpreter->interpreter->Invoke());
}

void twl_interpreter_set_op_profiler(TwlInterpreter* interpreter,
                                     TwlOpProfileCallback callback,
                                     void* user_data) {
  if (interpreter == nullptr) return;
  interpreter->profiler.callback = callback;
  interpreter->profiler.user_data = user_data;
  interpreter->interpreter->set_profiler(
      callback != nullptr ? &interpreter->profiler : nullptr);
}

const char* twl_interpreter_error_message(const TwlInterpreter* interpreter) {
  return interpreter == nullptr ? "interpreter is NULL" : interpreter->error;
}

int twl_interpreter_get_input_count(const TwlInterpreter* interpreter) {
  return interpreter ? interpreter->interpreter->num_inputs() : 0;
}

int twl_interpreter_get_output_count(const TwlInterpreter* interpreter) {
  return interpreter ? interpreter->interpreter->num_outputs() : 0;
}

TwlTensor* twl_interpreter_get_input_tensor(TwlInterpreter* interpreter,
                                            int index) {
  if (interpreter == nullptr || index < 0 ||
      index >= interpreter->interpreter->num_inputs()) {
    return nullptr;
  }
  return Wrap(interpreter->interpreter->input(index));
}

const TwlTensor* twl_interpreter_get_output_tensor(
    const TwlInterpreter* interpreter, int index) {
  if (interpreter == nullptr || index < 0 ||
      index >= interpreter->interpreter->num_outputs()) {
    return nullptr;
  }
  return Wrap(interpreter->interpreter->output(index));
}

TwlTensor* twl_interpreter_get_input_tensor_by_name(TwlInterpreter* interpreter,
                                                    const char* name) {
  if (interpreter == nullptr || name == nullptr) return nullptr;
  return twl_interpreter_get_input_tensor(
      interpreter, interpreter->interpreter->FindInput(name));
}

const TwlTensor* twl_interpreter_get_output_tensor_by_name(
    const TwlInterpreter* interpreter, const char* name) {
  if (interpreter == nullptr || name == nullptr) return nullptr;
  return twl_interpreter_get_output_tensor(
      interpreter, interpreter->interpreter->FindOutput(name));
}

TwlTensor* twl_interpreter_get_signature_input_tensor(
    TwlInterpreter* interpreter, const char* signature_key, const char* name) {
  if (interpreter == nullptr || signature_key == nullptr || name == nullptr) {
    return nullptr;
  }
  return Wrap(
      interpreter->interpreter->FindSignatureTensor(signature_key, name, true));
}

const TwlTensor* twl_interpreter_get_signature_output_tensor(
    const TwlInterpreter* interpreter, const char* signature_key,
    const char* name) {
  if (interpreter == nullptr || signature_key == nullptr || name == nullptr) {
    return nullptr;
  }
  return Wrap(interpreter->interpreter->FindSignatureTensor(signature_key, name,
                                                            false));
}

TwlType twl_tensor_type(const TwlTensor* tensor) {
  if (tensor == nullptr) return kTwlNoType;
  return static_cast<TwlType>(Unwrap(tensor)->type);
}

int twl_tensor_num_dims(const TwlTensor* tensor) {
  return tensor ? Unwrap(tensor)->shape.rank : 0;
}

int twl_tensor_dim(const TwlTensor* tensor, int dim_index) {
  if (tensor == nullptr || dim_index < 0 ||
      dim_index >= Unwrap(tensor)->shape.rank) {
    return -1;
  }
  return Unwrap(tensor)->shape.dims[dim_index];
}

size_t twl_tensor_byte_size(const TwlTensor* tensor) {
  return tensor ? Unwrap(tensor)->bytes : 0;
}

void* twl_tensor_data(const TwlTensor* tensor) {
  return tensor ? Unwrap(tensor)->data : nullptr;
}

const char* twl_tensor_name(const TwlTensor* tensor) {
  return tensor ? Unwrap(tensor)->name : "";
}

TwlStatus twl_tensor_copy_from_buffer(TwlTensor* tensor, const void* data,
                                      size_t size) {
  if (tensor == nullptr || data == nullptr) {
    return ToC(NullArgument("tensor or data"));
  }
  twl::Tensor* t = Unwrap(tensor);
  if (t->is_constant) {
    return ToC(twl::Status::Error(twl::StatusCode::kInvalidArgument,
                                  "tensor '%s' is a constant", t->name));
  }
  if (size != t->bytes) {
    return ToC(twl::Status::Error(twl::StatusCode::kInvalidArgument,
                                  "tensor '%s' holds %zu bytes, got %zu",
                                  t->name, t->bytes, size));
  }
  if (t->data == nullptr && size != 0) {
    return ToC(twl::Status::Error(twl::StatusCode::kFailedPrecondition,
                                  "tensor '%s' is not allocated", t->name));
  }
  if (size != 0) memcpy(t->data, data, size);
  return kTwlOk;
}

TwlStatus twl_tensor_copy_to_buffer(const TwlTensor* tensor, void* data,
                                    size_t size) {
  if (tensor == nullptr || data == nullptr) {
    return ToC(NullArgument("tensor or data"));
  }
  const twl::Tensor* t = Unwrap(tensor);
  if (size != t->bytes) {
    return ToC(twl::Status::Error(twl::StatusCode::kInvalidArgument,
                                  "tensor '%s' holds %zu bytes, got %zu",
                                  t->name, t->bytes, size));
  }
  if (t->data == nullptr && size != 0) {
    return ToC(twl::Status::Error(twl::StatusCode::kFailedPrecondition,
                                  "tensor '%s' is not allocated", t->name));
  }
  if (size != 0) memcpy(data, t->data, size);
  return kTwlOk;
}

}  // extern "C"
