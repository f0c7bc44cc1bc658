/* classify: loads a .twl model, fills its first input with a constant
 * pattern (or the raw float32 bytes of a file), runs it and prints the
 * largest output.
 *
 *   classify model.twl [input.bin]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite/c/c_api.h"

static int Fail(const char* what, const char* message) {
  fprintf(stderr, "classify: %s: %s\n", what, message);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s model.twl [input.bin]\n", argv[0]);
    return 2;
  }
  TwlModel* model = twl_model_create_from_file(argv[1]);
  if (model == NULL) return Fail("load", twl_last_error_message());
  TwlInterpreterOptions* options = twl_interpreter_options_create();
  twl_interpreter_options_set_num_threads(options, 2);
  TwlInterpreter* interpreter = twl_interpreter_create(model, options);
  twl_interpreter_options_delete(options);
  if (interpreter == NULL) return Fail("create", twl_last_error_message());
  if (twl_interpreter_allocate_tensors(interpreter) != kTwlOk) {
    return Fail("allocate", twl_interpreter_error_message(interpreter));
  }
  TwlTensor* input = twl_interpreter_get_input_tensor(interpreter, 0);
  if (input == NULL || twl_tensor_type(input) != kTwlFloat32) {
    return Fail("input", "expected one float32 input");
  }
  size_t count = twl_tensor_byte_size(input) / sizeof(float);
  float* values = (float*)malloc(count * sizeof(float) + 1);
  if (argc > 2) {
    FILE* file = fopen(argv[2], "rb");
    if (file == NULL || fread(values, sizeof(float), count, file) != count) {
      return Fail("input file", argv[2]);
    }
    fclose(file);
  } else {
    for (size_t i = 0; i < count; ++i) values[i] = (float)(i % 17) / 17.0f;
  }
  twl_tensor_copy_from_buffer(input, values, count * sizeof(float));
  free(values);
  if (twl_interpreter_invoke(interpreter) != kTwlOk) {
    return Fail("invoke", twl_interpreter_error_message(interpreter));
  }
  const TwlTensor* output = twl_interpreter_get_output_tensor(interpreter, 0);
  const float* scores = (const float*)twl_tensor_data(output);
  int n = twl_tensor_dim(output, twl_tensor_num_dims(output) - 1);
  int best = 0;
  for (int i = 1; i < n; ++i) {
    if (scores[i] > scores[best]) best = i;
  }
  printf("output '%s': top class %d (score %.6f) of %d\n",
         twl_tensor_name(output), best, scores[best], n);
  twl_interpreter_delete(interpreter);
  twl_model_delete(model);
  return 0;
}
