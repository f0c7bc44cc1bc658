// Kernels of TF1's readers (core/ops/reader_ops.cc). A reader is a session
// resource that turns work units (filenames, dequeued from a queue of strings
// when it needs one) into records (key, value), in TensorFlow's ReaderBase
// protocol: a work unit starts (the file opens), records come out until the
// unit is at its end, then the next unit is dequeued; a closed, empty queue
// ends the reading with OutOfRange.
//
// A read may wait for a work unit, so ReaderReadV2 and ReaderReadUpToV2 run
// on a thread of their own kernel (as TensorFlow's do), never on the step's
// threads; the wait ends when the queue serves it, closes, or the step is
// cancelled (its timeout, Session::Close).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/queue_base.h"
#include "core/kernels/session_resource_handle.h"
#include "core/platform/thread_pool.h"
#include "core/util/record_io.h"

namespace tensorweave {
namespace {

// Reads from files go in pieces of this many bytes.
constexpr size_t kChunkBytes = 64 << 10;
// Attr sizes beyond this are refused (their sums must not overflow).
constexpr int64_t kMaxAttrBytes = int64_t{1} << 40;

// Blocks until `queue` (a queue of one string component) gives a work unit.
Status DequeueWork(QueueBase* queue, CancellationManager* cancellation,
                   std::string* work) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status result;
  queue->TryDequeue(1, /*many=*/false, /*allow_small=*/false, cancellation,
                    [&](const Status& status, const QueueBase::Tuple& tuple) {
                      Status s = status;
                      if (s.ok()) {
                        if (tuple.size() != 1 ||
                            tuple[0].dtype() != DT_STRING ||
                            tuple[0].num_elements() != 1) {
                          s = errors::InvalidArgument(
                              "Expected to dequeue a one-element string "
                              "tensor from ",
                              queue->DebugString(), " '", queue->name(), "'");
                        } else {
                          *work = tuple[0].data<std::string>()[0];
                        }
                      }
                      std::lock_guard<std::mutex> lock(mu);
                      result = s;
                      finished = true;
                      cv.notify_all();
                    });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

// ---------------------------------------------------------------------------
// The state every reader keeps (TensorFlow's ReaderBase), and the protocol
// around the hooks a kind of reader implements. All hooks run under mu_.
class Reader : public ResourceBase {
 public:
  using NextWork = std::function<Status(std::string*)>;

  explicit Reader(std::string name) : name_(std::move(name)) {}
  std::string DebugString() const override { return name_; }

  Status Read(const NextWork& next_work, std::string* key, std::string* value) {
    std::lock_guard<std::mutex> lock(mu_);
    while (true) {
      TW_RETURN_IF_ERROR(StartWorkIfNeeded(next_work));
      bool produced = false, at_end = false;
      TW_RETURN_IF_ERROR(ReadRecord(key, value, &produced, &at_end));
      if (!produced && !at_end) {
        return errors::Internal(name_, " produced no record and no end");
      }
      if (at_end) TW_RETURN_IF_ERROR(FinishWork());
      if (produced) {
        ++records_produced_;
        return Status::OK();
      }
    }
  }

  // Up to n records: stops early only where a work unit ends after at least
  // one record of this call. Records taken before an error are lost with it,
  // as in TensorFlow.
  Status ReadUpTo(int64_t n, const NextWork& next_work,
                  std::vector<std::string>* keys,
                  std::vector<std::string>* values) {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t got = 0;
    while (got < n) {
      TW_RETURN_IF_ERROR(StartWorkIfNeeded(next_work));
      bool produced = false, at_end = false;
      std::string key, value;
      TW_RETURN_IF_ERROR(ReadRecord(&key, &value, &produced, &at_end));
      if (!produced && !at_end) {
        return errors::Internal(name_, " produced no record and no end");
      }
      if (produced) {
        keys->push_back(std::move(key));
        values->push_back(std::move(value));
        ++got;
        ++records_produced_;
      }
      if (at_end) {
        TW_RETURN_IF_ERROR(FinishWork());
        if (got > 0) break;
      }
    }
    return Status::OK();
  }

  // The counters are read without waiting for a read in progress (which
  // may wait for a work unit).
  int64_t NumRecordsProduced() const { return records_produced_.load(); }
  int64_t NumWorkUnitsCompleted() const { return work_finished_.load(); }
  Status Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    ResetLocked();
    return Status::OK();
  }

  // TensorFlow's ReaderBaseState protobuf: work_started = 1,
  // work_finished = 2, num_records_produced = 3 (varints), current_work = 4
  // (bytes); proto3, so zeros and "" are left out.
  Status SerializeState(std::string* state) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!SupportsSerialize()) {
      return errors::Unimplemented("Reader SerializeState (", name_, ")");
    }
    state->clear();
    const int64_t fields[3] = {work_started_, work_finished_.load(),
                               records_produced_.load()};
    for (int i = 0; i < 3; ++i) {
      if (fields[i] == 0) continue;
      state->push_back(static_cast<char>((i + 1) << 3));
      AppendVarint(static_cast<uint64_t>(fields[i]), state);
    }
    if (!work_.empty()) {
      state->push_back(static_cast<char>((4 << 3) | 2));
      AppendVarint(work_.size(), state);
      state->append(work_);
    }
    return Status::OK();
  }

  // A state that does not parse, or is inconsistent, is InvalidArgument and
  // leaves the reader reset (as TensorFlow).
  Status RestoreState(const std::string& state) {
    std::lock_guard<std::mutex> lock(mu_);
    Status s = SupportsSerialize()
                   ? RestoreLocked(state)
                   : errors::Unimplemented("Reader RestoreState (", name_, ")");
    if (!s.ok()) ResetLocked();
    return s;
  }

 protected:
  // A work unit starts: open the file (an error leaves it not started: the
  // next read dequeues another).
  virtual Status OnWorkStarted() { return Status::OK(); }
  virtual void OnWorkFinished() {}
  // One record, or *at_end (or both: the unit's last record).
  virtual Status ReadRecord(std::string* key, std::string* value,
                            bool* produced, bool* at_end) = 0;
  virtual void OnReset() {}
  virtual bool SupportsSerialize() const { return false; }

  const std::string& work() const { return work_; }
  const std::string& name() const { return name_; }

 private:
  Status StartWorkIfNeeded(const NextWork& next_work) {
    if (work_finished_ < work_started_) return Status::OK();
    std::string work;
    TW_RETURN_IF_ERROR(next_work(&work));
    work_ = std::move(work);
    TW_RETURN_IF_ERROR(OnWorkStarted());
    ++work_started_;
    return Status::OK();
  }
  Status FinishWork() {
    OnWorkFinished();
    work_finished_ = work_started_;
    return Status::OK();
  }
  void ResetLocked() {
    OnReset();
    work_started_ = 0;
    work_finished_ = 0;
    records_produced_ = 0;
    work_.clear();
  }

  static void AppendVarint(uint64_t v, std::string* out) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  }
  static bool ParseVarint(const std::string& s, size_t* pos, uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
      const uint8_t byte = static_cast<uint8_t>(s[(*pos)++]);
      *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  Status RestoreLocked(const std::string& state) {
    int64_t fields[3] = {0, 0, 0};
    std::string work;
    size_t pos = 0;
    const Status bad = errors::InvalidArgument(
        "Could not parse state for ", name_, " (", state.size(), " bytes)");
    while (pos < state.size()) {
      uint64_t tag = 0, v = 0;
      if (!ParseVarint(state, &pos, &tag)) return bad;
      const uint64_t field = tag >> 3, wire = tag & 7;
      if (field >= 1 && field <= 3 && wire == 0) {
        if (!ParseVarint(state, &pos, &v)) return bad;
        fields[field - 1] = static_cast<int64_t>(v);
      } else if (field == 4 && wire == 2) {
        if (!ParseVarint(state, &pos, &v) || v > state.size() - pos) {
          return bad;
        }
        work = state.substr(pos, static_cast<size_t>(v));
        pos += static_cast<size_t>(v);
      } else {
        return bad;
      }
    }
    if (fields[0] < 0 || fields[1] < 0 || fields[2] < 0) {
      return errors::InvalidArgument(
          "Unexpected negative value when restoring in ", name_);
    }
    if (fields[0] > fields[1]) {
      return errors::InvalidArgument(
          "Inconsistent work started vs. finished when restoring in ", name_);
    }
    OnReset();
    work_started_ = fields[0];
    work_finished_ = fields[1];
    records_produced_ = fields[2];
    work_ = std::move(work);
    return Status::OK();
  }

  const std::string name_;
  std::mutex mu_;
  std::string work_;
  int64_t work_started_ = 0;
  std::atomic<int64_t> work_finished_{0};
  std::atomic<int64_t> records_produced_{0};
};

// Records of TFRecord files; key "<file>:<offset of the record>" (in the
// decompressed stream). A corrupt record stays the answer of every later
// read of that file (TensorFlow's reader does not move past it either).
class TFRecordReader : public Reader {
 public:
  TFRecordReader(std::string name, std::string compression)
      : Reader(std::move(name)), compression_(std::move(compression)) {}

 protected:
  Status OnWorkStarted() override {
    OnReset();
    std::unique_ptr<io::InputStream> in;
    TW_RETURN_IF_ERROR(io::InputStream::Open(work(), compression_, -1, &in));
    reader_ = std::make_unique<io::RecordReader>(std::move(in));
    return Status::OK();
  }
  void OnWorkFinished() override { reader_.reset(); }
  Status ReadRecord(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    TW_RETURN_IF_ERROR(error_);
    *key = work() + ":" + std::to_string(offset_);
    value->clear();
    bool eof = false;
    error_ = reader_->ReadRecord(value, &eof);
    TW_RETURN_IF_ERROR(error_);
    if (eof) {
      *at_end = true;
    } else {
      *produced = true;
      offset_ += 16 + value->size();  // length, its CRC, data, its CRC
    }
    return Status::OK();
  }
  void OnReset() override {
    reader_.reset();
    offset_ = 0;
    error_ = Status::OK();
  }

 private:
  const std::string compression_;
  std::unique_ptr<io::RecordReader> reader_;
  uint64_t offset_ = 0;
  Status error_;
};

// Lines of files, without "\n" and a "\r" before it; key "<file>:<line>"
// (from 1, header lines counted).
class TextLineReader : public Reader {
 public:
  TextLineReader(std::string name, int64_t skip_header_lines)
      : Reader(std::move(name)), skip_header_lines_(skip_header_lines) {}

 protected:
  Status OnWorkStarted() override {
    OnReset();
    TW_RETURN_IF_ERROR(io::InputStream::Open(work(), "", -1, &in_));
    for (; line_ < skip_header_lines_; ++line_) {
      std::string line;
      bool got = false;
      TW_RETURN_IF_ERROR(NextLine(&line, &got));
      if (!got) break;  // a file of headers only has no records
    }
    return Status::OK();
  }
  void OnWorkFinished() override { in_.reset(); }
  Status ReadRecord(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    bool got = false;
    TW_RETURN_IF_ERROR(NextLine(value, &got));
    ++line_;
    if (got) {
      *key = work() + ":" + std::to_string(line_);
      *produced = true;
    } else {
      *at_end = true;
    }
    return Status::OK();
  }
  void OnReset() override {
    in_.reset();
    buffer_.clear();
    pos_ = 0;
    eof_ = false;
    line_ = 0;
  }

 private:
  // A last line without "\n" counts unless it is empty.
  Status NextLine(std::string* line, bool* got) {
    line->clear();
    while (true) {
      const size_t newline = buffer_.find('\n', pos_);
      if (newline != std::string::npos) {
        line->append(buffer_, pos_, newline - pos_);
        pos_ = newline + 1;
        *got = true;
        break;
      }
      line->append(buffer_, pos_, std::string::npos);
      buffer_.clear();
      pos_ = 0;
      if (eof_) {
        *got = false;
        break;
      }
      TW_RETURN_IF_ERROR(in_->ReadNBytes(kChunkBytes, &buffer_));
      eof_ = buffer_.size() < kChunkBytes;
    }
    if (!line->empty() && line->back() == '\r') line->pop_back();
    if (!*got) *got = !line->empty();
    return Status::OK();
  }

  const int64_t skip_header_lines_;
  std::unique_ptr<io::InputStream> in_;
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
  int64_t line_ = 0;
};

// One record per file: its contents, keyed by the filename.
class WholeFileReader : public Reader {
 public:
  using Reader::Reader;

 protected:
  // As TensorFlow's, the file opens in the read: a missing file fails every
  // read of that unit.
  Status ReadRecord(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    std::unique_ptr<io::InputStream> in;
    TW_RETURN_IF_ERROR(io::InputStream::Open(work(), "", -1, &in));
    value->clear();
    size_t before = 0;
    do {
      before = value->size();
      TW_RETURN_IF_ERROR(in->ReadNBytes(kChunkBytes, value));
    } while (value->size() - before == kChunkBytes);
    *key = work();
    *produced = *at_end = true;
    return Status::OK();
  }
  bool SupportsSerialize() const override { return true; }
};

// Fixed-size records after a header, hop_bytes apart, while a record and the
// footer remain; key "<file>:<record number>".
class FixedLengthRecordReader : public Reader {
 public:
  FixedLengthRecordReader(std::string name, int64_t header, int64_t record,
                          int64_t footer, int64_t hop, std::string encoding)
      : Reader(std::move(name)),
        header_(static_cast<uint64_t>(header)),
        record_(static_cast<uint64_t>(record)),
        footer_(static_cast<uint64_t>(footer)),
        hop_(static_cast<uint64_t>(hop == 0 ? record : hop)),
        encoding_(std::move(encoding)) {}

 protected:
  Status OnWorkStarted() override {
    OnReset();
    TW_RETURN_IF_ERROR(io::InputStream::Open(work(), encoding_, -1, &in_));
    uint64_t skipped = 0;
    TW_RETURN_IF_ERROR(in_->SkipNBytes(header_, &skipped));
    if (skipped < header_) {
      // TensorFlow's stream reports the short skip as OutOfRange.
      in_.reset();
      return errors::OutOfRange(name(), ": ", work(), " has ", skipped,
                                " bytes, fewer than header_bytes ", header_);
    }
    return Status::OK();
  }
  void OnWorkFinished() override { in_.reset(); }
  Status ReadRecord(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    if (record_number_ != 0) {
      if (hop_ <= cache_.size()) {
        cache_.erase(0, hop_);
      } else {
        const uint64_t skip = hop_ - cache_.size();
        cache_.clear();
        uint64_t skipped = 0;
        TW_RETURN_IF_ERROR(in_->SkipNBytes(skip, &skipped));
        if (skipped < skip) {
          *at_end = true;
          return Status::OK();
        }
      }
    }
    const size_t want = record_ + footer_ - cache_.size();
    const size_t before = cache_.size();
    TW_RETURN_IF_ERROR(in_->ReadNBytes(want, &cache_));
    if (cache_.size() - before < want) {
      cache_.resize(before);
      *at_end = true;
      return Status::OK();
    }
    value->assign(cache_, 0, record_);
    *key = work() + ":" + std::to_string(record_number_);
    *produced = true;
    ++record_number_;
    return Status::OK();
  }
  void OnReset() override {
    in_.reset();
    cache_.clear();
    record_number_ = 0;
  }

 private:
  const uint64_t header_, record_, footer_, hop_;
  const std::string encoding_;
  std::unique_ptr<io::InputStream> in_;
  std::string cache_;  // the next record_ + footer_ bytes, read ahead
  int64_t record_number_ = 0;
};

// One record per work unit: the unit as key and value.
class IdentityReader : public Reader {
 public:
  using Reader::Reader;

 protected:
  Status ReadRecord(std::string* key, std::string* value, bool* produced,
                    bool* at_end) override {
    *key = *value = work();
    *produced = *at_end = true;
    return Status::OK();
  }
  bool SupportsSerialize() const override { return true; }
};

// ---------------------------------------------------------------------------
// The ops that create a reader: the first step creates it (or finds the one
// of the same shared_name) and every step outputs its handle.
class ReaderOp : public OpKernel {
 public:
  explicit ReaderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) {
      const std::string name =
          !shared_name_.empty()
              ? shared_name_
              : "_" + std::to_string(ctx->resource_mgr()->GenerateUniqueId()) +
                    "_" + this->name();
      std::shared_ptr<Reader> reader;
      OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreate<Reader>(
                              container_, name,
                              [&](std::shared_ptr<Reader>* out) {
                                *out = Create();
                                return Status::OK();
                              },
                              &reader));
      handle_ = EncodeSessionResourceHandle(container_, name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 protected:
  virtual std::shared_ptr<Reader> Create() = 0;
  // "TFRecordReader 'node'": how errors name the reader.
  std::string ReaderName(const char* kind) const {
    return std::string(kind) + " '" + name() + "'";
  }

 private:
  std::string container_, shared_name_;
  std::mutex mu_;
  std::string handle_;
};

// Checks a byte-count attr: >= 0 and not absurdly large.
void GetByteAttr(OpKernelConstruction* ctx, const char* attr, int64_t* value) {
  ctx->SetStatus(ctx->GetAttr(attr, value));
  if (*value < 0 || *value > kMaxAttrBytes) {
    ctx->SetStatus(errors::InvalidArgument(attr, " must be >= 0 and <= 2^40, ",
                                           "not ", *value));
    *value = 0;
  }
}

class TFRecordReaderOp : public ReaderOp {
 public:
  explicit TFRecordReaderOp(OpKernelConstruction* ctx) : ReaderOp(ctx) {
    ctx->SetStatus(ctx->GetAttr("compression_type", &compression_));
    ctx->SetStatus(io::ValidateCompressionType(compression_));
  }
  std::shared_ptr<Reader> Create() override {
    return std::make_shared<TFRecordReader>(ReaderName("TFRecordReader"),
                                            compression_);
  }

 private:
  std::string compression_;
};

class TextLineReaderOp : public ReaderOp {
 public:
  explicit TextLineReaderOp(OpKernelConstruction* ctx) : ReaderOp(ctx) {
    ctx->SetStatus(ctx->GetAttr("skip_header_lines", &skip_header_lines_));
    if (skip_header_lines_ < 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "skip_header_lines must be >= 0 not ", skip_header_lines_));
    }
  }
  std::shared_ptr<Reader> Create() override {
    return std::make_shared<TextLineReader>(ReaderName("TextLineReader"),
                                            skip_header_lines_);
  }

 private:
  int64_t skip_header_lines_ = 0;
};

class WholeFileReaderOp : public ReaderOp {
 public:
  using ReaderOp::ReaderOp;
  std::shared_ptr<Reader> Create() override {
    return std::make_shared<WholeFileReader>(ReaderName("WholeFileReader"));
  }
};

class FixedLengthRecordReaderOp : public ReaderOp {
 public:
  explicit FixedLengthRecordReaderOp(OpKernelConstruction* ctx)
      : ReaderOp(ctx) {
    GetByteAttr(ctx, "header_bytes", &header_);
    GetByteAttr(ctx, "record_bytes", &record_);
    GetByteAttr(ctx, "footer_bytes", &footer_);
    GetByteAttr(ctx, "hop_bytes", &hop_);
    ctx->SetStatus(ctx->GetAttr("encoding", &encoding_));
    ctx->SetStatus(io::ValidateCompressionType(encoding_));
  }
  std::shared_ptr<Reader> Create() override {
    return std::make_shared<FixedLengthRecordReader>(
        ReaderName("FixedLengthRecordReader"), header_, record_, footer_, hop_,
        encoding_);
  }

 private:
  int64_t header_ = 0, record_ = 0, footer_ = 0, hop_ = 0;
  std::string encoding_;
};

class IdentityReaderOp : public ReaderOp {
 public:
  using ReaderOp::ReaderOp;
  std::shared_ptr<Reader> Create() override {
    return std::make_shared<IdentityReader>(ReaderName("IdentityReader"));
  }
};

// ---------------------------------------------------------------------------
Status GetReader(OpKernelContext* ctx, std::shared_ptr<Reader>* reader) {
  std::string container, name;
  TW_RETURN_IF_ERROR(DecodeSessionResourceHandle(ctx->input(0), "a reader",
                                                 &container, &name));
  return ctx->resource_mgr()->Lookup(container, name, reader);
}

// The queue of work units: its one component must be strings.
Status GetWorkQueue(OpKernelContext* ctx, std::shared_ptr<QueueBase>* queue) {
  std::string container, name;
  TW_RETURN_IF_ERROR(
      DecodeSessionResourceHandle(ctx->input(1), "a queue", &container, &name));
  TW_RETURN_IF_ERROR(ctx->resource_mgr()->Lookup(container, name, queue));
  if ((*queue)->component_types() != std::vector<DataType>{DT_STRING}) {
    return errors::InvalidArgument(
        "a reader's queue must have one string component; ",
        (*queue)->DebugString(), " '", (*queue)->name(), "' has ",
        (*queue)->component_types().size(), " components");
  }
  return Status::OK();
}

// ReaderReadV2 and ReaderReadUpToV2: the read runs on this kernel's thread.
class ReaderVerbAsyncOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<Reader> reader;
    std::shared_ptr<QueueBase> queue;
    ThreadPool* pool = nullptr;
    Status s = GetReader(ctx, &reader);
    if (s.ok()) s = GetWorkQueue(ctx, &queue);
    if (s.ok()) s = CheckInputs(ctx);
    if (s.ok()) s = GetPool(&pool);
    if (!s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    pool->Schedule([this, ctx, reader, queue, done = std::move(done)] {
      CancellationManager* cancellation = ctx->cancellation_manager();
      QueueBase* q = queue.get();
      Reader::NextWork next_work = [q, cancellation](std::string* work) {
        return DequeueWork(q, cancellation, work);
      };
      ctx->SetStatus(ReadWith(ctx, reader.get(), next_work));
      done();
    });
  }

 protected:
  virtual Status CheckInputs(OpKernelContext* ctx) { return Status::OK(); }
  virtual Status ReadWith(OpKernelContext* ctx, Reader* reader,
                          const Reader::NextWork& next_work) = 0;

 private:
  Status GetPool(ThreadPool** pool) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pool_ == nullptr) {
      TW_RETURN_IF_ERROR(ThreadPool::Create(1, "reader_" + name(), &pool_));
    }
    *pool = pool_.get();
    return Status::OK();
  }

  std::mutex mu_;
  std::unique_ptr<ThreadPool> pool_;
};

class ReaderReadOp : public ReaderVerbAsyncOp {
 public:
  using ReaderVerbAsyncOp::ReaderVerbAsyncOp;

 protected:
  Status ReadWith(OpKernelContext* ctx, Reader* reader,
                  const Reader::NextWork& next_work) override {
    std::string key, value;
    TW_RETURN_IF_ERROR(reader->Read(next_work, &key, &value));
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(key)));
    ctx->set_output(1, Tensor::Scalar<std::string>(std::move(value)));
    return Status::OK();
  }
};

class ReaderReadUpToOp : public ReaderVerbAsyncOp {
 public:
  using ReaderVerbAsyncOp::ReaderVerbAsyncOp;

 protected:
  Status CheckInputs(OpKernelContext* ctx) override {
    const Tensor& n = ctx->input(2);
    if (n.dtype() != DT_INT64 || n.shape().rank() != 0) {
      return errors::InvalidArgument(
          "num_records must be an int64 scalar, got ", DataTypeName(n.dtype()),
          " ", n.shape().ToString());
    }
    // TensorFlow reads nothing for 0 (and crashes for < 0).
    if (n.data<int64_t>()[0] < 0) {
      return errors::InvalidArgument("num_records must be >= 0, got ",
                                     n.data<int64_t>()[0]);
    }
    return Status::OK();
  }
  Status ReadWith(OpKernelContext* ctx, Reader* reader,
                  const Reader::NextWork& next_work) override {
    const int64_t n = ctx->input(2).data<int64_t>()[0];
    std::vector<std::string> keys, values;
    TW_RETURN_IF_ERROR(reader->ReadUpTo(n, next_work, &keys, &values));
    const int64_t got = static_cast<int64_t>(keys.size());
    Tensor key_tensor(DT_STRING, TensorShape({got}));
    Tensor value_tensor(DT_STRING, TensorShape({got}));
    for (int64_t i = 0; i < got; ++i) {
      key_tensor.data<std::string>()[i] = std::move(keys[i]);
      value_tensor.data<std::string>()[i] = std::move(values[i]);
    }
    ctx->set_output(0, std::move(key_tensor));
    ctx->set_output(1, std::move(value_tensor));
    return Status::OK();
  }
};

class ReaderNumRecordsProducedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, GetReader(ctx, &reader));
    ctx->set_output(0, Tensor::Scalar<int64_t>(reader->NumRecordsProduced()));
  }
};

class ReaderNumWorkUnitsCompletedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, GetReader(ctx, &reader));
    ctx->set_output(0,
                    Tensor::Scalar<int64_t>(reader->NumWorkUnitsCompleted()));
  }
};

class ReaderSerializeStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, GetReader(ctx, &reader));
    std::string state;
    OP_REQUIRES_OK(ctx, reader->SerializeState(&state));
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(state)));
  }
};

class ReaderRestoreStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, GetReader(ctx, &reader));
    const Tensor& state = ctx->input(1);
    if (state.dtype() != DT_STRING || state.shape().rank() != 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "Reader state must be a string scalar, but had ",
          DataTypeName(state.dtype()), " ", state.shape().ToString()));
      return;
    }
    OP_REQUIRES_OK(ctx, reader->RestoreState(state.data<std::string>()[0]));
  }
};

class ReaderResetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Reader> reader;
    OP_REQUIRES_OK(ctx, GetReader(ctx, &reader));
    OP_REQUIRES_OK(ctx, reader->Reset());
  }
};

REGISTER_KERNEL(KernelDef("TFRecordReaderV2"), TFRecordReaderOp);
REGISTER_KERNEL(KernelDef("TextLineReaderV2"), TextLineReaderOp);
REGISTER_KERNEL(KernelDef("WholeFileReaderV2"), WholeFileReaderOp);
REGISTER_KERNEL(KernelDef("FixedLengthRecordReaderV2"),
                FixedLengthRecordReaderOp);
REGISTER_KERNEL(KernelDef("IdentityReaderV2"), IdentityReaderOp);
REGISTER_KERNEL(KernelDef("ReaderReadV2"), ReaderReadOp);
REGISTER_KERNEL(KernelDef("ReaderReadUpToV2"), ReaderReadUpToOp);
REGISTER_KERNEL(KernelDef("ReaderNumRecordsProducedV2"),
                ReaderNumRecordsProducedOp);
REGISTER_KERNEL(KernelDef("ReaderNumWorkUnitsCompletedV2"),
                ReaderNumWorkUnitsCompletedOp);
REGISTER_KERNEL(KernelDef("ReaderSerializeStateV2"), ReaderSerializeStateOp);
REGISTER_KERNEL(KernelDef("ReaderRestoreStateV2"), ReaderRestoreStateOp);
REGISTER_KERNEL(KernelDef("ReaderResetV2"), ReaderResetOp);

}  // namespace
}  // namespace tensorweave
