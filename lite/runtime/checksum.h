// The integrity section of a .twl file: a 16-byte trailer after the
// flatbuffer holding a CRC-32 of everything before the checksum field.
//
//   [flatbuffer ...][ "TWLI" | algorithm u32 | checksum u32 | "TWLI" ]
//
// The checksum is zlib's CRC-32 (IEEE 802.3, reflected polynomial
// 0xEDB88320) of the bytes [0, size - 8): the flatbuffer, the first magic and
// the algorithm. Little-endian fields. The magic is written twice so that a
// file with one damaged copy is still recognized as checksummed (and then
// rejected); with one copy a single corrupted byte could turn the trailer
// into ignorable padding. A trailer, not a schema field: one changed byte of
// a vtable could make a field read as absent. See lite/schema/README.md.
#ifndef TENSORWEAVE_LITE_RUNTIME_CHECKSUM_H_
#define TENSORWEAVE_LITE_RUNTIME_CHECKSUM_H_

#include <cstddef>
#include <cstdint>

#include "lite/runtime/status.h"

namespace twl {

constexpr size_t kIntegrityTrailerSize = 16;
constexpr uint32_t kIntegrityMagic = 0x494C5754;  // "TWLI" little-endian
constexpr uint32_t kChecksumCrc32 = 1;

// CRC-32 of `size` bytes continuing from `crc` (0 to start); equal to zlib's
// crc32(crc, data, size). Runs the fastest kernel this CPU has
// (Crc32DefaultKernel()).
uint32_t Crc32(const void* data, size_t size, uint32_t crc = 0);

// The implementations of Crc32, which all compute the same function.
enum class Crc32Kernel {
  // Tables, slicing-by-8: any CPU; the reference the others are tested
  // against.
  kTable,
  // x86-64 PCLMULQDQ (+ SSE4.1): carry-less multiplication folds four
  // 128-bit lanes 64 bytes a step, then a Barrett reduction to 32 bits.
  // Chosen at run time (cpuid), so a baseline x86-64 build has it too.
  kPclmul,
  // The ARMv8 CRC32 instructions (CRC32X computes this polynomial), chosen
  // at run time from the kernel's HWCAP_CRC32 on Linux and Android, or at
  // compile time where the target has them (__ARM_FEATURE_CRC32).
  kArmCrc32,
};

// Whether this build and CPU can run `kernel` (kTable: always).
bool Crc32KernelSupported(Crc32Kernel kernel);
// The kernel Crc32 runs: the fastest one supported.
Crc32Kernel Crc32DefaultKernel();
// "table", "pclmul" or "armv8-crc32".
const char* Crc32KernelName(Crc32Kernel kernel);
// Crc32 computed by `kernel`, which must be supported (for tests and
// benchmarks; an unsupported one computes with kTable).
uint32_t Crc32With(Crc32Kernel kernel, const void* data, size_t size,
                   uint32_t crc = 0);

// What the end of a model file says about its integrity section.
struct Integrity {
  bool present = false;  // the file carries a trailer (even a damaged one)
  uint32_t stored = 0;   // the checksum it holds
  size_t flatbuffer_size = 0;  // bytes before the trailer (all when absent)
};

// Finds the trailer of `data` and, when `verify` is true and one is there,
// checks the checksum: kInvalidModel "model is corrupt: ..." on a damaged
// trailer or a mismatch (expected vs computed). Without a trailer (files
// written before it existed) returns Ok with present == false.
Status CheckIntegrity(const uint8_t* data, size_t size, bool verify,
                      Integrity* integrity);

// Appends a trailer to `size` bytes of flatbuffer at `data`, which has room
// for kIntegrityTrailerSize more (used by test model builders).
void AppendIntegrityTrailer(uint8_t* data, size_t size);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_CHECKSUM_H_
