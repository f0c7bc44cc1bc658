// The file datasets: TFRecordDataset, TextLineDataset and
// FixedLengthRecordDatasetV2 (ops in core/ops/dataset_file_ops.cc). Each reads
// its files in order through a buffered, optionally decompressing stream
// (core/util/record_io.h), one file open at a time; an element is one string
// scalar. Files are opened when the iterator reaches them: a missing file is
// NotFound from GetNext, after the records of the files before it.
#include <sys/stat.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/util/record_io.h"

namespace tensorweave {
namespace data {
namespace {

enum class Format { kTFRecord, kTextLine, kFixedLength };

struct FileOptions {
  std::string compression_type;
  int64_t buffer_size = -1;
  // FixedLength only.
  int64_t header_bytes = 0;
  int64_t record_bytes = 0;
  int64_t footer_bytes = 0;
};

class FileDataset : public DatasetBase {
 public:
  FileDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
              Format format, std::vector<std::string> filenames,
              FileOptions options)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        format_(format),
        filenames_(std::move(filenames)),
        options_(std::move(options)) {}

  Status MakeIterator(IteratorContext*,
                      std::unique_ptr<IteratorBase>* out) const override {
    *out = std::make_unique<Iterator>(this);
    return Status::OK();
  }

  std::string DebugString() const override {
    switch (format_) {
      case Format::kTFRecord:
        return "TFRecordDataset";
      case Format::kTextLine:
        return "TextLineDataset";
      case Format::kFixedLength:
        return "FixedLengthRecordDataset";
    }
    return "FileDataset";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const FileDataset* dataset) : dataset_(dataset) {}

    Status GetNext(IteratorContext*, Element* out,
                   bool* end_of_sequence) override {
      const FileDataset& d = *dataset_;
      while (file_index_ < d.filenames_.size()) {
        if (!open_) {
          TW_RETURN_IF_ERROR(OpenFile(d.filenames_[file_index_]));
        }
        std::string record;
        bool eof = false;
        Status s = ReadOne(&record, &eof);
        if (!s.ok()) {
          // The error ends this file: a later GetNext goes on with the next.
          CloseFile();
          return s;
        }
        if (!eof) {
          out->clear();
          out->push_back(Tensor::Scalar<std::string>(std::move(record)));
          *end_of_sequence = false;
          return Status::OK();
        }
        CloseFile();
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    Status OpenFile(const std::string& filename) {
      const FileDataset& d = *dataset_;
      const FileOptions& o = d.options_;
      // A failed open skips the file afterwards (as TF's iterators do not
      // retry a file that failed).
      ++file_index_;
      std::unique_ptr<io::InputStream> in;
      if (d.format_ == Format::kFixedLength && o.compression_type.empty()) {
        // The body must be whole records (TF checks the size first).
        struct stat st;
        if (::stat(filename.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
          const int64_t body = static_cast<int64_t>(st.st_size) -
                               o.header_bytes - o.footer_bytes;
          if (body < 0 || body % o.record_bytes != 0) {
            return errors::InvalidArgument(
                "Excluding the header (", o.header_bytes,
                " bytes) and footer (", o.footer_bytes,
                " bytes), input file \"", filename, "\" has body length ", body,
                " bytes, which is not an exact multiple of the record length (",
                o.record_bytes, " bytes).");
          }
          remaining_records_ = body / o.record_bytes;
        }
      }
      TW_RETURN_IF_ERROR(io::InputStream::Open(filename, o.compression_type,
                                               o.buffer_size, &in));
      if (d.format_ == Format::kFixedLength) {
        uint64_t skipped = 0;
        TW_RETURN_IF_ERROR(
            in->SkipNBytes(static_cast<uint64_t>(o.header_bytes), &skipped));
        if (skipped < static_cast<uint64_t>(o.header_bytes)) {
          return errors::DataLoss("Input file \"", filename, "\" has only ",
                                  skipped, " bytes: shorter than its header (",
                                  o.header_bytes, " bytes).");
        }
        lookahead_.clear();
      }
      --file_index_;
      if (d.format_ == Format::kTFRecord) {
        records_ = std::make_unique<io::RecordReader>(std::move(in));
      } else {
        in_ = std::move(in);
      }
      open_ = true;
      return Status::OK();
    }

    void CloseFile() {
      if (open_) ++file_index_;
      open_ = false;
      in_.reset();
      records_.reset();
      lookahead_.clear();
      remaining_records_ = -1;
    }

    Status ReadOne(std::string* record, bool* eof) {
      const FileDataset& d = *dataset_;
      switch (d.format_) {
        case Format::kTFRecord:
          return records_->ReadRecord(record, eof);
        case Format::kTextLine:
          return in_->ReadLine(record, eof);
        case Format::kFixedLength:
          return ReadFixed(record, eof);
      }
      return errors::Internal("unknown file format");
    }

    Status ReadFixed(std::string* record, bool* eof) {
      const FileOptions& o = dataset_->options_;
      const size_t n = static_cast<size_t>(o.record_bytes);
      if (remaining_records_ >= 0) {
        // Uncompressed: the size was checked when the file was opened.
        if (remaining_records_ == 0) {
          *eof = true;
          return Status::OK();
        }
        TW_RETURN_IF_ERROR(in_->ReadNBytes(n, record));
        if (record->size() < n) {
          return errors::DataLoss("Input file \"", in_->filename(),
                                  "\" ended inside a record at offset ",
                                  in_->Tell(), " (was it truncated?)");
        }
        --remaining_records_;
        return Status::OK();
      }
      // Compressed: the footer is known only at the end of the stream, so
      // footer_bytes are kept read ahead.
      const size_t footer = static_cast<size_t>(o.footer_bytes);
      const size_t want = n + footer;
      if (lookahead_.size() < want) {
        TW_RETURN_IF_ERROR(
            in_->ReadNBytes(want - lookahead_.size(), &lookahead_));
      }
      if (lookahead_.size() < want) {
        if (lookahead_.size() == footer) {
          *eof = true;
          return Status::OK();
        }
        const int64_t body =
            static_cast<int64_t>(in_->Tell()) - o.header_bytes - o.footer_bytes;
        return errors::DataLoss(
            "Excluding the header (", o.header_bytes, " bytes) and footer (",
            o.footer_bytes, " bytes), input file \"", in_->filename(),
            "\" has body length ", body,
            " bytes, which is not an exact multiple of the record length (",
            o.record_bytes, " bytes).");
      }
      record->assign(lookahead_, 0, n);
      lookahead_.erase(0, n);
      return Status::OK();
    }

    const FileDataset* const dataset_;
    size_t file_index_ = 0;
    bool open_ = false;
    std::unique_ptr<io::InputStream> in_;        // TextLine, FixedLength
    std::unique_ptr<io::RecordReader> records_;  // TFRecord
    std::string lookahead_;                      // FixedLength, compressed
    int64_t remaining_records_ = -1;             // FixedLength, uncompressed
  };

  const Format format_;
  const std::vector<std::string> filenames_;
  const FileOptions options_;
};

Status ParseFilenames(OpKernelContext* ctx, std::vector<std::string>* out) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() != DT_STRING) {
    return errors::InvalidArgument("`filenames` must be a string tensor, got ",
                                   DataTypeName(t.dtype()));
  }
  if (t.rank() > 1) {
    return errors::InvalidArgument(
        "`filenames` must be a scalar or a vector, got shape ",
        t.shape().ToString());
  }
  const std::string* names = t.data<std::string>();
  out->assign(names, names + t.num_elements());
  return Status::OK();
}

Status ParseScalarString(OpKernelContext* ctx, int index, const char* name,
                         std::string* out) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_STRING || t.rank() != 0) {
    return errors::InvalidArgument(name, " must be a string scalar, got ",
                                   DataTypeName(t.dtype()), " of shape ",
                                   t.shape().ToString());
  }
  *out = t.data<std::string>()[0];
  return io::ValidateCompressionType(*out);
}

Status ParseBufferSize(OpKernelContext* ctx, int index, int64_t* out) {
  TW_RETURN_IF_ERROR(ParseScalarInput(ctx, index, "buffer_size", out));
  if (*out < -1) {
    return errors::InvalidArgument(
        "`buffer_size` must be >= 0 (0 == no buffering; -1 == the default), "
        "got ",
        *out);
  }
  return Status::OK();
}

Status CheckStringScalars(const char* who, const DataTypeVector& dtypes) {
  if (dtypes.size() != 1 || dtypes[0] != DT_STRING) {
    return errors::InvalidArgument(who, ": output_types must be [string], got ",
                                   dtypes.size(), " types");
  }
  return Status::OK();
}

template <Format kFormat>
class TextOrRecordDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    const char* who =
        kFormat == Format::kTFRecord ? "TFRecordDataset" : "TextLineDataset";
    TW_RETURN_IF_ERROR(CheckStringScalars(who, output_dtypes()));
    std::vector<std::string> filenames;
    TW_RETURN_IF_ERROR(ParseFilenames(ctx, &filenames));
    FileOptions options;
    TW_RETURN_IF_ERROR(ParseScalarString(ctx, 1, "compression_type",
                                         &options.compression_type));
    TW_RETURN_IF_ERROR(ParseBufferSize(ctx, 2, &options.buffer_size));
    *out =
        std::make_shared<FileDataset>(output_dtypes(), output_shapes(), kFormat,
                                      std::move(filenames), std::move(options));
    return Status::OK();
  }
};

class FixedLengthRecordDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    TW_RETURN_IF_ERROR(
        CheckStringScalars("FixedLengthRecordDataset", output_dtypes()));
    std::vector<std::string> filenames;
    TW_RETURN_IF_ERROR(ParseFilenames(ctx, &filenames));
    FileOptions o;
    TW_RETURN_IF_ERROR(
        ParseScalarInput(ctx, 1, "header_bytes", &o.header_bytes));
    TW_RETURN_IF_ERROR(
        ParseScalarInput(ctx, 2, "record_bytes", &o.record_bytes));
    TW_RETURN_IF_ERROR(
        ParseScalarInput(ctx, 3, "footer_bytes", &o.footer_bytes));
    TW_RETURN_IF_ERROR(ParseBufferSize(ctx, 4, &o.buffer_size));
    TW_RETURN_IF_ERROR(
        ParseScalarString(ctx, 5, "compression_type", &o.compression_type));
    if (o.header_bytes < 0) {
      return errors::InvalidArgument("`header_bytes` must be >= 0");
    }
    if (o.record_bytes <= 0) {
      return errors::InvalidArgument("`record_bytes` must be > 0");
    }
    if (o.footer_bytes < 0) {
      return errors::InvalidArgument("`footer_bytes` must be >= 0");
    }
    *out = std::make_shared<FileDataset>(output_dtypes(), output_shapes(),
                                         Format::kFixedLength,
                                         std::move(filenames), std::move(o));
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("TFRecordDataset"),
                TextOrRecordDatasetOp<Format::kTFRecord>);
REGISTER_KERNEL(KernelDef("TextLineDataset"),
                TextOrRecordDatasetOp<Format::kTextLine>);
REGISTER_KERNEL(KernelDef("FixedLengthRecordDatasetV2"),
                FixedLengthRecordDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
