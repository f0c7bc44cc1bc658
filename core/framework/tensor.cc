#include "core/framework/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <new>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/framework/graph.pb.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tensorweave {

namespace {

// Freed large buffers, kept for the next allocation of the same rounded
// size. A training step allocates the same large tensors every step; freed
// to malloc they go back to the kernel (mmap, or the trim of a thread's
// arena) and each step pays to fault and zero their pages again, which
// costs ~10% of a small MLP's step. Bounded: a buffer that would push the
// cache past kMaxCachedBytes evicts others first; buffers over a quarter
// of it are not kept (at 256 MiB: a batch of 32 299x299x3 float images,
// 34 MiB, is kept; at 64 MiB each ResizeBilinear to it spent ~40% of its
// time faulting in its output).
class LargeBufferCache {
 public:
  // From 4 KiB: an RNN step's gates and states (a batch of 32 x 256 floats,
  // 32 KiB) come and go ~1,700 times in a training step of a 2-layer LSTM,
  // and glibc serves such sizes without its thread cache (memalign, then
  // coalescing on free: ~4% of that step's CPU time).
  static constexpr size_t kMinBytes = size_t{4} << 10;
  static constexpr size_t kMaxCachedBytes = size_t{256} << 20;

  static LargeBufferCache* Get() {
    static LargeBufferCache* cache = new LargeBufferCache();  // never freed
    return cache;
  }

  void* Take(size_t capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(capacity);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_bytes_ -= capacity;
    return p;
  }

  // Keeps `p` (of `capacity` bytes) for reuse, or frees it.
  void Give(void* p, size_t capacity) {
    if (capacity > kMaxCachedBytes / 4) {
      std::free(p);
      return;
    }
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = free_.begin();
           cached_bytes_ + capacity > kMaxCachedBytes && it != free_.end();) {
        while (!it->second.empty() &&
               cached_bytes_ + capacity > kMaxCachedBytes) {
          evicted.push_back(it->second.back());
          it->second.pop_back();
          cached_bytes_ -= it->first;
        }
        it = it->second.empty() ? free_.erase(it) : std::next(it);
      }
      free_[capacity].push_back(p);
      cached_bytes_ += capacity;
    }
    for (void* e : evicted) std::free(e);
  }

  size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_bytes_;
  }

 private:
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_bytes_ = 0;
};

// Buffers of at least kHugeBytes are whole 2 MiB pages, 2 MiB aligned and
// marked for transparent huge pages (what numpy does from 4 MiB): a fresh
// 32 MiB tensor then takes 16 page faults instead of 8192, which cost ~1 us
// each on a VM (a 2048x4096 concat went from 13 ms to numpy's speed).
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeBytes = size_t{4} << 20;

// Sizes from 64 KiB round up to whole pages so that near sizes share a
// bucket (smaller ones to the alignment only: a page would double a 4 KiB
// buffer).
constexpr size_t kPageRoundedBytes = size_t{64} << 10;
size_t BufferCapacity(size_t bytes) {
  size_t rounded =
      (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  if (rounded == 0) rounded = kTensorAlignment;
  if (rounded >= kPageRoundedBytes) {
    const size_t page = rounded >= kHugeBytes ? kHugePage : 4096;
    rounded = (rounded + page - 1) / page * page;
  }
  return rounded;
}

void* AllocateAligned(size_t capacity) {
  if (capacity < kHugeBytes)
    return std::aligned_alloc(kTensorAlignment, capacity);
  void* p = std::aligned_alloc(kHugePage, capacity);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p != nullptr) madvise(p, capacity, MADV_HUGEPAGE);  // a hint only
#endif
  return p;
}

}  // namespace

// A buffer and its shared_ptr control block are one allocation (make_shared);
// a small one (a scalar, a shape) holds its data in that allocation too: one
// malloc per small tensor instead of three, which is most of what a loop of
// scalar ops allocates.
struct TensorBuffer::Heap : TensorBuffer {};
struct TensorBuffer::Inline : TensorBuffer {
  alignas(kTensorAlignment) unsigned char storage[kTensorAlignment];
};

namespace {

// The blocks of small tensors (an Inline buffer with its control block,
// 64-byte aligned), recycled per thread. Through aligned operator new they
// would come from glibc's memalign, which bypasses its per-thread cache:
// ~100 ns for each allocation and free, 17% of a while_loop of scalar ops.
// Each thread keeps up to kKept freed blocks; a block freed on another
// thread than its allocation's simply joins that thread's list.
struct SmallBlockCache {
  static constexpr int kKept = 64;
  void* blocks[kKept];
  int count;
  bool gone;  // the thread is exiting: its cache is freed
};
thread_local SmallBlockCache small_blocks{};  // trivially destructible
struct SmallBlockCacheFreer {
  bool registered = false;
  ~SmallBlockCacheFreer() {
    for (int i = 0; i < small_blocks.count; ++i)
      std::free(small_blocks.blocks[i]);
    small_blocks.count = 0;
    small_blocks.gone = true;
  }
};
thread_local SmallBlockCacheFreer small_blocks_freer;

template <typename T>
struct SmallBlockAllocator {
  using value_type = T;
  SmallBlockAllocator() = default;
  template <typename U>
  SmallBlockAllocator(const SmallBlockAllocator<U>&) {}
  T* allocate(size_t n) {
    static_assert(sizeof(T) % alignof(T) == 0);
    if (n == 1 && small_blocks.count > 0) {
      return static_cast<T*>(small_blocks.blocks[--small_blocks.count]);
    }
    void* p = std::aligned_alloc(alignof(T), n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n == 1 && !small_blocks.gone &&
        small_blocks.count < SmallBlockCache::kKept) {
      small_blocks_freer.registered = true;  // its destructor runs at exit
      small_blocks.blocks[small_blocks.count++] = p;
      return;
    }
    std::free(p);
  }
  template <typename U>
  bool operator==(const SmallBlockAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const SmallBlockAllocator<U>&) const {
    return false;
  }
};

}  // namespace

std::shared_ptr<TensorBuffer> TensorBuffer::Allocate(size_t bytes) {
  const size_t capacity = BufferCapacity(bytes);
  if (capacity <= sizeof(Inline::storage)) {
    auto buffer = std::allocate_shared<Inline>(SmallBlockAllocator<Inline>());
    buffer->data_ = buffer->storage;
    buffer->inline_ = true;
    buffer->size_ = bytes;
    buffer->capacity_ = capacity;
    return buffer;
  }
  std::shared_ptr<TensorBuffer> buffer = std::make_shared<Heap>();
  if (capacity >= LargeBufferCache::kMinBytes) {
    buffer->data_ = LargeBufferCache::Get()->Take(capacity);
  }
  if (buffer->data_ == nullptr) buffer->data_ = AllocateAligned(capacity);
  if (buffer->data_ == nullptr) throw std::bad_alloc();
  buffer->size_ = bytes;
  buffer->capacity_ = capacity;
  return buffer;
}

size_t TensorBuffer::CachedBytesForTesting() {
  return LargeBufferCache::Get()->cached_bytes();
}

std::shared_ptr<TensorBuffer> TensorBuffer::AllocateStrings(
    int64_t num_strings) {
  auto buffer = Allocate(num_strings * sizeof(std::string));
  auto* strings = static_cast<std::string*>(buffer->data_);
  for (int64_t i = 0; i < num_strings; ++i) new (&strings[i]) std::string();
  buffer->num_strings_ = num_strings;
  return buffer;
}

std::shared_ptr<TensorBuffer> TensorBuffer::Borrow(
    void* data, size_t bytes, std::function<void()> release) {
  std::shared_ptr<TensorBuffer> buffer = std::make_shared<Heap>();
  buffer->data_ = data;
  buffer->size_ = bytes;
  buffer->release_ = release ? std::move(release) : [] {};
  return buffer;
}

std::shared_ptr<TensorBuffer> TensorBuffer::Adopt(
    void* data, size_t bytes, std::function<void()> release) {
  std::shared_ptr<TensorBuffer> buffer =
      Borrow(data, bytes, std::move(release));
  buffer->adopted_ = true;
  return buffer;
}

TensorBuffer::~TensorBuffer() {
  if (release_) {
    release_();
    return;
  }
  auto* strings = static_cast<std::string*>(data_);
  for (int64_t i = 0; i < num_strings_; ++i) strings[i].~basic_string();
  if (inline_) return;
  if (capacity_ >= LargeBufferCache::kMinBytes) {
    LargeBufferCache::Get()->Give(data_, capacity_);
  } else {
    std::free(data_);
  }
}

namespace {

[[noreturn]] void ThrowAllocationError(DataType dtype, const TensorShape& shape,
                                       const std::string& why) {
  throw TensorAllocationError(StrCat("OOM when allocating tensor with shape ",
                                     shape.ToString(), " and type ",
                                     DataTypeName(dtype), ": ", why));
}

}  // namespace

Tensor::Tensor(DataType dtype, TensorShape shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  int64_t bytes;
  if (!NumElementsOf(shape_.dims(), &num_elements_).ok() ||
      !TensorByteSize(dtype, num_elements_, &bytes)) {
    ThrowAllocationError(dtype_, shape_, "invalid or overflowing size");
  }
  try {
    buffer_ = dtype == DT_STRING ? TensorBuffer::AllocateStrings(num_elements_)
                                 : TensorBuffer::Allocate(bytes);
  } catch (const TensorAllocationError&) {
    throw;
  } catch (const std::bad_alloc&) {
    ThrowAllocationError(dtype_, shape_,
                         StrCat(bytes, " bytes could not be allocated"));
  }
}

Status Tensor::Allocate(DataType dtype, const TensorShape& shape, Tensor* out) {
  TW_RETURN_IF_ERROR(CheckTensorAllocation(dtype, shape));
  try {
    *out = Tensor(dtype, shape);
  } catch (const std::bad_alloc& e) {
    return errors::ResourceExhausted(e.what());
  }
  return Status::OK();
}

Tensor::Tensor(DataType dtype, TensorShape shape,
               std::shared_ptr<TensorBuffer> buffer, size_t offset)
    : dtype_(dtype),
      shape_(std::move(shape)),
      num_elements_(shape_.num_elements()),
      buffer_(std::move(buffer)),
      offset_(offset) {}

Status Tensor::Reshaped(const TensorShape& shape, Tensor* out) const {
  int64_t count;
  TW_RETURN_IF_ERROR(NumElementsOf(shape.dims(), &count));
  if (count != num_elements_) {
    return errors::InvalidArgument("cannot reshape a tensor with ",
                                   num_elements_, " elements to shape ",
                                   shape.ToString(), " (", count, " elements)");
  }
  *out = Tensor(dtype_, shape, buffer_, offset_);
  return Status::OK();
}

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  TensorShape shape = shape_;
  shape.set_dim(0, end - begin);
  int64_t row = shape_.dim(0) == 0 ? 0 : num_elements_ / shape_.dim(0);
  size_t elem =
      dtype_ == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype_);
  return Tensor(dtype_, shape, buffer_, offset_ + begin * row * elem);
}

Tensor Tensor::DeepCopy() const {
  Tensor copy(dtype_, shape_);
  if (dtype_ == DT_STRING) {
    for (int64_t i = 0; i < num_elements_; ++i) {
      copy.data<std::string>()[i] = data<std::string>()[i];
    }
  } else if (num_elements_ > 0) {
    std::memcpy(copy.raw_data(), raw_data(), num_bytes());
  }
  return copy;
}

bool Tensor::SameContents(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (dtype_ == DT_STRING) {
    for (int64_t i = 0; i < num_elements_; ++i) {
      if (data<std::string>()[i] != other.data<std::string>()[i]) return false;
    }
    return true;
  }
  return num_elements_ == 0 ||
         std::memcmp(raw_data(), other.raw_data(), num_bytes()) == 0;
}

std::string Tensor::DebugString(int max_entries) const {
  std::ostringstream out;
  out << "Tensor<" << DataTypeName(dtype_) << " " << shape_.ToString() << ">";
  if (!valid()) return out.str();
  out << " [";
  int64_t n = std::min<int64_t>(num_elements_, max_entries);
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out << ", ";
    Status s = DispatchType<TW_POD_TYPES, std::string>(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> ||
                    std::is_same_v<T, bool>) {
        out << static_cast<int>(data<T>()[i]);
      } else {
        out << data<T>()[i];
      }
      return Status::OK();
    });
  }
  if (n < num_elements_) out << ", ...";
  out << "]";
  return out.str();
}

void Tensor::ToProto(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(static_cast<::tensorweave::DataType>(dtype_));
  PartialShape(shape_).ToProto(proto->mutable_tensor_shape());
  if (dtype_ == DT_STRING) {
    for (int64_t i = 0; i < num_elements_; ++i) {
      proto->add_string_val(data<std::string>()[i]);
    }
  } else {
    proto->set_tensor_content(raw_data(), num_bytes());
  }
}

namespace {

// Bytes of memory this process can still get without swapping or the OOM
// killer: the smaller of the kernel's MemAvailable and the room left under
// a cgroup (v2) memory limit; max() where neither can be read.
int64_t AvailableMemoryBytes() {
  int64_t available = std::numeric_limits<int64_t>::max();
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib;
  std::string unit;
  while (meminfo >> key >> kib) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") {
      int64_t bytes;
      if (MultiplyWithoutOverflow(kib, 1024, &bytes)) available = bytes;
      break;
    }
  }
  std::ifstream max_file("/sys/fs/cgroup/memory.max");
  std::ifstream current_file("/sys/fs/cgroup/memory.current");
  int64_t limit, current;
  if ((max_file >> limit) && (current_file >> current) && limit > current) {
    available = std::min(available, limit - current);
  }
  return available;
}

// A TensorProto's dtype, shape and values travel with it, and each of them
// may lie. As TensorFlow's FromProto: a tensor of N > 0 elements takes its
// values from tensor_content (exactly N elements' bytes; strings in
// TensorFlow's encoding: N varint32 lengths, then the bytes) or else from
// the dtype's *_val field: none fills zeros (empty strings), K < N values
// are followed by copies of the last, more than N are cut to N. N == 0
// ignores the values. Every failure is InvalidArgument (TensorFlow's class
// for a proto it cannot turn into a tensor, including one too large to
// allocate) and names the dtype and shape.
class ProtoDecoder {
 public:
  ProtoDecoder(const TensorProto& proto, DataType dtype,
               const TensorShape& shape)
      : proto_(proto), dtype_(dtype), shape_(shape) {}

  Status Error(const std::string& what) const {
    return errors::InvalidArgument("Cannot parse a ", DataTypeName(dtype_),
                                   " tensor of shape ", shape_.ToString(),
                                   " from a TensorProto: ", what);
  }

  // Allocates `tensor` after checking its size: `given_bytes` is how much of
  // it the proto's own data covers; a fill of the rest must fit in the
  // memory that is free, not only under MaxTensorBytes().
  Status Allocate(int64_t given_bytes, Tensor* tensor) const {
    Status s = CheckTensorAllocation(dtype_, shape_);
    if (!s.ok()) return Error(s.message());
    int64_t bytes = 0;
    TensorByteSize(dtype_, shape_.num_elements(), &bytes);  // checked above
    constexpr int64_t kCheckFillsFrom = int64_t{64} << 20;
    if (bytes - given_bytes > kCheckFillsFrom) {
      const int64_t available = AvailableMemoryBytes();
      if (bytes > available) {
        return Error(StrCat("its ", bytes, " bytes, filled from ", given_bytes,
                            " bytes of values, exceed the ", available,
                            " bytes of memory available"));
      }
    }
    s = Tensor::Allocate(dtype_, shape_, tensor);
    return s.ok() ? s : Error(s.message());
  }

  // tensor_content of a numeric dtype: exactly the tensor's bytes.
  Status FromContent(Tensor* out) const {
    const std::string& content = proto_.tensor_content();
    int64_t count = shape_.num_elements(), bytes;
    if (!TensorByteSize(dtype_, count, &bytes)) {
      return Error(StrCat("tensor_content has ", content.size(),
                          " bytes, but the tensor's ", count,
                          " elements do not fit in int64 bytes"));
    }
    if (static_cast<int64_t>(content.size()) != bytes) {
      return Error(StrCat("tensor_content has ", content.size(),
                          " bytes, but the tensor needs ", bytes, " (", count,
                          " elements of ", DataTypeSize(dtype_), " bytes)"));
    }
    TW_RETURN_IF_ERROR(Allocate(bytes, out));
    std::memcpy(out->raw_data(), content.data(), bytes);
    return Status::OK();
  }

  // tensor_content of a string tensor: N varint32 lengths, then the bytes.
  Status StringsFromContent(Tensor* out) const {
    const std::string& content = proto_.tensor_content();
    const int64_t n = shape_.num_elements();
    // Each string takes at least one byte (its length).
    if (n > static_cast<int64_t>(content.size())) {
      return Error(StrCat("tensor_content of ", content.size(),
                          " bytes is too short for ", n, " strings"));
    }
    std::vector<uint32_t> lengths(n);
    size_t pos = 0;
    uint64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t v = 0;
      for (int shift = 0;; shift += 7) {
        if (pos >= content.size() || shift > 28) {
          return Error(
              StrCat("malformed length of string ", i, " in tensor_content"));
        }
        const unsigned char c = static_cast<unsigned char>(content[pos++]);
        v |= static_cast<uint32_t>(c & 0x7f) << shift;
        if (c < 0x80) break;
      }
      lengths[i] = v;
      total += v;
    }
    if (total != content.size() - pos) {
      return Error(StrCat("tensor_content has ", content.size() - pos,
                          " bytes for strings of ", total, " bytes"));
    }
    TW_RETURN_IF_ERROR(Allocate(content.size(), out));
    std::string* strings = out->data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      strings[i].assign(content, pos, lengths[i]);
      pos += lengths[i];
    }
    return Status::OK();
  }

  // A *_val field, stored as T in the tensor.
  template <typename T, typename Field>
  Status FromValues(const Field& values, Tensor* out) const {
    const int64_t n = shape_.num_elements();
    const int64_t k = std::min<int64_t>(values.size(), n);
    int64_t given = 0;
    if constexpr (std::is_same_v<T, std::string>) {
      for (int64_t i = 0; i < k; ++i) given += values[i].size();
    } else {
      given = k * static_cast<int64_t>(DataTypeSize(dtype_));
    }
    TW_RETURN_IF_ERROR(Allocate(given, out));
    T* data = reinterpret_cast<T*>(out->raw_data());
    for (int64_t i = 0; i < k; ++i) data[i] = static_cast<T>(values[i]);
    const T fill = k > 0 ? data[k - 1] : T();
    std::fill(data + k, data + n, fill);
    return Status::OK();
  }

  // scomplex_val / dcomplex_val: (real, imaginary) pairs.
  template <typename T, typename Field>
  Status FromComplexValues(const Field& values, Tensor* out) const {
    if (values.size() % 2 != 0) {
      return Error(StrCat("has ", values.size(),
                          " complex components, not (real, imaginary) pairs"));
    }
    const int64_t n = shape_.num_elements();
    const int64_t k = std::min<int64_t>(values.size() / 2, n);
    TW_RETURN_IF_ERROR(
        Allocate(k * static_cast<int64_t>(DataTypeSize(dtype_)), out));
    T* data = reinterpret_cast<T*>(out->raw_data());
    for (int64_t i = 0; i < k; ++i)
      data[i] = T(values[2 * i], values[2 * i + 1]);
    const T fill = k > 0 ? data[k - 1] : T();
    std::fill(data + k, data + n, fill);
    return Status::OK();
  }

  Status Decode(Tensor* out) const {
    if (dtype_ == DT_STRING) {
      if (!proto_.tensor_content().empty()) return StringsFromContent(out);
      return FromValues<std::string>(proto_.string_val(), out);
    }
    if (!proto_.tensor_content().empty()) return FromContent(out);
    switch (dtype_) {
      case DT_FLOAT:
        return FromValues<float>(proto_.float_val(), out);
      case DT_DOUBLE:
        return FromValues<double>(proto_.double_val(), out);
      case DT_INT32:
        return FromValues<int32_t>(proto_.int_val(), out);
      case DT_UINT8:
        return FromValues<uint8_t>(proto_.int_val(), out);
      case DT_INT8:
        return FromValues<int8_t>(proto_.int_val(), out);
      case DT_INT16:
        return FromValues<int16_t>(proto_.int_val(), out);
      case DT_UINT16:
        return FromValues<uint16_t>(proto_.int_val(), out);
      case DT_INT64:
        return FromValues<int64_t>(proto_.int64_val(), out);
      case DT_BOOL:
        return FromValues<bool>(proto_.bool_val(), out);
      case DT_UINT32:
        return FromValues<uint32_t>(proto_.uint32_val(), out);
      case DT_UINT64:
        return FromValues<uint64_t>(proto_.uint64_val(), out);
      case DT_HALF:  // bit patterns in half_val
      case DT_BFLOAT16:
        return FromValues<uint16_t>(proto_.half_val(), out);
      case DT_COMPLEX64:
        return FromComplexValues<complex64>(proto_.scomplex_val(), out);
      case DT_COMPLEX128:
        return FromComplexValues<complex128>(proto_.dcomplex_val(), out);
      default:
        return Error("unsupported dtype");
    }
  }

 private:
  const TensorProto& proto_;
  const DataType dtype_;
  const TensorShape& shape_;
};

}  // namespace

Status Tensor::FromProto(const TensorProto& proto, Tensor* out) {
  if (!IsValidDataType(proto.dtype())) {
    return errors::InvalidArgument("TensorProto has unsupported dtype ",
                                   static_cast<int>(proto.dtype()));
  }
  const DataType dtype = static_cast<DataType>(proto.dtype());
  PartialShape partial;
  TW_RETURN_IF_ERROR(PartialShape::FromProto(proto.tensor_shape(), &partial));
  if (!partial.IsFullyDefined()) {
    return errors::InvalidArgument("TensorProto shape ", partial.ToString(),
                                   " is not fully defined");
  }
  TensorShape shape;
  Status s = TensorShape::Build(partial.dims(), &shape);
  if (!s.ok()) {
    return errors::InvalidArgument("TensorProto of type ", DataTypeName(dtype),
                                   ": ", s.message());
  }
  ProtoDecoder decoder(proto, dtype, shape);
  Tensor tensor;
  if (shape.num_elements() == 0) {
    // TensorFlow ignores the values of an empty tensor.
    TW_RETURN_IF_ERROR(decoder.Allocate(0, &tensor));
  } else {
    TW_RETURN_IF_ERROR(decoder.Decode(&tensor));
  }
  *out = std::move(tensor);
  return Status::OK();
}

}  // namespace tensorweave
