// Checkpoint files. A checkpoint with prefix P is two files:
//   P.safetensors    the tensors in the safetensors layout (an 8-byte
//                    little-endian header length, a JSON header mapping each
//                    name to {"dtype", "shape", "data_offsets"}, then the raw
//                    little-endian data), readable by the `safetensors`
//                    package;
//   P.manifest.json  {"format", "version", "data_file", "data_bytes",
//                    "data_crc32c", "tensors": {name: {"dtype", "shape",
//                    "crc32c"}}}: what a reader checks the data against.
// Each file is written to a temporary name, fsync'd and renamed, the data
// file first: a checkpoint exists once its manifest does. Reading verifies
// sizes, checksums, names, dtypes and shapes before returning anything.
//
// A tensor may be saved in slices (the parts of a partitioned variable, as
// TensorFlow saves them): each slice is its own entry, keyed
// "<name>:<extents>", whose manifest entry also has "slice_of": <name> and
// "shape_and_slice": TensorFlow's spec of the slice ("10 4 0,5:0,4"). A
// reader asks for <name>, whole or any slice of it, and gets it assembled
// from the saved slices, whatever the partitioning they were saved with;
// a tensor saved whole can be read in slices too.
#ifndef TENSORWEAVE_CORE_UTIL_CHECKPOINT_FORMAT_H_
#define TENSORWEAVE_CORE_UTIL_CHECKPOINT_FORMAT_H_

#include <string>
#include <vector>

#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {
namespace checkpoint {

inline constexpr const char* kDataSuffix = ".safetensors";
inline constexpr const char* kManifestSuffix = ".manifest.json";

// A part of a tensor, as TensorFlow's shape_and_slice strings give it:
// "10 4 0,5:-" is rows 0-4 of a 10x4 tensor ("-": a whole dimension).
struct TensorSlice {
  std::vector<int64_t> full_shape;
  std::vector<int64_t> start, length;  // per dimension, "-" resolved

  static TensorSlice Whole(const TensorShape& shape);
  TensorShape shape() const;     // the slice's own shape
  std::string Extents() const;   // "0,5:0,4"
  std::string ToString() const;  // "10 4 0,5:0,4"
};

// Parses a non-empty shape_and_slice string; InvalidArgument naming it when
// it is malformed or out of the full shape's bounds.
Status ParseTensorSlice(const std::string& spec, TensorSlice* out);

// Writes `tensors` under `names` as checkpoint `prefix`, creating its
// directory if needed. `slices` (empty, or one per tensor) gives each
// tensor's shape_and_slice: "" for a whole tensor. Names are non-empty; a
// name is given once, or only for slices of one full shape that do not
// overlap.
Status Write(const std::string& prefix, const std::vector<std::string>& names,
             const std::vector<Tensor>& tensors,
             const std::vector<std::string>& slices = {});

// What a reader asks for: a tensor's name, the dtype it must have, the
// shape it must be compatible with, and the slice of it wanted.
struct TensorRequest {
  std::string name;
  DataType dtype;
  PartialShape shape;  // unknown rank: any shape
  std::string slice;   // a shape_and_slice string; "": the whole tensor
};

// A saved slice as the manifest lists it: what MergeV2Checkpoints carries
// over. `key` is the entry's name in the files.
struct ListedTensor {
  std::string key, name, slice;  // name and slice: "slice_of" and its spec
  DataType dtype;
};

// The entries of checkpoint `prefix` (this runtime's format), from its
// manifest.
Status List(const std::string& prefix, std::vector<ListedTensor>* out);

// Reads the requested tensors of checkpoint `prefix`. Errors name the file
// and the tensor: NotFound (no checkpoint, or no such tensor), DataLoss
// (truncated or corrupted files), InvalidArgument (dtype or shape other than
// requested). On error `out` is left empty.
Status Read(const std::string& prefix,
            const std::vector<TensorRequest>& requests,
            std::vector<Tensor>* out);

// Safetensors dtype names ("F32", "I64", ...); false for dtypes it lacks.
bool SafetensorsDtype(DataType dtype, std::string* name);

}  // namespace checkpoint
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_UTIL_CHECKPOINT_FORMAT_H_
