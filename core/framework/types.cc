#include "core/framework/types.h"

namespace tensorweave {

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType> kAll = {
      DT_FLOAT, DT_DOUBLE,    DT_INT32,      DT_UINT8,   DT_STRING, DT_INT64,
      DT_BOOL,  DT_INT8,      DT_INT16,      DT_UINT16,  DT_UINT32, DT_UINT64,
      DT_HALF,  DT_COMPLEX64, DT_COMPLEX128, DT_BFLOAT16};
  return kAll;
}

std::string DataTypeName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return "float32";
    case DT_DOUBLE:
      return "float64";
    case DT_INT32:
      return "int32";
    case DT_UINT8:
      return "uint8";
    case DT_STRING:
      return "string";
    case DT_INT64:
      return "int64";
    case DT_BOOL:
      return "bool";
    case DT_INT8:
      return "int8";
    case DT_INT16:
      return "int16";
    case DT_UINT16:
      return "uint16";
    case DT_UINT32:
      return "uint32";
    case DT_UINT64:
      return "uint64";
    case DT_HALF:
      return "float16";
    case DT_BFLOAT16:
      return "bfloat16";
    case DT_COMPLEX64:
      return "complex64";
    case DT_COMPLEX128:
      return "complex128";
    default:
      break;
  }
  return "invalid(" + std::to_string(static_cast<int>(dtype)) + ")";
}

bool DataTypeFromName(const std::string& name, DataType* dtype) {
  static const struct {
    const char* name;
    DataType dtype;
  } kNames[] = {{"float32", DT_FLOAT},       {"float", DT_FLOAT},
                {"float64", DT_DOUBLE},      {"double", DT_DOUBLE},
                {"int32", DT_INT32},         {"uint8", DT_UINT8},
                {"string", DT_STRING},       {"int64", DT_INT64},
                {"bool", DT_BOOL},           {"int8", DT_INT8},
                {"int16", DT_INT16},         {"uint16", DT_UINT16},
                {"uint32", DT_UINT32},       {"uint64", DT_UINT64},
                {"float16", DT_HALF},        {"half", DT_HALF},
                {"complex64", DT_COMPLEX64}, {"complex128", DT_COMPLEX128},
                {"bfloat16", DT_BFLOAT16}};
  for (const auto& entry : kNames) {
    if (name == entry.name) {
      *dtype = entry.dtype;
      return true;
    }
  }
  return false;
}

size_t DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return 4;
    case DT_DOUBLE:
      return 8;
    case DT_INT32:
      return 4;
    case DT_UINT8:
      return 1;
    case DT_INT64:
      return 8;
    case DT_BOOL:
      return 1;
    case DT_INT8:
      return 1;
    case DT_INT16:
    case DT_UINT16:
    case DT_HALF:
    case DT_BFLOAT16:
      return 2;
    case DT_UINT32:
      return 4;
    case DT_UINT64:
    case DT_COMPLEX64:
      return 8;
    case DT_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

bool IsValidDataType(int value) {
  for (DataType dtype : AllDataTypes()) {
    if (value == dtype) return true;
  }
  return false;
}

bool DataTypeIsFloating(DataType dtype) {
  return dtype == DT_FLOAT || dtype == DT_DOUBLE || dtype == DT_HALF ||
         dtype == DT_BFLOAT16;
}

bool DataTypeIsInteger(DataType dtype) {
  switch (dtype) {
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsComplex(DataType dtype) {
  return dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128;
}

}  // namespace tensorweave
