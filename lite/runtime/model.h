// Model: a verified, read-only .twl flatbuffer, mapped from a file, borrowed
// from a caller's buffer or copied from it. Weights are never copied after
// loading: the bytes verified are the bytes used.
#ifndef TENSORWEAVE_LITE_RUNTIME_MODEL_H_
#define TENSORWEAVE_LITE_RUNTIME_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lite/runtime/checksum.h"
#include "lite/runtime/status.h"
#include "lite/schema/twl_generated.h"

namespace twl {

// The schema version this runtime writes and the newest it reads.
constexpr uint32_t kSchemaVersion = 1;

struct ModelOptions {
  // Check the file's integrity trailer (CRC-32 over the whole file) when it
  // has one. Off saves one pass over the bytes (memory bandwidth); the
  // structural and semantic verification always runs.
  bool verify_checksum = true;
  // CreateFromBuffer only: copy the bytes into memory the model owns before
  // verifying them; the caller may then change or free its buffer at once.
  bool copy_buffer = false;
};

class Model {
 public:
  // Maps `path` read-only (private mapping) and verifies it.
  static Status CreateFromFile(const char* path, const ModelOptions& options,
                               std::unique_ptr<Model>* model);
  static Status CreateFromFile(const char* path,
                               std::unique_ptr<Model>* model) {
    return CreateFromFile(path, ModelOptions(), model);
  }
  // Verifies `data`. Without options.copy_buffer it keeps a pointer to it:
  // the caller keeps the bytes alive and unchanged while the model (and its
  // interpreters) live, since they are read again after verification; `data`
  // must then be 16-byte aligned (weights are 64-byte aligned when it is).
  // With copy_buffer any alignment is fine and the caller's bytes are read
  // only during this call.
  static Status CreateFromBuffer(const void* data, size_t size,
                                 const ModelOptions& options,
                                 std::unique_ptr<Model>* model);
  static Status CreateFromBuffer(const void* data, size_t size,
                                 std::unique_ptr<Model>* model) {
    return CreateFromBuffer(data, size, ModelOptions(), model);
  }
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
  // Whether the file carries an integrity trailer, and its CRC-32.
  bool has_checksum() const { return integrity_.present; }
  uint32_t checksum() const { return integrity_.stored; }

 private:
  Model() = default;
  // Checks the integrity trailer, then verifies and adopts `data`.
  static Status Load(const uint8_t* data, size_t size,
                     const ModelOptions& options,
                     std::unique_ptr<Model>* model);
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when the model owns an mmap
  void* copy_ = nullptr;     // non-null when the model owns a copy
  Integrity integrity_;
  const schema::Model* fb_ = nullptr;
};

// Structural (flatbuffers Verifier) then semantic checks of the flatbuffer
// (without its integrity trailer); see model_verifier.cc.
Status VerifyModel(const uint8_t* data, size_t size);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_MODEL_H_
