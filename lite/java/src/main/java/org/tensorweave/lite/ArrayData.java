package org.tensorweave.lite;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Shapes of (multi-dimensional) Java primitive arrays and their copies to and from tensors. */
final class ArrayData {
  private ArrayData() {}

  /**
   * The shape of a rectangular primitive array such as {@code float[2][3]}; throws
   * IllegalArgumentException for anything else (null or ragged rows, mixed element types, an empty
   * dimension other than the last).
   */
  static int[] shapeOf(Object array, String what) {
    if (array == null || !array.getClass().isArray()) {
      throw new IllegalArgumentException(
          what
              + " must be a ByteBuffer or a primitive array, got "
              + (array == null ? "null" : array.getClass().getName()));
    }
    List<Integer> dims = new ArrayList<>();
    Object row = array;
    while (true) {
      int length = Array.getLength(row);
      dims.add(length);
      if (row.getClass().getComponentType().isPrimitive()) {
        break;
      }
      row = length > 0 ? Array.get(row, 0) : null;
      if (row == null || !row.getClass().isArray()) {
        throw new IllegalArgumentException(
            what
                + " must be a rectangular primitive array, got "
                + array.getClass().getName()
                + " with "
                + (length == 0 ? "an empty dimension" : row + " as an element"));
      }
    }
    int[] shape = new int[dims.size()];
    for (int i = 0; i < shape.length; i++) {
      shape[i] = dims.get(i);
    }
    check(array, shape, 0, row.getClass(), what);
    return shape;
  }

  /** The primitive element class of a valid array of {@link #shapeOf}. */
  static Class<?> elementClassOf(Object array) {
    Object row = array;
    while (!row.getClass().getComponentType().isPrimitive()) {
      row = Array.get(row, 0);
    }
    return row.getClass().getComponentType();
  }

  /**
   * Copies a valid array of {@code shapeOf} with {@code bytesPerElement} into input {@code index}
   * (or, {@code toArray}, the tensor into the array), row by row from {@code byteOffset}; returns
   * the byte offset after the last row.
   */
  static long copy(
      long interpreter,
      boolean isInput,
      int index,
      boolean toArray,
      Object array,
      int kind,
      int bytesPerElement,
      long byteOffset) {
    if (array.getClass().getComponentType().isPrimitive()) {
      int length = Array.getLength(array);
      NativeApi.copyArray(interpreter, isInput, index, toArray, array, kind, 0, length, byteOffset);
      return byteOffset + (long) length * bytesPerElement;
    }
    for (Object row : (Object[]) array) {
      byteOffset =
          copy(interpreter, isInput, index, toArray, row, kind, bytesPerElement, byteOffset);
    }
    return byteOffset;
  }

  private static void check(Object row, int[] shape, int depth, Class<?> leafClass, String what) {
    if (row == null || !row.getClass().isArray() || Array.getLength(row) != shape[depth]) {
      throw new IllegalArgumentException(
          what + " is not a rectangular array of shape " + Arrays.toString(shape));
    }
    if (depth + 1 == shape.length) {
      if (row.getClass() != leafClass) {
        throw new IllegalArgumentException(
            what
                + " mixes "
                + row.getClass().getSimpleName()
                + " and "
                + leafClass.getSimpleName()
                + " rows");
      }
      return;
    }
    if (row.getClass().getComponentType().isPrimitive()) {
      throw new IllegalArgumentException(
          what + " is not a rectangular array of shape " + Arrays.toString(shape));
    }
    for (Object child : (Object[]) row) {
      check(child, shape, depth + 1, leafClass, what);
    }
  }
}
