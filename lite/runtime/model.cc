#include "lite/runtime/model.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace twl {

Model::~Model() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
  free(copy_);
}

Status Model::Load(const uint8_t* data, size_t size,
                   const ModelOptions& options, std::unique_ptr<Model>* model) {
  Integrity integrity;
  TWL_RETURN_IF_ERROR(
      CheckIntegrity(data, size, options.verify_checksum, &integrity));
  TWL_RETURN_IF_ERROR(VerifyModel(data, integrity.flatbuffer_size));
  std::unique_ptr<Model> result(new (std::nothrow) Model());
  if (!result) {
    return Status::Error(StatusCode::kResourceExhausted, "out of memory");
  }
  result->data_ = data;
  result->size_ = size;
  result->integrity_ = integrity;
  result->fb_ = schema::GetModel(data);
  *model = std::move(result);
  return Status::Ok();
}

Status Model::CreateFromBuffer(const void* data, size_t size,
                               const ModelOptions& options,
                               std::unique_ptr<Model>* model) {
  if (data == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "model buffer is null");
  }
  if (!options.copy_buffer) {
    if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "model buffer must be 16-byte aligned");
    }
    return Load(static_cast<const uint8_t*>(data), size, options, model);
  }
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE + kIntegrityTrailerSize) {
    return Status::Error(StatusCode::kInvalidModel,
                         "model size %zu is out of range", size);
  }
  // 64-byte aligned like a mapped file, so weights stay aligned.
  void* copy = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  if (copy == nullptr) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "cannot allocate %zu bytes for a copy of the model",
                         size);
  }
  if (size != 0) memcpy(copy, data, size);
  Status status = Load(static_cast<const uint8_t*>(copy), size, options, model);
  if (!status.ok()) {
    free(copy);
    return status;
  }
  (*model)->copy_ = copy;
  return Status::Ok();
}

Status Model::CreateFromFile(const char* path, const ModelOptions& options,
                             std::unique_ptr<Model>* model) {
  if (path == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "model path is null");
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::Error(StatusCode::kIoError, "cannot open model '%s': %s",
                         path, strerror(errno));
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return Status::Error(StatusCode::kIoError,
                         "model '%s' is not a regular file", path);
  }
  size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    close(fd);
    return Status::Error(StatusCode::kInvalidModel, "model '%s' is empty",
                         path);
  }
  void* mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  close(fd);
  if (mapping == MAP_FAILED) {
    return Status::Error(StatusCode::kIoError, "cannot map model '%s': %s",
                         path, strerror(map_errno));
  }
  ModelOptions map_options = options;
  map_options.copy_buffer = false;
  Status status = CreateFromBuffer(mapping, size, map_options, model);
  if (!status.ok()) {
    munmap(mapping, size);
    return status.WithPrefix("model '%s'", path);
  }
  // Small pages, so that DropPages can release the weights a kernel has
  // copied (a huge-page mapping of a fresh file would pin them all).
  madvise(mapping, size, MADV_NOHUGEPAGE);
  (*model)->mapping_ = mapping;
  return Status::Ok();
}

void Model::DropPages(const void* ptr, size_t bytes) const {
  if (mapping_ == nullptr || ptr == nullptr) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(mapping_);
  const uintptr_t start = reinterpret_cast<uintptr_t>(ptr);
  if (start < begin || start + bytes > begin + size_) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (start + page - 1) / page * page;
  const uintptr_t last = (start + bytes) / page * page;
  if (last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  }
}

}  // namespace twl
