/* tensorweave lite C API.
 *
 * A plain C99 interface to the lite runtime for apps and language bindings.
 * Every object is opaque and owned by the caller, who deletes it with the
 * matching twl_*_delete function. Typical use:
 *
 *   TwlModel* model = twl_model_create_from_file("model.twl");
 *   TwlInterpreterOptions* options = twl_interpreter_options_create();
 *   twl_interpreter_options_set_num_threads(options, 2);
 *   TwlInterpreter* interpreter = twl_interpreter_create(model, options);
 *   twl_interpreter_options_delete(options);
 *   twl_interpreter_allocate_tensors(interpreter);
 *   twl_tensor_copy_from_buffer(twl_interpreter_get_input_tensor(interpreter,
 * 0), input, sizeof(input)); twl_interpreter_invoke(interpreter);
 *   twl_tensor_copy_to_buffer(twl_interpreter_get_output_tensor(interpreter,
 * 0), output, sizeof(output)); twl_interpreter_delete(interpreter);
 *   twl_model_delete(model);
 *
 * Creation functions return NULL on failure; twl_last_error_message() then
 * says why (per thread). Functions on an interpreter return a TwlStatus and
 * twl_interpreter_error_message() gives the text of its last failure.
 * Tensor pointers stay valid until the interpreter is deleted; their data
 * pointers until the next twl_interpreter_allocate_tensors(). A dynamic
 * tensor (an output of NON_ZERO or NON_MAX_SUPPRESSION, or of an op reading
 * one) gets its shape, size and data pointer from each invoke: read them
 * after twl_interpreter_invoke(); they hold until the next invoke.
 */
#ifndef TENSORWEAVE_LITE_C_C_API_H_
#define TENSORWEAVE_LITE_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(TWL_BUILDING_C_API)
#define TWL_CAPI_EXPORT __attribute__((visibility("default")))
#else
#define TWL_CAPI_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TwlStatus {
  kTwlOk = 0,
  kTwlInvalidArgument = 1,
  kTwlInvalidModel = 2,
  kTwlUnsupported = 3,
  kTwlFailedPrecondition = 4,
  kTwlIoError = 5,
  kTwlResourceExhausted = 6,
  kTwlInternal = 7,
} TwlStatus;

/* Element types; values match the .twl schema's TensorType. */
typedef enum TwlType {
  kTwlNoType = -1, /* returned for a NULL tensor */
  kTwlFloat32 = 0,
  kTwlInt32 = 1,
  kTwlInt64 = 2,
  kTwlUInt8 = 3,
  kTwlInt8 = 4,
  kTwlBool = 5,
  kTwlFloat64 = 6,
  kTwlInt16 = 7,
  kTwlUInt16 = 8,
  kTwlUInt32 = 9,
  kTwlUInt64 = 10,
  kTwlFloat16 = 11, /* IEEE binary16 bits */
} TwlType;

typedef struct TwlModel TwlModel;
typedef struct TwlInterpreterOptions TwlInterpreterOptions;
typedef struct TwlInterpreter TwlInterpreter;
typedef struct TwlTensor TwlTensor;

/* Text of the last failed create call on this thread ("" if none). */
TWL_CAPI_EXPORT const char* twl_last_error_message(void);

/* Model loading. A .twl file may end in an integrity trailer (a CRC-32 of
 * the whole file, written by tensorweave-convert); when it is there it is
 * checked on load and a mismatch fails with "model is corrupt: ... checksum
 * mismatch (expected ..., got ...)". Files without one load as before.
 *
 * Who owns the bytes:
 *  - twl_model_create_from_file maps the file privately (read-only); the
 *    file must not be truncated or rewritten in place while the model lives
 *    (write a new file and rename it over the old one instead).
 *  - twl_model_create_from_buffer BORROWS `data`: the model reads it again
 *    after verifying it (weights are used in place), so the caller keeps the
 *    bytes alive and UNCHANGED until the model and every interpreter made
 *    from it are deleted; writing them meanwhile may crash or silently change
 *    results. `data` must be 16-byte aligned (64 for aligned weights).
 *  - twl_model_create_from_buffer_copy COPIES `data` first (any alignment)
 *    and verifies the copy; the caller may change or free `data` as soon as
 *    it returns. Use it for buffers you do not control.
 * All return NULL on failure (twl_last_error_message says why). */
TWL_CAPI_EXPORT TwlModel* twl_model_create_from_file(const char* path);
TWL_CAPI_EXPORT TwlModel* twl_model_create_from_buffer(const void* data,
                                                       size_t size);
TWL_CAPI_EXPORT TwlModel* twl_model_create_from_buffer_copy(const void* data,
                                                            size_t size);

/* Flags of the *_with_flags variants (bitwise or). */
enum {
  /* Do not check the integrity trailer's checksum (saves one pass over the
   * file at memory bandwidth); the structural verification still runs. */
  kTwlModelSkipChecksum = 1u << 0,
  /* Buffer variant: copy `data` first, as twl_model_create_from_buffer_copy
   * (ignored for files, which are always mapped). */
  kTwlModelCopyBuffer = 1u << 1
};
/* Unknown flag bits fail. */
TWL_CAPI_EXPORT TwlModel* twl_model_create_from_file_with_flags(
    const char* path, uint32_t flags);
TWL_CAPI_EXPORT TwlModel* twl_model_create_from_buffer_with_flags(
    const void* data, size_t size, uint32_t flags);
/* 1 when the model's file carries an integrity trailer, else 0. */
TWL_CAPI_EXPORT int twl_model_has_checksum(const TwlModel* model);
/* Safe to call while interpreters made from the model are alive: they keep
 * it until they are deleted. NULL is ignored. */
TWL_CAPI_EXPORT void twl_model_delete(TwlModel* model);

TWL_CAPI_EXPORT TwlInterpreterOptions* twl_interpreter_options_create(void);
/* Threads for large kernels, counting the caller (1..64; default 1). */
TWL_CAPI_EXPORT void twl_interpreter_options_set_num_threads(
    TwlInterpreterOptions* options, int num_threads);
/* Nonzero: run the plain reference kernels instead of the optimized ones
 * (default 0). Slower; for checking an optimized result on a device. */
TWL_CAPI_EXPORT void twl_interpreter_options_set_use_reference_kernels(
    TwlInterpreterOptions* options, int use_reference_kernels);
TWL_CAPI_EXPORT void twl_interpreter_options_delete(
    TwlInterpreterOptions* options);

/* `options` may be NULL (defaults); it is not retained. NULL on failure. */
TWL_CAPI_EXPORT TwlInterpreter* twl_interpreter_create(
    const TwlModel* model, const TwlInterpreterOptions* options);
TWL_CAPI_EXPORT void twl_interpreter_delete(TwlInterpreter* interpreter);

/* Prepares every op and plans all tensors into one arena. */
TWL_CAPI_EXPORT TwlStatus
twl_interpreter_allocate_tensors(TwlInterpreter* interpreter);
/* Sets input `index`'s shape; call allocate_tensors before the next invoke. */
TWL_CAPI_EXPORT TwlStatus twl_interpreter_resize_input_tensor(
    TwlInterpreter* interpreter, int index, const int* dims, int num_dims);
/* Runs the model; allocates no memory. */
TWL_CAPI_EXPORT TwlStatus twl_interpreter_invoke(TwlInterpreter* interpreter);
/* Per-op profiling (as LiteRT's op profiling): while set, `callback` is
 * called after every op of every invoke with the op's position in the
 * execution plan, its op name ("CONV_2D", ...) and its eval time in
 * microseconds, on the invoking thread. NULL removes it. The callback must
 * not call back into this interpreter. */
typedef void (*TwlOpProfileCallback)(void* user_data, int node_index,
                                     const char* op_name, double microseconds);
TWL_CAPI_EXPORT void twl_interpreter_set_op_profiler(
    TwlInterpreter* interpreter, TwlOpProfileCallback callback,
    void* user_data);
/* Text of the interpreter's last failure ("" if none). */
TWL_CAPI_EXPORT const char* twl_interpreter_error_message(
    const TwlInterpreter* interpreter);

TWL_CAPI_EXPORT int twl_interpreter_get_input_count(
    const TwlInterpreter* interpreter);
TWL_CAPI_EXPORT int twl_interpreter_get_output_count(
    const TwlInterpreter* interpreter);
/* NULL when `index` is out of range. */
TWL_CAPI_EXPORT TwlTensor* twl_interpreter_get_input_tensor(
    TwlInterpreter* interpreter, int index);
TWL_CAPI_EXPORT const TwlTensor* twl_interpreter_get_output_tensor(
    const TwlInterpreter* interpreter, int index);
/* Graph input/output by tensor name; NULL when absent. */
TWL_CAPI_EXPORT TwlTensor* twl_interpreter_get_input_tensor_by_name(
    TwlInterpreter* interpreter, const char* name);
TWL_CAPI_EXPORT const TwlTensor* twl_interpreter_get_output_tensor_by_name(
    const TwlInterpreter* interpreter, const char* name);
/* Tensor named `name` in signature `signature_key`; NULL when absent. */
TWL_CAPI_EXPORT TwlTensor* twl_interpreter_get_signature_input_tensor(
    TwlInterpreter* interpreter, const char* signature_key, const char* name);
TWL_CAPI_EXPORT const TwlTensor* twl_interpreter_get_signature_output_tensor(
    const TwlInterpreter* interpreter, const char* signature_key,
    const char* name);

TWL_CAPI_EXPORT TwlType twl_tensor_type(const TwlTensor* tensor);
TWL_CAPI_EXPORT int twl_tensor_num_dims(const TwlTensor* tensor);
/* -1 when `dim_index` is out of range. */
TWL_CAPI_EXPORT int twl_tensor_dim(const TwlTensor* tensor, int dim_index);
TWL_CAPI_EXPORT size_t twl_tensor_byte_size(const TwlTensor* tensor);
/* NULL before allocate_tensors. Constant tensors' data is read-only. */
TWL_CAPI_EXPORT void* twl_tensor_data(const TwlTensor* tensor);
TWL_CAPI_EXPORT const char* twl_tensor_name(const TwlTensor* tensor);
/* `size` must equal twl_tensor_byte_size(). */
TWL_CAPI_EXPORT TwlStatus twl_tensor_copy_from_buffer(TwlTensor* tensor,
                                                      const void* data,
                                                      size_t size);
TWL_CAPI_EXPORT TwlStatus twl_tensor_copy_to_buffer(const TwlTensor* tensor,
                                                    void* data, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORWEAVE_LITE_C_C_API_H_ */
