// Overflow-safe size arithmetic for tensors, in one place: element counts,
// byte sizes and the largest tensor one allocation may ask for. Kernels that
// compute an output shape from input values build it with these (or with
// TensorShape::Build) and allocate through OpKernelContext::allocate_output,
// which checks the byte size and turns an impossible request into an error
// naming the shape and dtype instead of a wrapped size.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_TENSOR_SIZE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_TENSOR_SIZE_H_

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "core/framework/status.h"
#include "core/framework/types.h"

namespace tensorweave {

class TensorShape;

// *out = a * b; false (and *out untouched) when it does not fit in int64.
inline bool MultiplyWithoutOverflow(int64_t a, int64_t b, int64_t* out) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return false;
  *out = product;
  return true;
}

// *out = a + b; false (and *out untouched) when it does not fit in int64.
inline bool AddWithoutOverflow(int64_t a, int64_t b, int64_t* out) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return false;
  *out = sum;
  return true;
}

// The number of elements of a shape with these dims: InvalidArgument for a
// negative dimension or a count beyond int64. A zero dimension anywhere
// makes the count 0, whatever the others are.
Status NumElementsOf(const std::vector<int64_t>& dims, int64_t* count);

// Bytes taken by `count` elements of `dtype` (a string element is one
// std::string object); false when that does not fit in int64.
bool TensorByteSize(DataType dtype, int64_t count, int64_t* bytes);

// The largest tensor, in bytes, one allocation may ask for: the machine's
// physical memory unless TW_MAX_TENSOR_BYTES (a number of bytes) says
// otherwise when the process first asks.
int64_t MaxTensorBytes();
// Sets the limit (0 restores the default); for tests.
void SetMaxTensorBytes(int64_t bytes);

// Checks that a tensor of `dtype` and `shape` can be asked for: a negative
// dimension or an element count beyond int64 is InvalidArgument (as in
// TensorFlow); a byte size that overflows int64 or exceeds MaxTensorBytes()
// is ResourceExhausted ("OOM when allocating tensor with shape ...").
// Both messages name the shape and the dtype. O(rank).
Status CheckTensorAllocation(DataType dtype, const TensorShape& shape);

// Thrown by Tensor's allocating constructor when the byte size overflows or
// the memory cannot be had; the executor reports it as ResourceExhausted
// naming the node. Kernels should call allocate_output (a Status) instead.
class TensorAllocationError : public std::bad_alloc {
 public:
  explicit TensorAllocationError(std::string message)
      : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_TENSOR_SIZE_H_
