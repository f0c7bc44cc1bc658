package org.tensorweave.lite;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs a {@code .twl} model with the tensorweave lite runtime.
 *
 * <pre>{@code
 * try (Interpreter interpreter = new Interpreter(new File("mlp.twl"),
 *     new Interpreter.Options().setNumThreads(2))) {
 *   float[][] input = new float[1][784];
 *   float[][] probs = new float[1][10];
 *   interpreter.run(input, probs);
 * }
 * }</pre>
 *
 * <p>Inputs and outputs are primitive arrays of the tensor's shape ({@code float[][]} for a FLOAT32
 * tensor of rank 2; see {@link DataType} for which Java type holds which element type), copied to
 * and from the tensors, or ByteBuffers of exactly {@link Tensor#numBytes()} remaining bytes in
 * {@link ByteOrder#nativeOrder()} (read and written from their position, which is not moved). A
 * direct ByteBuffer is copied straight into (or out of) the tensor's memory with no intermediate
 * copy. An input array whose shape differs from the input's resizes the input first.
 *
 * <p>Every error of the runtime (a bad model, a wrong shape, type or size, an op that cannot run)
 * is an IllegalArgumentException with the runtime's message, which names the op and what is wrong;
 * using an interpreter after {@link #close()} throws IllegalStateException. Its methods (and its
 * tensors') lock it, so calls from several threads take turns: {@link #close()} while another
 * thread runs the model waits for that run to end, and later calls throw IllegalStateException.
 */
public final class Interpreter implements AutoCloseable {
  /** Options of a new interpreter. */
  public static final class Options {
    private int numThreads = 1;
    private boolean useReferenceKernels;

    /** Threads for large kernels, counting the caller (1..64; default 1). */
    public Options setNumThreads(int numThreads) {
      this.numThreads = numThreads;
      return this;
    }

    public int getNumThreads() {
      return numThreads;
    }

    /**
     * Runs the plain reference kernels instead of the optimized ones (default false): slower, for
     * checking an optimized result on a device.
     */
    public Options setUseReferenceKernels(boolean useReferenceKernels) {
      this.useReferenceKernels = useReferenceKernels;
      return this;
    }

    public boolean getUseReferenceKernels() {
      return useReferenceKernels;
    }
  }

  private long handle;
  // A direct model buffer the runtime reads in place: kept so that it is not collected while the
  // interpreter lives.
  private ByteBuffer borrowedModel;
  private final Tensor[] inputs;
  private final Tensor[] outputs;
  private boolean needsAllocation;

  /** Loads a model file (mapped, not read into memory). */
  public Interpreter(File modelFile) {
    this(modelFile, null);
  }

  public Interpreter(File modelFile, Options options) {
    this(NativeApi.createModelFromFile(requireNonNull(modelFile, "modelFile").getPath()), options);
  }

  /**
   * Loads a model from the buffer's remaining bytes. A direct buffer whose position is 16-byte
   * aligned (as a {@link java.nio.MappedByteBuffer} of a whole file) is used in place: it must stay
   * unchanged until the interpreter is closed. Other buffers are copied.
   */
  public Interpreter(ByteBuffer modelBuffer) {
    this(modelBuffer, null);
  }

  public Interpreter(ByteBuffer modelBuffer, Options options) {
    this(createModel(requireNonNull(modelBuffer, "modelBuffer")), options);
    if (modelBuffer.isDirect()
        && NativeApi.isAlignedForModel(modelBuffer, modelBuffer.position())) {
      borrowedModel = modelBuffer;
    }
  }

  private Interpreter(long model, Options options) {
    try {
      Options chosen = options == null ? new Options() : options;
      handle = NativeApi.createInterpreter(model, chosen.numThreads, chosen.useReferenceKernels);
    } finally {
      // The interpreter keeps what it needs of the model.
      NativeApi.deleteModel(model);
    }
    inputs = new Tensor[NativeApi.inputCount(handle)];
    outputs = new Tensor[NativeApi.outputCount(handle)];
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = new Tensor(this, true, i);
    }
    for (int i = 0; i < outputs.length; i++) {
      outputs[i] = new Tensor(this, false, i);
    }
    try {
      allocateTensors();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private static long createModel(ByteBuffer buffer) {
    int position = buffer.position();
    int size = buffer.remaining();
    if (buffer.isDirect()) {
      boolean borrow = NativeApi.isAlignedForModel(buffer, position);
      return NativeApi.createModelFromDirectBuffer(buffer, position, size, borrow);
    }
    if (buffer.hasArray()) {
      return NativeApi.createModelFromArray(buffer.array(), buffer.arrayOffset() + position, size);
    }
    byte[] copy = new byte[size];
    buffer.duplicate().get(copy);
    return NativeApi.createModelFromArray(copy, 0, size);
  }

  /** Runs a model of one input and one output. */
  public void run(Object input, Object output) {
    Map<Integer, Object> outputs = new HashMap<>();
    outputs.put(0, output);
    runForMultipleInputsOutputs(new Object[] {input}, outputs);
  }

  /**
   * Runs the model on {@code inputs} (one per model input, in order) and copies the outputs named
   * by the map's keys (output indices) into its values.
   */
  public synchronized void runForMultipleInputsOutputs(Object[] inputs, Map<Integer, ?> outputs) {
    long handle = handle();
    checkRunArguments(inputs, outputs);
    for (int i = 0; i < inputs.length; i++) {
      if (!(inputs[i] instanceof ByteBuffer)) {
        int[] shape = ArrayData.shapeOf(inputs[i], "input " + i);
        if (!Arrays.equals(shape, this.inputs[i].shape())) {
          resizeInput(i, shape);
        }
      }
    }
    if (needsAllocation) {
      allocateTensors();
    }
    for (int i = 0; i < inputs.length; i++) {
      copy(this.inputs[i], inputs[i], false);
    }
    NativeApi.invoke(handle);
    for (Map.Entry<Integer, ?> entry : outputs.entrySet()) {
      copy(this.outputs[entry.getKey()], entry.getValue(), true);
    }
  }

  public synchronized int getInputTensorCount() {
    handle();
    return inputs.length;
  }

  public synchronized int getOutputTensorCount() {
    handle();
    return outputs.length;
  }

  public synchronized Tensor getInputTensor(int index) {
    handle();
    checkIndex(index, inputs.length, "input");
    return inputs[index];
  }

  public synchronized Tensor getOutputTensor(int index) {
    handle();
    checkIndex(index, outputs.length, "output");
    return outputs[index];
  }

  /** The index of the input named {@code name}. */
  public synchronized int getInputIndex(String name) {
    return indexOf(inputs, name, "input");
  }

  /** The index of the output named {@code name}. */
  public synchronized int getOutputIndex(String name) {
    return indexOf(outputs, name, "output");
  }

  /**
   * Gives input {@code index} the shape {@code dims}; tensors are reallocated before the next run.
   */
  public synchronized void resizeInput(int index, int[] dims) {
    long handle = handle();
    checkIndex(index, inputs.length, "input");
    NativeApi.resizeInput(handle, index, requireNonNull(dims, "dims"));
    needsAllocation = true;
  }

  /** Prepares every op for the current input shapes and plans the tensors' memory. */
  public synchronized void allocateTensors() {
    NativeApi.allocateTensors(handle());
    needsAllocation = false;
  }

  /** Frees the native interpreter; later calls throw IllegalStateException. Idempotent. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeApi.deleteInterpreter(handle);
      handle = 0;
    }
    borrowedModel = null;
  }

  /** Whether the runtime reads the model from the caller's buffer in place (for tests). */
  boolean isModelBorrowed() {
    return borrowedModel != null;
  }

  synchronized long handle() {
    if (handle == 0) {
      throw new IllegalStateException("the interpreter has been closed");
    }
    return handle;
  }

  private void checkRunArguments(Object[] inputs, Map<Integer, ?> outputs) {
    requireNonNull(inputs, "inputs");
    requireNonNull(outputs, "outputs");
    if (inputs.length != this.inputs.length) {
      throw new IllegalArgumentException(
          "the model has " + this.inputs.length + " inputs, got " + inputs.length);
    }
    if (outputs.isEmpty()) {
      throw new IllegalArgumentException("outputs is empty");
    }
    for (Map.Entry<Integer, ?> entry : outputs.entrySet()) {
      Integer index = entry.getKey();
      if (index == null) {
        throw new IllegalArgumentException("outputs has a null index");
      }
      checkIndex(index, this.outputs.length, "output");
      requireNonNull(entry.getValue(), "output " + index);
    }
    for (int i = 0; i < inputs.length; i++) {
      requireNonNull(inputs[i], "input " + i);
    }
  }

  // Copies `value` (a ByteBuffer or a primitive array) into `tensor`, or (toValue) the tensor
  // into `value`.
  private void copy(Tensor tensor, Object value, boolean toValue) {
    long handle = handle();
    boolean isInput = !toValue;
    String what = (isInput ? "input " : "output ") + tensor.index();
    DataType type = tensor.dataType();
    if (value instanceof ByteBuffer) {
      ByteBuffer buffer = (ByteBuffer) value;
      checkBuffer(buffer, tensor, type, toValue, what);
      int position = buffer.position();
      int size = buffer.remaining();
      if (buffer.isDirect() && toValue) {
        NativeApi.copyTensorToBuffer(handle, false, tensor.index(), buffer, position, size);
      } else if (buffer.isDirect()) {
        NativeApi.copyBufferToInput(handle, tensor.index(), buffer, position, size);
      } else if (buffer.hasArray()) {
        NativeApi.copyArray(
            handle,
            isInput,
            tensor.index(),
            toValue,
            buffer.array(),
            NativeApi.KIND_BYTE,
            buffer.arrayOffset() + position,
            size,
            0);
      } else {
        // A read-only heap buffer (outputs were refused by checkBuffer).
        byte[] bytes = new byte[size];
        buffer.duplicate().get(bytes);
        NativeApi.copyArray(
            handle, true, tensor.index(), false, bytes, NativeApi.KIND_BYTE, 0, size, 0);
      }
      return;
    }
    int[] shape = ArrayData.shapeOf(value, what);
    Class<?> elementClass = ArrayData.elementClassOf(value);
    if (!type.heldBy(elementClass)) {
      throw new IllegalArgumentException(
          what + " '" + tensor.name() + "' is " + type + ", got an array of " + elementClass);
    }
    if (!Arrays.equals(shape, tensor.shape())) {
      throw new IllegalArgumentException(
          what
              + " '"
              + tensor.name()
              + "' has shape "
              + Arrays.toString(tensor.shape())
              + ", got an array of shape "
              + Arrays.toString(shape));
    }
    ArrayData.copy(
        handle,
        isInput,
        tensor.index(),
        toValue,
        value,
        NativeApi.kindOf(elementClass),
        type.byteSize(),
        0);
  }

  private static void checkBuffer(
      ByteBuffer buffer, Tensor tensor, DataType type, boolean toValue, String what) {
    int bytes = tensor.numBytes();
    if (buffer.remaining() != bytes) {
      throw new IllegalArgumentException(
          what
              + " '"
              + tensor.name()
              + "' ("
              + type
              + Arrays.toString(tensor.shape())
              + ") holds "
              + bytes
              + " bytes, the ByteBuffer has "
              + buffer.remaining()
              + " remaining");
    }
    if (type.byteSize() > 1 && buffer.order() != ByteOrder.nativeOrder()) {
      throw new IllegalArgumentException(
          what
              + ": the ByteBuffer must be in ByteOrder.nativeOrder() ("
              + ByteOrder.nativeOrder()
              + "), it is "
              + buffer.order());
    }
    if (toValue && buffer.isReadOnly()) {
      throw new IllegalArgumentException(what + ": the ByteBuffer is read-only");
    }
  }

  private int indexOf(Tensor[] tensors, String name, String kind) {
    handle();
    requireNonNull(name, "name");
    StringBuilder names = new StringBuilder();
    for (Tensor tensor : tensors) {
      String tensorName = tensor.name();
      if (tensorName.equals(name)) {
        return tensor.index();
      }
      names.append(names.length() == 0 ? "" : ", ").append('\'').append(tensorName).append('\'');
    }
    throw new IllegalArgumentException(
        "the model has no " + kind + " named '" + name + "' (its " + kind + "s: " + names + ")");
  }

  private static void checkIndex(int index, int count, String kind) {
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException(
          kind
              + " index "
              + index
              + " is out of range (the model has "
              + count
              + " "
              + kind
              + "s)");
    }
  }

  private static <T> T requireNonNull(T value, String what) {
    if (value == null) {
      throw new IllegalArgumentException(what + " is null");
    }
    return value;
  }
}
