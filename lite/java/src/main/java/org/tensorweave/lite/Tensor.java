package org.tensorweave.lite;

import java.util.Arrays;

/**
 * A graph input or output of an {@link Interpreter}: its type, shape, size and name. Reads the
 * interpreter's current state on every call (shapes change with {@link Interpreter#resizeInput} and
 * {@link Interpreter#allocateTensors}); using it after the interpreter is closed throws
 * IllegalStateException. Its calls lock the interpreter, as the interpreter's own methods do.
 */
public final class Tensor {
  private final Interpreter interpreter;
  private final boolean isInput;
  private final int index;

  Tensor(Interpreter interpreter, boolean isInput, int index) {
    this.interpreter = interpreter;
    this.isInput = isInput;
    this.index = index;
  }

  /** The element type. */
  public DataType dataType() {
    synchronized (interpreter) {
      return DataType.fromC(NativeApi.tensorType(interpreter.handle(), isInput, index));
    }
  }

  /** The dimensions, outermost first ({@code {}} for a scalar). */
  public int[] shape() {
    synchronized (interpreter) {
      return NativeApi.tensorShape(interpreter.handle(), isInput, index);
    }
  }

  /** The number of dimensions. */
  public int numDimensions() {
    return shape().length;
  }

  /** The number of elements: the product of the dimensions. */
  public int numElements() {
    long elements = 1;
    for (int dim : shape()) {
      elements *= dim;
    }
    return Math.toIntExact(elements);
  }

  /** The size of the data in bytes. */
  public int numBytes() {
    synchronized (interpreter) {
      return Math.toIntExact(NativeApi.tensorByteSize(interpreter.handle(), isInput, index));
    }
  }

  /** The tensor's name in the model. */
  public String name() {
    synchronized (interpreter) {
      return NativeApi.tensorName(interpreter.handle(), isInput, index);
    }
  }

  /** Its position among the interpreter's inputs (or outputs). */
  public int index() {
    return index;
  }

  @Override
  public String toString() {
    return (isInput ? "input " : "output ")
        + index
        + " '"
        + name()
        + "' "
        + dataType()
        + Arrays.toString(shape());
  }
}
