#include "lite/runtime/checksum.h"

#include <cstring>

namespace twl {
namespace {

// kTables[k][b]: the CRC of byte b followed by k zero bytes.
struct Crc32Tables {
  uint32_t t[8][256];
  constexpr Crc32Tables() : t() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
      t[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; ++b) {
      for (int k = 1; k < 8; ++k) {
        t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
      }
    }
  }
};

constexpr Crc32Tables kTables;

uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void StoreLe32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

uint32_t Crc32(const void* data, size_t size, uint32_t crc) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  const auto& t = kTables.t;
  crc = ~crc;
  for (; size != 0 && reinterpret_cast<uintptr_t>(p) % 8 != 0; --size) {
    crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFF];
  }
  for (; size >= 8; size -= 8, p += 8) {
    const uint32_t lo = LoadLe32(p) ^ crc;
    const uint32_t hi = LoadLe32(p + 4);
    crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^
          t[4][lo >> 24] ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^
          t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; size != 0; --size) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFF];
  return ~crc;
}

Status CheckIntegrity(const uint8_t* data, size_t size, bool verify,
                      Integrity* integrity) {
  *integrity = Integrity();
  integrity->flatbuffer_size = size;
  if (data == nullptr || size < kIntegrityTrailerSize) return Status::Ok();
  const uint8_t* trailer = data + size - kIntegrityTrailerSize;
  const bool first = LoadLe32(trailer) == kIntegrityMagic;
  const bool last = LoadLe32(trailer + 12) == kIntegrityMagic;
  if (!first && !last) return Status::Ok();  // written without a checksum
  integrity->present = true;
  integrity->stored = LoadLe32(trailer + 8);
  integrity->flatbuffer_size = size - kIntegrityTrailerSize;
  if (!verify) return Status::Ok();
  if (!first || !last) {
    return Status::Error(StatusCode::kInvalidModel,
                         "model is corrupt: its integrity trailer is damaged "
                         "(one of its two \"TWLI\" marks is wrong)");
  }
  const uint32_t algorithm = LoadLe32(trailer + 4);
  if (algorithm != kChecksumCrc32) {
    return Status::Error(StatusCode::kInvalidModel,
                         "model is corrupt or newer than this runtime: "
                         "unknown checksum algorithm %u (this runtime knows "
                         "%u, CRC-32)",
                         algorithm, kChecksumCrc32);
  }
  const uint32_t computed = Crc32(data, size - 8);
  if (computed != integrity->stored) {
    return Status::Error(StatusCode::kInvalidModel,
                         "model is corrupt: CRC-32 checksum mismatch "
                         "(expected 0x%08x as stored in the file, got 0x%08x "
                         "over its %zu bytes)",
                         integrity->stored, computed, size);
  }
  return Status::Ok();
}

void AppendIntegrityTrailer(uint8_t* data, size_t size) {
  uint8_t* trailer = data + size;
  StoreLe32(trailer, kIntegrityMagic);
  StoreLe32(trailer + 4, kChecksumCrc32);
  StoreLe32(trailer + 8, Crc32(data, size + 8));
  StoreLe32(trailer + 12, kIntegrityMagic);
}

}  // namespace twl
