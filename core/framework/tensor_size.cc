#include "core/framework/tensor_size.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <limits>

#include "core/framework/tensor_shape.h"

namespace tensorweave {
namespace {

std::atomic<int64_t> max_tensor_bytes{0};  // 0: not yet decided

int64_t DefaultMaxTensorBytes() {
  if (const char* env = std::getenv("TW_MAX_TENSOR_BYTES")) {
    char* end = nullptr;
    const long long value = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && value > 0) return value;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  int64_t bytes;
  if (pages > 0 && page_size > 0 &&
      MultiplyWithoutOverflow(pages, page_size, &bytes)) {
    return bytes;
  }
  return std::numeric_limits<int64_t>::max();
}

}  // namespace

Status NumElementsOf(const std::vector<int64_t>& dims, int64_t* count) {
  bool has_zero = false;
  for (int64_t d : dims) {
    if (d < 0) {
      return errors::InvalidArgument("dimension ", d, " is negative in shape ",
                                     TensorShape(dims).ToString());
    }
    has_zero |= d == 0;
  }
  if (has_zero) {
    *count = 0;
    return Status::OK();
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (!MultiplyWithoutOverflow(n, d, &n)) {
      return errors::InvalidArgument("shape ", TensorShape(dims).ToString(),
                                     " has too many elements (more than ",
                                     std::numeric_limits<int64_t>::max(), ")");
    }
  }
  *count = n;
  return Status::OK();
}

bool TensorByteSize(DataType dtype, int64_t count, int64_t* bytes) {
  const int64_t element = dtype == DT_STRING
                              ? static_cast<int64_t>(sizeof(std::string))
                              : static_cast<int64_t>(DataTypeSize(dtype));
  return MultiplyWithoutOverflow(count, element, bytes);
}

int64_t MaxTensorBytes() {
  int64_t limit = max_tensor_bytes.load(std::memory_order_relaxed);
  if (limit == 0) {
    limit = DefaultMaxTensorBytes();
    max_tensor_bytes.store(limit, std::memory_order_relaxed);
  }
  return limit;
}

void SetMaxTensorBytes(int64_t bytes) {
  max_tensor_bytes.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

Status CheckTensorAllocation(DataType dtype, const TensorShape& shape) {
  int64_t count;
  Status s = NumElementsOf(shape.dims(), &count);
  if (!s.ok()) {
    return errors::InvalidArgument("cannot allocate a tensor of type ",
                                   DataTypeName(dtype), ": ", s.message());
  }
  int64_t bytes;
  if (!TensorByteSize(dtype, count, &bytes)) {
    return errors::ResourceExhausted(
        "OOM when allocating tensor with shape ", shape.ToString(),
        " and type ", DataTypeName(dtype), ": ", count,
        " elements, whose size in bytes does not fit in int64");
  }
  const int64_t limit = MaxTensorBytes();
  if (bytes > limit) {
    return errors::ResourceExhausted(
        "OOM when allocating tensor with shape ", shape.ToString(),
        " and type ", DataTypeName(dtype), ": ", bytes,
        " bytes is more than the limit of ", limit,
        " bytes for one tensor (the machine's memory, or "
        "TW_MAX_TENSOR_BYTES)");
  }
  return Status::OK();
}

}  // namespace tensorweave
