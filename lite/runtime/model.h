// Model: a verified, read-only .twl flatbuffer, mapped from a file or
// borrowed from a caller's buffer. Weights are never copied.
#ifndef TENSORWEAVE_LITE_RUNTIME_MODEL_H_
#define TENSORWEAVE_LITE_RUNTIME_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lite/runtime/status.h"
#include "lite/schema/twl_generated.h"

namespace twl {

// The schema version this runtime writes and the newest it reads.
constexpr uint32_t kSchemaVersion = 1;

class Model {
 public:
  // Maps `path` read-only and verifies it.
  static Status CreateFromFile(const char* path, std::unique_ptr<Model>* model);
  // Verifies `data` and keeps a pointer to it: the caller keeps the bytes
  // alive and unchanged while the model (and its interpreters) live. `data`
  // must be 16-byte aligned; weights are 64-byte aligned when it is.
  static Status CreateFromBuffer(const void* data, size_t size,
                                 std::unique_ptr<Model>* model);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const schema::Model* fb() const { return fb_; }
  const schema::SubGraph* main_subgraph() const {
    return fb_->subgraphs()->Get(0);
  }
  const uint8_t* data() const { return data_; }
  // For a model mapped from a file: drops the whole pages inside
  // [ptr, ptr + bytes) from memory (madvise); a later read re-faults them
  // from the file. Does nothing for a caller's buffer.
  void DropPages(const void* ptr, size_t bytes) const;
  size_t size() const { return size_; }

 private:
  Model() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when the model owns an mmap
  const schema::Model* fb_ = nullptr;
};

// Structural (flatbuffers Verifier) then semantic checks; see model.cc.
Status VerifyModel(const uint8_t* data, size_t size);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_MODEL_H_
