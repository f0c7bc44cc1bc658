// CRC32C (Castagnoli), the checksum of checkpoint files.
#ifndef TENSORWEAVE_CORE_UTIL_CRC32C_H_
#define TENSORWEAVE_CORE_UTIL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tensorweave {

// The CRC32C of data[0, n), continuing from `crc` (the CRC of what came
// before; 0 to start).
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n);
inline uint32_t Crc32c(const void* data, size_t n) {
  return Crc32cExtend(0, data, n);
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_UTIL_CRC32C_H_
