package org.tensorweave.lite;

import java.nio.ByteBuffer;

/**
 * The native methods over the lite C API ({@code lite/c/c_api.h}), implemented in {@code
 * libtensorweave_lite_jni.so}. Handles are C pointers; 0 means closed. Callers check their
 * arguments first; the native side re-checks handles, indices and byte ranges and throws
 * IllegalArgumentException (IllegalStateException for a closed handle) instead of crashing.
 */
final class NativeApi {
  static final String LIBRARY = "tensorweave_lite_jni";

  // Kinds of Java primitive arrays (interpreter_jni.cc: ArrayKind).
  static final int KIND_FLOAT = 0;
  static final int KIND_INT = 1;
  static final int KIND_LONG = 2;
  static final int KIND_BYTE = 3;
  static final int KIND_SHORT = 4;
  static final int KIND_DOUBLE = 5;
  static final int KIND_BOOLEAN = 6;

  static {
    System.loadLibrary(LIBRARY);
  }

  private NativeApi() {}

  /** The kind of a primitive array's elements, or -1 when it holds no primitives. */
  static int kindOf(Class<?> elementClass) {
    if (elementClass == float.class) {
      return KIND_FLOAT;
    } else if (elementClass == int.class) {
      return KIND_INT;
    } else if (elementClass == long.class) {
      return KIND_LONG;
    } else if (elementClass == byte.class) {
      return KIND_BYTE;
    } else if (elementClass == short.class) {
      return KIND_SHORT;
    } else if (elementClass == double.class) {
      return KIND_DOUBLE;
    } else if (elementClass == boolean.class) {
      return KIND_BOOLEAN;
    }
    return -1;
  }

  static native long createModelFromFile(String path);

  static native long createModelFromDirectBuffer(
      ByteBuffer buffer, int position, int size, boolean borrow);

  static native boolean isAlignedForModel(ByteBuffer buffer, int position);

  static native long createModelFromArray(byte[] array, int offset, int size);

  static native void deleteModel(long model);

  static native long createInterpreter(long model, int numThreads, boolean useReferenceKernels);

  static native void deleteInterpreter(long interpreter);

  static native void allocateTensors(long interpreter);

  static native void resizeInput(long interpreter, int index, int[] dims);

  static native void invoke(long interpreter);

  static native int inputCount(long interpreter);

  static native int outputCount(long interpreter);

  static native int tensorType(long interpreter, boolean isInput, int index);

  static native int[] tensorShape(long interpreter, boolean isInput, int index);

  static native long tensorByteSize(long interpreter, boolean isInput, int index);

  static native String tensorName(long interpreter, boolean isInput, int index);

  static native void copyBufferToInput(
      long interpreter, int index, ByteBuffer buffer, int position, int size);

  static native void copyTensorToBuffer(
      long interpreter, boolean isInput, int index, ByteBuffer buffer, int position, int size);

  static native void copyArray(
      long interpreter,
      boolean isInput,
      int index,
      boolean toArray,
      Object array,
      int kind,
      int offset,
      int length,
      long byteOffset);
}
