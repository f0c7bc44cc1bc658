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

// Writes `tensors` under `names` (distinct, non-empty) as checkpoint
// `prefix`, creating its directory if needed.
Status Write(const std::string& prefix, const std::vector<std::string>& names,
             const std::vector<Tensor>& tensors);

// What a reader asks for: a tensor's name, the dtype it must have and the
// shape it must be compatible with.
struct TensorRequest {
  std::string name;
  DataType dtype;
  PartialShape shape;  // unknown rank: any shape
};

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
