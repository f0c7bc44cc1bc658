// JNI binding of the lite C API (lite/c/c_api.h) for org.tensorweave.lite:
// the static native methods of NativeApi. Handles are C API pointers in a
// jlong. The Java side checks arguments first (null, closed interpreter,
// shapes, types); every function here re-checks what memory safety depends
// on (handles, indices, byte ranges) and throws IllegalArgumentException
// instead of crashing. Nothing here allocates per inference.
#include <jni.h>
#include <stdint.h>
#include <stdio.h>

#include "lite/c/c_api.h"

namespace {

// Element kinds of Java primitive arrays, as NativeApi.KIND_* numbers them.
enum ArrayKind {
  kFloatArray = 0,
  kIntArray = 1,
  kLongArray = 2,
  kByteArray = 3,
  kShortArray = 4,
  kDoubleArray = 5,
  kBooleanArray = 6,
};

void Throw(JNIEnv* env, const char* class_name, const char* message) {
  jclass exception_class = env->FindClass(class_name);
  if (exception_class != nullptr) env->ThrowNew(exception_class, message);
}

void ThrowIllegalArgument(JNIEnv* env, const char* message) {
  Throw(env, "java/lang/IllegalArgumentException", message);
}

// Throws IllegalArgumentException("<what>: <message>") when `status` fails.
bool Check(JNIEnv* env, TwlStatus status, const char* what,
           const char* message) {
  if (status == kTwlOk) return true;
  char text[1024];
  snprintf(text, sizeof(text), "%s: %s", what, message);
  ThrowIllegalArgument(env, text);
  return false;
}

TwlInterpreter* AsInterpreter(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    Throw(env, "java/lang/IllegalStateException",
          "the interpreter has been closed");
    return nullptr;
  }
  return reinterpret_cast<TwlInterpreter*>(handle);
}

// The graph input or output `index`; throws when out of range.
const TwlTensor* FindTensor(JNIEnv* env, jlong handle, jboolean is_input,
                            jint index) {
  TwlInterpreter* interpreter = AsInterpreter(env, handle);
  if (interpreter == nullptr) return nullptr;
  const TwlTensor* tensor =
      is_input ? twl_interpreter_get_input_tensor(interpreter, index)
               : twl_interpreter_get_output_tensor(interpreter, index);
  if (tensor == nullptr) {
    char text[128];
    snprintf(text, sizeof(text), "%s index %d is out of range (%d %ss)",
             is_input ? "input" : "output", index,
             is_input ? twl_interpreter_get_input_count(interpreter)
                      : twl_interpreter_get_output_count(interpreter),
             is_input ? "input" : "output");
    ThrowIllegalArgument(env, text);
  }
  return tensor;
}

// The `size` bytes at `byte_offset` of the tensor's data; throws when the
// range is not inside the allocated tensor.
uint8_t* TensorBytes(JNIEnv* env, const TwlTensor* tensor, jlong byte_offset,
                     jlong size) {
  uint8_t* data = static_cast<uint8_t*>(twl_tensor_data(tensor));
  jlong bytes = static_cast<jlong>(twl_tensor_byte_size(tensor));
  if (data == nullptr && bytes != 0) {
    ThrowIllegalArgument(env, "tensor is not allocated");
    return nullptr;
  }
  if (byte_offset < 0 || size < 0 || byte_offset > bytes - size) {
    char text[256];
    snprintf(text, sizeof(text),
             "tensor '%s' holds %lld bytes, cannot access %lld at %lld",
             twl_tensor_name(tensor), static_cast<long long>(bytes),
             static_cast<long long>(size), static_cast<long long>(byte_offset));
    ThrowIllegalArgument(env, text);
    return nullptr;
  }
  return data + byte_offset;
}

// The address of `position` in a direct buffer with `size` bytes after it.
uint8_t* DirectBytes(JNIEnv* env, jobject buffer, jint position, jint size) {
  uint8_t* address = static_cast<uint8_t*>(env->GetDirectBufferAddress(buffer));
  jlong capacity = env->GetDirectBufferCapacity(buffer);
  if (address == nullptr || position < 0 || size < 0 ||
      position > capacity - size) {
    ThrowIllegalArgument(env, "not a direct buffer with that many bytes");
    return nullptr;
  }
  return address + position;
}

int ElementSize(jint kind) {
  switch (kind) {
    case kLongArray:
    case kDoubleArray:
      return 8;
    case kFloatArray:
    case kIntArray:
      return 4;
    case kShortArray:
      return 2;
    default:
      return 1;
  }
}

// Copies `length` elements of a primitive array at `offset` to (to_array
// false) or from `bytes`.
void CopyArray(JNIEnv* env, jarray array, jint kind, jint offset, jint length,
               uint8_t* bytes, bool to_array) {
#define TWL_COPY_ARRAY(KIND, JTYPE, Name)                                   \
  case KIND:                                                                \
    if (to_array) {                                                         \
      env->Set##Name##ArrayRegion(static_cast<JTYPE##Array>(array), offset, \
                                  length,                                   \
                                  reinterpret_cast<const JTYPE*>(bytes));   \
    } else {                                                                \
      env->Get##Name##ArrayRegion(static_cast<JTYPE##Array>(array), offset, \
                                  length, reinterpret_cast<JTYPE*>(bytes)); \
    }                                                                       \
    return;
  switch (kind) {
    TWL_COPY_ARRAY(kFloatArray, jfloat, Float)
    TWL_COPY_ARRAY(kIntArray, jint, Int)
    TWL_COPY_ARRAY(kLongArray, jlong, Long)
    TWL_COPY_ARRAY(kByteArray, jbyte, Byte)
    TWL_COPY_ARRAY(kShortArray, jshort, Short)
    TWL_COPY_ARRAY(kDoubleArray, jdouble, Double)
    TWL_COPY_ARRAY(kBooleanArray, jboolean, Boolean)
    default:
      ThrowIllegalArgument(env, "unknown array kind");
  }
#undef TWL_COPY_ARRAY
}

jlong ModelOrThrow(JNIEnv* env, TwlModel* model) {
  if (model == nullptr) {
    Check(env, kTwlInvalidModel, "cannot load the model",
          twl_last_error_message());
  }
  return reinterpret_cast<jlong>(model);
}

}  // namespace

#define TWL_JNI(return_type, name)         \
  extern "C" JNIEXPORT return_type JNICALL \
      Java_org_tensorweave_lite_NativeApi_##name

TWL_JNI(jlong, createModelFromFile)(JNIEnv* env, jclass, jstring path) {
  const char* chars = env->GetStringUTFChars(path, nullptr);
  if (chars == nullptr) return 0;
  TwlModel* model = twl_model_create_from_file(chars);
  env->ReleaseStringUTFChars(path, chars);
  return ModelOrThrow(env, model);
}

// Borrows the buffer's bytes when they are 16-byte aligned (the caller then
// keeps the buffer alive and unchanged), else copies them.
TWL_JNI(jlong, createModelFromDirectBuffer)
(JNIEnv* env, jclass, jobject buffer, jint position, jint size,
 jboolean borrow) {
  uint8_t* data = DirectBytes(env, buffer, position, size);
  if (data == nullptr) return 0;
  return ModelOrThrow(env, twl_model_create_from_buffer_with_flags(
                               data, size, borrow ? 0 : kTwlModelCopyBuffer));
}

TWL_JNI(jboolean, isAlignedForModel)
(JNIEnv* env, jclass, jobject buffer, jint position) {
  uint8_t* data = DirectBytes(env, buffer, position, 0);
  return data != nullptr && reinterpret_cast<uintptr_t>(data) % 16 == 0;
}

TWL_JNI(jlong, createModelFromArray)
(JNIEnv* env, jclass, jbyteArray array, jint offset, jint size) {
  if (offset < 0 || size < 0 || offset > env->GetArrayLength(array) - size) {
    ThrowIllegalArgument(env, "model array range out of bounds");
    return 0;
  }
  void* data = env->GetPrimitiveArrayCritical(array, nullptr);
  if (data == nullptr) return 0;
  // Copies before the critical section ends; no JNI calls in between.
  TwlModel* model = twl_model_create_from_buffer_copy(
      static_cast<uint8_t*>(data) + offset, size);
  env->ReleasePrimitiveArrayCritical(array, data, JNI_ABORT);
  return ModelOrThrow(env, model);
}

TWL_JNI(void, deleteModel)(JNIEnv*, jclass, jlong model) {
  twl_model_delete(reinterpret_cast<TwlModel*>(model));
}

TWL_JNI(jlong, createInterpreter)
(JNIEnv* env, jclass, jlong model, jint num_threads,
 jboolean use_reference_kernels) {
  TwlInterpreterOptions* options = twl_interpreter_options_create();
  if (options == nullptr) {
    Throw(env, "java/lang/OutOfMemoryError", "interpreter options");
    return 0;
  }
  twl_interpreter_options_set_num_threads(options, num_threads);
  twl_interpreter_options_set_use_reference_kernels(options,
                                                    use_reference_kernels);
  TwlInterpreter* interpreter =
      twl_interpreter_create(reinterpret_cast<TwlModel*>(model), options);
  twl_interpreter_options_delete(options);
  if (interpreter == nullptr) {
    Check(env, kTwlInvalidArgument, "cannot create the interpreter",
          twl_last_error_message());
  }
  return reinterpret_cast<jlong>(interpreter);
}

TWL_JNI(void, deleteInterpreter)(JNIEnv*, jclass, jlong handle) {
  twl_interpreter_delete(reinterpret_cast<TwlInterpreter*>(handle));
}

TWL_JNI(void, allocateTensors)(JNIEnv* env, jclass, jlong handle) {
  TwlInterpreter* interpreter = AsInterpreter(env, handle);
  if (interpreter == nullptr) return;
  Check(env, twl_interpreter_allocate_tensors(interpreter),
        "allocateTensors failed", twl_interpreter_error_message(interpreter));
}

TWL_JNI(void, resizeInput)
(JNIEnv* env, jclass, jlong handle, jint index, jintArray dims) {
  TwlInterpreter* interpreter = AsInterpreter(env, handle);
  if (interpreter == nullptr) return;
  jint rank = env->GetArrayLength(dims);
  int values[16];
  if (rank > 16) {
    ThrowIllegalArgument(env, "resizeInput: more than 16 dimensions");
    return;
  }
  env->GetIntArrayRegion(dims, 0, rank, values);
  Check(env,
        twl_interpreter_resize_input_tensor(interpreter, index, values, rank),
        "resizeInput failed", twl_interpreter_error_message(interpreter));
}

TWL_JNI(void, invoke)(JNIEnv* env, jclass, jlong handle) {
  TwlInterpreter* interpreter = AsInterpreter(env, handle);
  if (interpreter == nullptr) return;
  Check(env, twl_interpreter_invoke(interpreter), "run failed",
        twl_interpreter_error_message(interpreter));
}

TWL_JNI(jint, inputCount)(JNIEnv* env, jclass, jlong handle) {
  TwlInterpreter* interpreter = AsInterpreter(env, handle);
  return interpreter ? twl_interpreter_get_input_count(interpreter) : 0;
}

TWL_JNI(jint, outputCount)(JNIEnv* env, jclass, jlong handle) {
  TwlInterpreter* interpreter = AsInterpreter(env, handle);
  return interpreter ? twl_interpreter_get_output_count(interpreter) : 0;
}

TWL_JNI(jint, tensorType)
(JNIEnv* env, jclass, jlong handle, jboolean is_input, jint index) {
  const TwlTensor* tensor = FindTensor(env, handle, is_input, index);
  return tensor ? twl_tensor_type(tensor) : kTwlNoType;
}

TWL_JNI(jintArray, tensorShape)
(JNIEnv* env, jclass, jlong handle, jboolean is_input, jint index) {
  const TwlTensor* tensor = FindTensor(env, handle, is_input, index);
  if (tensor == nullptr) return nullptr;
  jint rank = twl_tensor_num_dims(tensor);
  jintArray shape = env->NewIntArray(rank);
  if (shape == nullptr) return nullptr;
  for (jint i = 0; i < rank; ++i) {
    jint dim = twl_tensor_dim(tensor, i);
    env->SetIntArrayRegion(shape, i, 1, &dim);
  }
  return shape;
}

TWL_JNI(jlong, tensorByteSize)
(JNIEnv* env, jclass, jlong handle, jboolean is_input, jint index) {
  const TwlTensor* tensor = FindTensor(env, handle, is_input, index);
  return tensor ? static_cast<jlong>(twl_tensor_byte_size(tensor)) : 0;
}

TWL_JNI(jstring, tensorName)
(JNIEnv* env, jclass, jlong handle, jboolean is_input, jint index) {
  const TwlTensor* tensor = FindTensor(env, handle, is_input, index);
  return tensor ? env->NewStringUTF(twl_tensor_name(tensor)) : nullptr;
}

// Input `index` <- `size` bytes of a direct buffer at `position`.
TWL_JNI(void, copyBufferToInput)
(JNIEnv* env, jclass, jlong handle, jint index, jobject buffer, jint position,
 jint size) {
  const TwlTensor* tensor = FindTensor(env, handle, true, index);
  if (tensor == nullptr) return;
  uint8_t* data = DirectBytes(env, buffer, position, size);
  if (data == nullptr) return;
  // The input tensor is not constant: get_input_tensor returns it mutable.
  TwlTensor* input =
      twl_interpreter_get_input_tensor(AsInterpreter(env, handle), index);
  Check(env, twl_tensor_copy_from_buffer(input, data, size),
        "cannot copy the input", twl_last_error_message());
}

// A direct buffer's `size` bytes at `position` <- the input or output tensor.
TWL_JNI(void, copyTensorToBuffer)
(JNIEnv* env, jclass, jlong handle, jboolean is_input, jint index,
 jobject buffer, jint position, jint size) {
  const TwlTensor* tensor = FindTensor(env, handle, is_input, index);
  if (tensor == nullptr) return;
  uint8_t* data = DirectBytes(env, buffer, position, size);
  if (data == nullptr) return;
  Check(env, twl_tensor_copy_to_buffer(tensor, data, size),
        "cannot copy the output", twl_last_error_message());
}

// Copies `length` elements of a primitive array (at `offset`) into input
// `index` at `byte_offset`, or (to_array) the input or output tensor's bytes
// at `byte_offset` into the array.
TWL_JNI(void, copyArray)
(JNIEnv* env, jclass, jlong handle, jboolean is_input, jint index,
 jboolean to_array, jarray array, jint kind, jint offset, jint length,
 jlong byte_offset) {
  const TwlTensor* tensor = FindTensor(env, handle, is_input, index);
  if (tensor == nullptr) return;
  if (!to_array && !is_input) {
    ThrowIllegalArgument(env, "outputs are read-only");
    return;
  }
  if (offset < 0 || length < 0 ||
      offset > env->GetArrayLength(array) - length) {
    ThrowIllegalArgument(env, "array range out of bounds");
    return;
  }
  uint8_t* bytes = TensorBytes(env, tensor, byte_offset,
                               static_cast<jlong>(length) * ElementSize(kind));
  if (bytes == nullptr) return;
  CopyArray(env, array, kind, offset, length, bytes, to_array);
}
