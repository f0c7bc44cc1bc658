package org.tensorweave.lite;

/** Element types of tensors; the numbers are the C API's {@code TwlType} values. */
public enum DataType {
  FLOAT32(0, 4),
  INT32(1, 4),
  INT64(2, 8),
  UINT8(3, 1),
  INT8(4, 1),
  BOOL(5, 1),
  FLOAT64(6, 8),
  INT16(7, 2),
  UINT16(8, 2),
  UINT32(9, 4),
  UINT64(10, 8),
  /** IEEE binary16; Java holds its bits in a {@code short}. */
  FLOAT16(11, 2);

  private final int cValue;
  private final int byteSize;

  DataType(int cValue, int byteSize) {
    this.cValue = cValue;
    this.byteSize = byteSize;
  }

  /** Bytes per element. */
  public int byteSize() {
    return byteSize;
  }

  /** The C API's {@code TwlType} value. */
  int cValue() {
    return cValue;
  }

  static DataType fromC(int cValue) {
    for (DataType type : values()) {
      if (type.cValue == cValue) {
        return type;
      }
    }
    throw new IllegalArgumentException("unknown tensor type " + cValue);
  }

  /**
   * Whether a Java array of {@code elementClass} holds this type: float for FLOAT32, double for
   * FLOAT64, int for (U)INT32, long for (U)INT64, short for (U)INT16 and FLOAT16 bits, byte for
   * (U)INT8, boolean for BOOL. Unsigned values keep their bits (as Java's own unsigned helpers).
   */
  boolean heldBy(Class<?> elementClass) {
    switch (this) {
      case FLOAT32:
        return elementClass == float.class;
      case FLOAT64:
        return elementClass == double.class;
      case INT32:
      case UINT32:
        return elementClass == int.class;
      case INT64:
      case UINT64:
        return elementClass == long.class;
      case INT16:
      case UINT16:
      case FLOAT16:
        return elementClass == short.class;
      case UINT8:
      case INT8:
        return elementClass == byte.class;
      case BOOL:
        return elementClass == boolean.class;
    }
    return false;
  }
}
