// libFuzzer entry point: bytes -> Model -> Interpreter -> AllocateTensors ->
// Invoke. Any input must end in an error status or a completed run; a
// crash, hang, leak or sanitizer report is a bug.
//
// With clang:  clang++ -std=c++17 -fsanitize=fuzzer,address,undefined ...
// (see BUILD, target :model_fuzzer). Without clang, model_fuzzer_test runs
// this same function over generated mutations of valid models.
#include <cstdint>
#include <cstring>
#include <memory>

#include "lite/runtime/checksum.h"
#include "lite/runtime/interpreter.h"

namespace twl {

// Returns 0 when the model was rejected, 1 when it loaded but failed later,
// 2 when it ran to completion.
int RunModelBytes(const uint8_t* data, size_t size) {
  // The integrity trailer's parsing and check run on every input; the
  // model is then loaded without the checksum (mutations would rarely get
  // past it) from a copy the model owns, as Python's model_content is, so
  // the verifier and the interpreter see every mutation.
  Integrity integrity;
  static_cast<void>(CheckIntegrity(data, size, /*verify=*/true, &integrity));
  ModelOptions model_options;
  model_options.verify_checksum = false;
  model_options.copy_buffer = true;
  int result = 0;
  std::unique_ptr<Model> model;
  static const uint8_t kEmpty[1] = {0};
  if (Model::CreateFromBuffer(data == nullptr ? kEmpty : data, size,
                              model_options, &model)
          .ok()) {
    result = 1;
    OpResolver resolver;
    std::unique_ptr<Interpreter> interpreter;
    InterpreterOptions options;
    options.max_arena_bytes = size_t{64} << 20;  // keep fuzzing fast
    if (RegisterBuiltinKernels(&resolver).ok() &&
        Interpreter::Create(model.get(), &resolver, options, &interpreter)
            .ok() &&
        interpreter->AllocateTensors().ok()) {
      for (int i = 0; i < interpreter->num_inputs(); ++i) {
        Tensor* t = interpreter->input(i);
        if (t->data != nullptr) memset(t->data, 0, t->bytes);
      }
      if (interpreter->Invoke().ok()) result = 2;
    }
  }
  return result;
}

}  // namespace twl

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  twl::RunModelBytes(data, size);
  return 0;
}
