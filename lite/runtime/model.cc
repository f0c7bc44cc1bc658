#include "lite/runtime/model.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace twl {

Model::~Model() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
}

Status Model::CreateFromBuffer(const void* data, size_t size,
                               std::unique_ptr<Model>* model) {
  if (data == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "model buffer is null");
  }
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "model buffer must be 16-byte aligned");
  }
  TWL_RETURN_IF_ERROR(VerifyModel(static_cast<const uint8_t*>(data), size));
  std::unique_ptr<Model> result(new (std::nothrow) Model());
  if (!result) {
    return Status::Error(StatusCode::kResourceExhausted, "out of memory");
  }
  result->data_ = static_cast<const uint8_t*>(data);
  result->size_ = size;
  result->fb_ = schema::GetModel(data);
  *model = std::move(result);
  return Status::Ok();
}

Status Model::CreateFromFile(const char* path, std::unique_ptr<Model>* model) {
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
  Status status = CreateFromBuffer(mapping, size, model);
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
