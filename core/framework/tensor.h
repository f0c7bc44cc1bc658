// Tensor: a typed, shaped, reference-counted view of a 64-byte aligned
// buffer. Copying a Tensor shares the buffer; views (Reshaped, a slice along
// dimension 0) share it too.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_TENSOR_H_
#define TENSORWEAVE_CORE_FRAMEWORK_TENSOR_H_

#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "core/framework/tensor_shape.h"
#include "core/framework/tensor_size.h"
#include "core/framework/types.h"

namespace tensorweave {

class TensorProto;

inline constexpr size_t kTensorAlignment = 64;

// A block of memory a tensor points into. Either owned (allocated aligned,
// freed on destruction) or borrowed (memory of someone else, released by a
// callback: a numpy array, a mapped file).
class TensorBuffer {
 public:
  // Allocates `bytes` (rounded up to the alignment), uninitialized. For
  // DT_STRING, `num_strings` std::string objects are constructed.
  static std::shared_ptr<TensorBuffer> Allocate(size_t bytes);
  static std::shared_ptr<TensorBuffer> AllocateStrings(int64_t num_strings);
  static std::shared_ptr<TensorBuffer> Borrow(void* data, size_t bytes,
                                              std::function<void()> release);
  // Memory given to the buffer for good (a block of a device allocator):
  // `release` returns it when the buffer dies. Unlike a borrowed buffer, a
  // tensor that holds the only reference may write it in place.
  static std::shared_ptr<TensorBuffer> Adopt(void* data, size_t bytes,
                                             std::function<void()> release);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  bool owned() const { return !release_ || adopted_; }

  // Bytes held in the process-wide cache of freed large buffers (owned
  // buffers of 64 KiB and more are recycled for allocations of the same
  // rounded size rather than returned to malloc; at most 64 MiB is kept).
  static size_t CachedBytesForTesting();

 private:
  struct Heap;
  struct Inline;
  TensorBuffer() = default;
  void* data_ = nullptr;
  bool inline_ = false;  // data_ is in this object's own allocation
  bool adopted_ = false;  // Adopt: released by release_, yet owned
  size_t size_ = 0;
  size_t capacity_ = 0;  // allocated bytes of an owned buffer
  int64_t num_strings_ = 0;
  std::function<void()> release_;
};

class Tensor {
 public:
  Tensor() = default;  // an empty, invalid tensor (dtype DT_INVALID)
  Tensor(const Tensor&) = default;
  Tensor& operator=(const Tensor&) = default;
  // A moved-from tensor is empty and invalid again.
  Tensor(Tensor&& other) noexcept
      : dtype_(other.dtype_),
        shape_(std::move(other.shape_)),
        num_elements_(other.num_elements_),
        buffer_(std::move(other.buffer_)),
        offset_(other.offset_) {
    other.dtype_ = DT_INVALID;
    other.num_elements_ = 0;
    other.offset_ = 0;
  }
  Tensor& operator=(Tensor&& other) noexcept {
    if (this != &other) {
      dtype_ = other.dtype_;
      shape_ = std::move(other.shape_);
      num_elements_ = other.num_elements_;
      buffer_ = std::move(other.buffer_);
      offset_ = other.offset_;
      other.dtype_ = DT_INVALID;
      other.num_elements_ = 0;
      other.offset_ = 0;
    }
    return *this;
  }
  // Allocates an uninitialized tensor. The shape must be valid; a byte size
  // that overflows, or memory that cannot be had, throws
  // TensorAllocationError (a std::bad_alloc naming the shape and dtype).
  Tensor(DataType dtype, TensorShape shape);
  // The checked form: InvalidArgument for a negative dimension,
  // ResourceExhausted for a size that overflows, exceeds MaxTensorBytes()
  // or cannot be allocated; each message names the shape and dtype.
  static Status Allocate(DataType dtype, const TensorShape& shape, Tensor* out);
  Tensor(DataType dtype, TensorShape shape,
         std::shared_ptr<TensorBuffer> buffer, size_t offset = 0);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeOf<T>::value, TensorShape());
    t.data<T>()[0] = value;
    return t;
  }
  template <typename T>
  static Tensor Vector(const std::vector<T>& values) {
    Tensor t(DataTypeOf<T>::value,
             TensorShape({static_cast<int64_t>(values.size())}));
    for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
    return t;
  }

  bool valid() const { return dtype_ != DT_INVALID; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return num_elements_; }
  size_t num_bytes() const { return num_elements_ * DataTypeSize(dtype_); }

  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(raw_data());
  }
  void* raw_data() const {
    return buffer_ ? static_cast<char*>(buffer_->data()) + offset_ : nullptr;
  }
  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }
  // True when this Tensor (or its copies) is the only user of the buffer,
  // so the buffer may be written in place or reused.
  bool BufferUniquelyOwned() const {
    return buffer_ && buffer_.use_count() == 1 && buffer_->owned();
  }

  // A view with another shape of the same number of elements.
  Status Reshaped(const TensorShape& shape, Tensor* out) const;
  // A view of rows [begin, end) along dimension 0 (zero-copy).
  Tensor Slice(int64_t begin, int64_t end) const;
  // A copy with its own buffer.
  Tensor DeepCopy() const;

  // Element-wise equality of dtype, shape and values (tests).
  bool SameContents(const Tensor& other) const;
  std::string DebugString(int max_entries = 8) const;

  // TensorProto conversion: ToProto writes tensor_content (string_val for
  // strings); FromProto also accepts the *_val fields.
  void ToProto(TensorProto* proto) const;
  static Status FromProto(const TensorProto& proto, Tensor* out);

 private:
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_ = 0;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_TENSOR_H_
