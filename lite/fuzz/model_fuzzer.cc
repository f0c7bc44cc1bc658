// libFuzzer entry point: bytes -> Model -> Interpreter -> AllocateTensors ->
// Invoke. Any input must end in an error status or a completed run; a
// crash, hang, leak or sanitizer report is a bug.
//
// With clang:  clang++ -std=c++17 -fsanitize=fuzzer,address,undefined ...
// (see BUILD, target :model_fuzzer). Without clang, model_fuzzer_test runs
// this same function over generated mutations of valid models.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "lite/runtime/interpreter.h"

namespace twl {

// Returns 0 when the model was rejected, 1 when it loaded but failed later,
// 2 when it ran to completion.
int RunModelBytes(const uint8_t* data, size_t size) {
  // Models must be 16-byte aligned; copy into aligned memory as a mapped
  // file would be.
  void* aligned = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  if (aligned == nullptr) return 0;
  if (size != 0) memcpy(aligned, data, size);
  int result = 0;
  std::unique_ptr<Model> model;
  if (Model::CreateFromBuffer(aligned, size, &model).ok()) {
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
  free(aligned);
  return result;
}

}  // namespace twl

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  twl::RunModelBytes(data, size);
  return 0;
}
