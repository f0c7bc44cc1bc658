package org.tensorweave.lite;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * Runs the models of src/test/python/write_test_models.py (directory: system property
 * twl.test.models) through the Java API and compares with the values numpy computed there.
 */
@RunWith(JUnit4.class)
public final class InterpreterTest {
  private static final float TOLERANCE = 1e-5f;

  private File models;
  private float[][] mlpX;
  private float[][] mlpProbs;
  private Interpreter mlp;

  @Before
  public void setUp() throws IOException {
    String dir = System.getProperty("twl.test.models");
    assertTrue("set -Dtwl.test.models (lite/java/test.sh does)", dir != null);
    models = new File(dir);
    mlpX = readFloats("mlp_x.f32", 3, 4);
    mlpProbs = readFloats("mlp_probs.f32", 3, 3);
    mlp = new Interpreter(model("mlp.twl"));
  }

  @After
  public void tearDown() {
    mlp.close();
  }

  @Test
  public void describesTensors() {
    assertEquals(1, mlp.getInputTensorCount());
    assertEquals(1, mlp.getOutputTensorCount());
    Tensor input = mlp.getInputTensor(0);
    assertEquals("input", input.name());
    assertEquals(DataType.FLOAT32, input.dataType());
    assertArrayEquals(new int[] {1, 4}, input.shape());
    assertEquals(2, input.numDimensions());
    assertEquals(4, input.numElements());
    assertEquals(16, input.numBytes());
    assertEquals("probs", mlp.getOutputTensor(0).name());
    assertArrayEquals(new int[] {1, 3}, mlp.getOutputTensor(0).shape());
    assertEquals(0, mlp.getInputIndex("input"));
    assertEquals(0, mlp.getOutputIndex("probs"));
  }

  @Test
  public void runsWithArrays() {
    float[][] probs = new float[1][3];
    mlp.run(new float[][] {mlpX[0]}, probs);
    assertClose(mlpProbs[0], probs[0]);
  }

  @Test
  public void runsWithTwoThreads() {
    try (Interpreter interpreter =
        new Interpreter(model("mlp.twl"), new Interpreter.Options().setNumThreads(2))) {
      float[][] probs = new float[3][3];
      interpreter.run(mlpX, probs);
      for (int i = 0; i < 3; i++) {
        assertClose(mlpProbs[i], probs[i]);
      }
    }
  }

  @Test
  public void runsWithReferenceKernels() {
    Interpreter.Options options = new Interpreter.Options().setUseReferenceKernels(true);
    try (Interpreter interpreter = new Interpreter(model("mlp.twl"), options)) {
      float[][] probs = new float[3][3];
      interpreter.run(mlpX, probs);
      for (int i = 0; i < 3; i++) {
        assertClose(mlpProbs[i], probs[i]);
      }
    }
  }

  @Test
  public void resizesInputThenRuns() {
    mlp.resizeInput(0, new int[] {3, 4});
    mlp.allocateTensors();
    assertArrayEquals(new int[] {3, 4}, mlp.getInputTensor(0).shape());
    assertArrayEquals(new int[] {3, 3}, mlp.getOutputTensor(0).shape());
    float[][] probs = new float[3][3];
    mlp.run(mlpX, probs);
    for (int i = 0; i < 3; i++) {
      assertClose(mlpProbs[i], probs[i]);
    }
  }

  @Test
  public void resizesToTheInputArraysShape() {
    float[][] probs = new float[3][3];
    mlp.run(mlpX, probs);
    assertArrayEquals(new int[] {3, 3}, mlp.getOutputTensor(0).shape());
    assertClose(mlpProbs[2], probs[2]);
    // And back.
    float[][] one = new float[1][3];
    mlp.run(new float[][] {mlpX[1]}, one);
    assertClose(mlpProbs[1], one[0]);
  }

  @Test
  public void runsWithDirectByteBuffers() {
    mlp.resizeInput(0, new int[] {3, 4});
    ByteBuffer input = ByteBuffer.allocateDirect(3 * 4 * 4).order(ByteOrder.nativeOrder());
    for (float[] row : mlpX) {
      for (float value : row) {
        input.putFloat(value);
      }
    }
    input.rewind();
    ByteBuffer output = ByteBuffer.allocateDirect(3 * 3 * 4).order(ByteOrder.nativeOrder());
    mlp.run(input, output);
    assertEquals(0, output.position());
    FloatBuffer probs = output.asFloatBuffer();
    for (int i = 0; i < 3; i++) {
      float[] row = new float[3];
      probs.get(row);
      assertClose(mlpProbs[i], row);
    }
  }

  @Test
  public void runsWithHeapByteBuffersFromTheirPosition() {
    ByteBuffer input = ByteBuffer.allocate(4 + 16).order(ByteOrder.nativeOrder());
    input.position(4);
    input.slice().order(ByteOrder.nativeOrder()).asFloatBuffer().put(mlpX[0]);
    ByteBuffer output = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
    mlp.run(input, output);
    float[] probs = new float[3];
    output.asFloatBuffer().get(probs);
    assertClose(mlpProbs[0], probs);
  }

  @Test
  public void usesAnAlignedDirectModelBufferInPlace() throws IOException {
    ByteBuffer mapped;
    try (RandomAccessFile file = new RandomAccessFile(model("mlp.twl"), "r")) {
      mapped = file.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, file.length());
    }
    try (Interpreter interpreter = new Interpreter(mapped)) {
      assertTrue(interpreter.isModelBorrowed());
      float[][] probs = new float[1][3];
      interpreter.run(new float[][] {mlpX[0]}, probs);
      assertClose(mlpProbs[0], probs[0]);
    }
  }

  @Test
  public void copiesOtherModelBuffers() throws IOException {
    byte[] bytes = Files.readAllBytes(model("mlp.twl").toPath());
    ByteBuffer misaligned = ByteBuffer.allocateDirect(bytes.length + 1);
    misaligned.position(1);
    misaligned.put(bytes).position(1);
    ByteBuffer[] buffers = {
      ByteBuffer.wrap(bytes),
      misaligned,
      misaligned.slice(),
      ByteBuffer.wrap(bytes).asReadOnlyBuffer()
    };
    for (ByteBuffer buffer : buffers) {
      try (Interpreter interpreter = new Interpreter(buffer)) {
        // At most one of the direct buffers (the slice) can be aligned.
        if (!buffer.isDirect()) {
          assertFalse(interpreter.isModelBorrowed());
        }
        float[][] probs = new float[1][3];
        interpreter.run(new float[][] {mlpX[0]}, probs);
        assertClose(mlpProbs[0], probs[0]);
      }
    }
  }

  @Test
  public void runsMultipleInputsAndOutputs() {
    float[][] a = {{1, -2, 3}, {-4, 5, -6}};
    float[][] b = {{0.5f, 1, -4}, {2, -7, 6}};
    try (Interpreter interpreter = new Interpreter(model("add_sub_f32.twl"))) {
      assertEquals(2, interpreter.getInputTensorCount());
      assertEquals(1, interpreter.getInputIndex("b"));
      assertEquals(1, interpreter.getOutputIndex("diff"));
      float[][] sum = new float[2][3];
      float[][] diff = new float[2][3];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, sum);
      outputs.put(1, diff);
      interpreter.runForMultipleInputsOutputs(new Object[] {a, b}, outputs);
      for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
          assertEquals(Math.max(a[i][j] + b[i][j], 0), sum[i][j], 0);
          assertEquals(a[i][j] - b[i][j], diff[i][j], 0);
        }
      }
      // Only the second output.
      float[][] diffOnly = new float[2][3];
      Map<Integer, Object> second = new HashMap<>();
      second.put(1, diffOnly);
      interpreter.runForMultipleInputsOutputs(new Object[] {b, a}, second);
      assertEquals(b[1][2] - a[1][2], diffOnly[1][2], 0);
    }
  }

  @Test
  public void runsIntegerModels() {
    try (Interpreter interpreter = new Interpreter(model("add_sub_i32.twl"))) {
      assertEquals(DataType.INT32, interpreter.getOutputTensor(1).dataType());
      int[][] sum = new int[2][3];
      int[][] diff = new int[2][3];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, sum);
      outputs.put(1, diff);
      int[][] a = {{1, 2, 3}, {Integer.MAX_VALUE, -5, 6}};
      int[][] b = {{10, 20, 30}, {0, 5, -60}};
      interpreter.runForMultipleInputsOutputs(new Object[] {a, b}, outputs);
      assertArrayEquals(new int[] {11, 22, 33}, sum[0]);
      assertArrayEquals(new int[] {Integer.MAX_VALUE, 0, -54}, sum[1]);
      assertArrayEquals(new int[] {-9, -18, -27}, diff[0]);
    }
    try (Interpreter interpreter = new Interpreter(model("add_sub_i64.twl"))) {
      long big = 1L << 40;
      long[][] a = {{big, 1, 2}, {3, 4, 5}};
      long[][] b = {{big, 1, 1}, {1, 1, -big}};
      long[][] sum = new long[2][3];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, sum);
      interpreter.runForMultipleInputsOutputs(new Object[] {a, b}, outputs);
      assertArrayEquals(new long[] {2 * big, 2, 3}, sum[0]);
      assertArrayEquals(new long[] {4, 5, 5 - big}, sum[1]);
    }
  }

  @Test
  public void passesEveryDataTypeThrough() {
    Object[][] cases = {
      {DataType.FLOAT32, new float[][] {{1.5f, -2, 3}, {4, Float.NaN, -0f}}, new float[3][2]},
      {DataType.FLOAT64, new double[][] {{1e300, -2, 3}, {4, 5, 6}}, new double[3][2]},
      {DataType.INT32, new int[][] {{1, -2, 3}, {4, 5, Integer.MIN_VALUE}}, new int[3][2]},
      {DataType.UINT32, new int[][] {{1, -1, 3}, {4, 5, 6}}, new int[3][2]},
      {DataType.INT64, new long[][] {{1, -2, 3}, {4, 5, Long.MAX_VALUE}}, new long[3][2]},
      {DataType.UINT64, new long[][] {{1, -1, 3}, {4, 5, 6}}, new long[3][2]},
      {DataType.INT16, new short[][] {{1, -2, 3}, {4, 5, Short.MIN_VALUE}}, new short[3][2]},
      {DataType.UINT16, new short[][] {{1, -1, 3}, {4, 5, 6}}, new short[3][2]},
      {DataType.FLOAT16, new short[][] {{0x3c00, -1, 3}, {4, 5, 6}}, new short[3][2]},
      {DataType.INT8, new byte[][] {{1, -2, 3}, {4, 5, -128}}, new byte[3][2]},
      {DataType.UINT8, new byte[][] {{1, -1, 3}, {4, 5, 6}}, new byte[3][2]},
      {
        DataType.BOOL,
        new boolean[][] {{true, false, true}, {false, false, true}},
        new boolean[3][2]
      },
    };
    assertEquals(DataType.values().length, cases.length);
    for (Object[] c : cases) {
      DataType type = (DataType) c[0];
      String name = "reshape_" + type.name().toLowerCase() + ".twl";
      try (Interpreter interpreter = new Interpreter(model(name))) {
        Tensor x = interpreter.getInputTensor(0);
        assertEquals(name, type, x.dataType());
        assertEquals(name, 6 * type.byteSize(), x.numBytes());
        interpreter.run(c[1], c[2]);
        // [2][3] in, [3][2] out: the same six elements in row-major order.
        Object[] in = (Object[]) c[1];
        Object[] out = (Object[]) c[2];
        for (int k = 0; k < 6; k++) {
          assertEquals(
              name,
              java.lang.reflect.Array.get(in[k / 3], k % 3),
              java.lang.reflect.Array.get(out[k / 2], k % 2));
        }
      }
    }
  }

  @Test
  public void rejectsWrongInputs() {
    assertThrowsWith(
        IllegalArgumentException.class,
        "holds 16 bytes",
        () ->
            mlp.run(ByteBuffer.allocateDirect(12).order(ByteOrder.nativeOrder()), new float[1][3]));
    ByteBuffer bigEndian = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN);
    if (ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN) {
      assertThrowsWith(
          IllegalArgumentException.class, "nativeOrder", () -> mlp.run(bigEndian, new float[1][3]));
    }
    assertThrowsWith(
        IllegalArgumentException.class, "FLOAT32", () -> mlp.run(new int[1][4], new float[1][3]));
    assertThrowsWith(
        IllegalArgumentException.class, "input 0 is null", () -> mlp.run(null, new float[1][3]));
    assertThrowsWith(
        IllegalArgumentException.class, "output 0 is null", () -> mlp.run(new float[1][4], null));
    assertThrowsWith(
        IllegalArgumentException.class,
        "inputs is null",
        () -> mlp.runForMultipleInputsOutputs(null, new HashMap<Integer, Object>()));
    assertThrowsWith(
        IllegalArgumentException.class,
        "has 1 inputs, got 2",
        () -> mlp.runForMultipleInputsOutputs(new Object[2], new HashMap<Integer, Object>()));
    Map<Integer, Object> outOfRange = new HashMap<>();
    outOfRange.put(5, new float[1][3]);
    assertThrowsWith(
        IllegalArgumentException.class,
        "output index 5 is out of range",
        () -> mlp.runForMultipleInputsOutputs(new Object[] {new float[1][4]}, outOfRange));
    assertThrowsWith(
        IllegalArgumentException.class,
        "rectangular",
        () -> mlp.run(new float[][] {new float[4], new float[3]}, new float[2][3]));
    assertThrowsWith(
        IllegalArgumentException.class,
        "rectangular",
        () -> mlp.run(new float[][] {new float[4], null}, new float[2][3]));
    assertThrowsWith(
        IllegalArgumentException.class,
        "mixes",
        () -> mlp.run(new Object[] {new float[4], new int[4]}, new float[2][3]));
    assertThrowsWith(
        IllegalArgumentException.class,
        "java.lang.String",
        () -> mlp.run("not a tensor", new float[1][3]));
    assertThrowsWith(
        IllegalArgumentException.class,
        "java.lang.Float",
        () -> mlp.run(new Float[1][4], new float[1][3]));
    // After every refusal the interpreter still runs.
    float[][] probs = new float[1][3];
    mlp.run(new float[][] {mlpX[0]}, probs);
    assertClose(mlpProbs[0], probs[0]);
  }

  @Test
  public void rejectsWrongOutputs() {
    float[][] x = {mlpX[0]};
    assertThrowsWith(
        IllegalArgumentException.class,
        "has shape [1, 3], got an array of shape [1, 2]",
        () -> mlp.run(x, new float[1][2]));
    assertThrowsWith(IllegalArgumentException.class, "FLOAT32", () -> mlp.run(x, new double[1][3]));
    assertThrowsWith(
        IllegalArgumentException.class,
        "holds 12 bytes",
        () -> mlp.run(x, ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder())));
    assertThrowsWith(
        IllegalArgumentException.class,
        "read-only",
        () ->
            mlp.run(x, ByteBuffer.allocate(12).asReadOnlyBuffer().order(ByteOrder.nativeOrder())));
  }

  @Test
  public void reportsTheRuntimesErrorsNamingTheOp() {
    // A [1, 5] input does not fit the first layer's [8, 4] weights.
    assertThrowsWith(
        IllegalArgumentException.class,
        "FULLY_CONNECTED",
        () -> mlp.run(new float[1][5], new float[1][3]));
    mlp.resizeInput(0, new int[] {2, 7});
    assertThrowsWith(IllegalArgumentException.class, "FULLY_CONNECTED", mlp::allocateTensors);
    assertThrowsWith(
        IllegalArgumentException.class,
        "resizeInput failed",
        () -> mlp.resizeInput(0, new int[] {-3, 4}));
    assertThrowsWith(
        IllegalArgumentException.class,
        "input index 1 is out of range",
        () -> mlp.resizeInput(1, new int[] {1, 4}));
    assertThrowsWith(
        IllegalArgumentException.class, "dims is null", () -> mlp.resizeInput(0, null));
    assertThrowsWith(IllegalArgumentException.class, "out of range", () -> mlp.getInputTensor(1));
    assertThrowsWith(IllegalArgumentException.class, "out of range", () -> mlp.getOutputTensor(-1));
    assertThrowsWith(
        IllegalArgumentException.class,
        "no input named 'nope' (its inputs: 'input')",
        () -> mlp.getInputIndex("nope"));
    // A good shape again runs.
    float[][] probs = new float[1][3];
    mlp.run(new float[][] {mlpX[0]}, probs);
    assertClose(mlpProbs[0], probs[0]);
  }

  @Test
  public void rejectsBadModels() throws IOException {
    assertThrowsWith(
        IllegalArgumentException.class,
        "cannot load the model",
        () -> new Interpreter(new File(models, "missing.twl")));
    byte[] bytes = Files.readAllBytes(model("mlp.twl").toPath());
    File truncated = File.createTempFile("truncated", ".twl");
    File garbage = File.createTempFile("garbage", ".twl");
    try {
      Files.write(truncated.toPath(), java.util.Arrays.copyOf(bytes, bytes.length / 2));
      byte[] noise = new byte[bytes.length];
      new java.util.Random(1).nextBytes(noise);
      Files.write(garbage.toPath(), noise);
      for (File file : new File[] {truncated, garbage}) {
        assertThrowsWith(
            IllegalArgumentException.class, "cannot load the model", () -> new Interpreter(file));
      }
      ByteBuffer direct = ByteBuffer.allocateDirect(noise.length);
      direct.put(noise).rewind();
      for (ByteBuffer buffer :
          new ByteBuffer[] {
            ByteBuffer.wrap(noise),
            direct,
            ByteBuffer.allocate(0),
            ByteBuffer.wrap(bytes, 0, bytes.length / 2)
          }) {
        assertThrowsWith(
            IllegalArgumentException.class, "cannot load the model", () -> new Interpreter(buffer));
      }
    } finally {
      truncated.delete();
      garbage.delete();
    }
    assertThrowsWith(
        IllegalArgumentException.class, "modelFile is null", () -> new Interpreter((File) null));
    assertThrowsWith(
        IllegalArgumentException.class,
        "modelBuffer is null",
        () -> new Interpreter((ByteBuffer) null));
    assertThrowsWith(
        IllegalArgumentException.class,
        "num_threads must be in 1..64",
        () -> new Interpreter(model("mlp.twl"), new Interpreter.Options().setNumThreads(0)));
  }

  @Test
  public void closeWhileAnotherThreadRunsWaitsForTheRun() throws InterruptedException {
    // Was a use-after-free (SIGSEGV in the JVM): close() freed the interpreter under a running run().
    for (int round = 0; round < 300; round++) {
      Interpreter interpreter = new Interpreter(model("mlp.twl"));
      AtomicInteger runs = new AtomicInteger();
      Throwable[] ended = new Throwable[1];
      Thread runner =
          new Thread(
              () -> {
                float[][] probs = new float[3][3];
                try {
                  while (true) {
                    interpreter.run(mlpX, probs);
                    assertClose(mlpProbs[0], probs[0]);
                    runs.incrementAndGet();
                  }
                } catch (Throwable e) {
                  ended[0] = e;
                }
              });
      runner.start();
      while (runs.get() < 1 + round % 5 && runner.isAlive()) {
        Thread.yield();
      }
      interpreter.close();
      runner.join(10000);
      assertFalse(runner.isAlive());
      assertTrue(String.valueOf(ended[0]), ended[0] instanceof IllegalStateException);
      assertThrows(IllegalStateException.class, () -> interpreter.getInputTensor(0).shape());
    }
  }

  @Test
  public void survivesHostileShapesAndBuffers() {
    int big = 1 << 30;
    assertThrowsWith(
        IllegalArgumentException.class,
        "exceeds 2147483648 bytes",
        () -> mlp.resizeInput(0, new int[] {big, big}));
    assertThrowsWith(
        IllegalArgumentException.class,
        "exceeds 2147483648 bytes",
        () -> mlp.resizeInput(0, new int[] {Integer.MAX_VALUE, 4}));
    assertThrowsWith(
        IllegalArgumentException.class,
        "more than 16 dimensions",
        () -> mlp.resizeInput(0, new int[17]));
    // An empty batch is a shape like any other.
    mlp.resizeInput(0, new int[] {0, 4});
    mlp.allocateTensors();
    assertEquals(0, mlp.getInputTensor(0).numBytes());
    mlp.resizeInput(0, new int[] {1, 4});
    assertThrowsWith(
        IllegalArgumentException.class,
        "rectangular",
        () -> mlp.run(new float[][][] {{new float[4]}, {}}, new float[1][3]));
    assertThrowsWith(IllegalArgumentException.class, "name is null", () -> mlp.getOutputIndex(null));
    assertThrowsWith(
        IllegalArgumentException.class,
        "num_threads must be in 1..64",
        () -> new Interpreter(model("mlp.twl"), new Interpreter.Options().setNumThreads(65)));
    ByteBuffer empty = ByteBuffer.allocateDirect(0).order(ByteOrder.nativeOrder());
    assertThrowsWith(IllegalArgumentException.class, "remaining", () -> mlp.run(empty, empty));
    ByteBuffer consumed = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
    consumed.position(16);
    assertThrowsWith(
        IllegalArgumentException.class, "remaining", () -> mlp.run(consumed, new float[1][3]));
    Map<Integer, Object> nullKey = new HashMap<>();
    nullKey.put(null, new float[1][3]);
    assertThrowsWith(
        IllegalArgumentException.class,
        "null index",
        () -> mlp.runForMultipleInputsOutputs(new Object[] {new float[1][4]}, nullKey));
    // After every refusal a good shape runs.
    float[][] probs = new float[1][3];
    mlp.run(new float[][] {mlpX[0]}, probs);
    assertClose(mlpProbs[0], probs[0]);
  }

  @Test
  public void refusesUseAfterClose() {
    Tensor input = mlp.getInputTensor(0);
    mlp.close();
    mlp.close();
    assertThrowsWith(
        IllegalStateException.class, "closed", () -> mlp.run(new float[1][4], new float[1][3]));
    assertThrowsWith(IllegalStateException.class, "closed", () -> mlp.getInputTensor(0));
    assertThrowsWith(IllegalStateException.class, "closed", mlp::getInputTensorCount);
    assertThrowsWith(IllegalStateException.class, "closed", mlp::allocateTensors);
    assertThrowsWith(
        IllegalStateException.class, "closed", () -> mlp.resizeInput(0, new int[] {1, 4}));
    assertThrowsWith(IllegalStateException.class, "closed", input::shape);
    assertThrowsWith(IllegalStateException.class, "closed", input::name);
  }

  private File model(String name) {
    return new File(models, name);
  }

  private float[][] readFloats(String name, int rows, int columns) throws IOException {
    FloatBuffer values =
        ByteBuffer.wrap(Files.readAllBytes(model(name).toPath()))
            .order(ByteOrder.LITTLE_ENDIAN)
            .asFloatBuffer();
    assertEquals(name, rows * columns, values.remaining());
    float[][] result = new float[rows][columns];
    for (float[] row : result) {
      values.get(row);
    }
    return result;
  }

  private static void assertClose(float[] expected, float[] actual) {
    assertArrayEquals(expected, actual, TOLERANCE);
  }

  private static void assertThrowsWith(
      Class<? extends Throwable> type, String text, org.junit.function.ThrowingRunnable body) {
    Throwable thrown = assertThrows(type, body);
    assertTrue(
        "expected '" + text + "' in: " + thrown.getMessage(),
        thrown.getMessage() != null && thrown.getMessage().contains(text));
  }
}
