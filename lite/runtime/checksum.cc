#include "lite/runtime/checksum.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TWL_CRC32_PCLMUL 1
#else
#define TWL_CRC32_PCLMUL 0
#endif

#if defined(__aarch64__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                \
    (defined(__ARM_FEATURE_CRC32) || defined(__linux__))
#include <arm_acle.h>
#if !defined(__ARM_FEATURE_CRC32)
#include <sys/auxv.h>  // getauxval (Linux, Android)
#endif
#define TWL_CRC32_ARM 1
#else
#define TWL_CRC32_ARM 0
#endif

namespace twl {
namespace {

// Polynomials over GF(2) here are "reflected", as the CRC register holds
// them: bit i of a 32-bit value is the coefficient of x^(31 - i). P is
// x^32 + (the terms in kPolynomial).
constexpr uint32_t kPolynomial = 0xEDB88320u;

// kTables[k][b]: the CRC of byte b followed by k zero bytes.
struct Crc32Tables {
  uint32_t t[8][256];
  constexpr Crc32Tables() : t() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (kPolynomial & (0u - (c & 1)));
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

// The kernels update the CRC register `state` (the complement of the
// CRC-32 value) over `size` bytes.
uint32_t UpdateTable(uint32_t state, const uint8_t* p, size_t size) {
  const auto& t = kTables.t;
  for (; size != 0 && reinterpret_cast<uintptr_t>(p) % 8 != 0; --size) {
    state = (state >> 8) ^ t[0][(state ^ *p++) & 0xFF];
  }
  for (; size >= 8; size -= 8, p += 8) {
    const uint32_t lo = LoadLe32(p) ^ state;
    const uint32_t hi = LoadLe32(p + 4);
    state = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^
            t[4][lo >> 24] ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^
            t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; size != 0; --size) state = (state >> 8) ^ t[0][(state ^ *p++) & 0xFF];
  return state;
}

#if TWL_CRC32_PCLMUL
// Folding (after Intel's "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ Instruction", 2009). The message is a polynomial M whose
// highest coefficient is bit 0 of its first byte, and the CRC register
// after it is M * x^32 mod P (the register's old value XORed into the
// first four bytes). A 128-bit little-endian load of 16 bytes holds their
// polynomial reflected: bit k is the coefficient of x^(127 - k). Blocks of
// the message can be replaced by anything congruent mod P: an accumulator
// A = H * x^64 + L (H its low, L its high 64 bits) that is followed by D
// more bits of message stands for A * x^D = H * x^(D + 64) + L * x^D, which
// is congruent to H * (x^(D + 64) mod P) + L * (x^D mod P), a polynomial of
// degree < 96 that fits the accumulator again: two carry-less 64x32-bit
// multiplications.
//
// PCLMULQDQ's product of bits a_i (coefficient of x^(63 - i)) and b_j
// (of x^(63 - j)) puts x^(126 - k) at bit k: read as a 128-bit reflected
// value it is the product times x. So a constant c(n) multiplying one
// 64-bit half holds x^(n - 1) mod P, in its high 32 bits (so that the
// product lands in bits 32..127, below degree 96).

// x^n mod P, reflected: x^0 is bit 31; multiplying by x shifts right, and
// x^32 is replaced by kPolynomial.
constexpr uint32_t XPowModP(int n) {
  uint32_t v = 0x80000000u;
  for (int i = 0; i < n; ++i) v = (v >> 1) ^ (kPolynomial & (0u - (v & 1)));
  return v;
}

// c(n): the multiplier that turns a 64-bit half into half * x^n (mod P).
constexpr int64_t TimesXPow(int n) {
  return static_cast<int64_t>(static_cast<uint64_t>(XPowModP(n - 1)) << 32);
}

// Barrett reduction of a polynomial W of degree < 64 to W mod P:
// q = floor(floor(W / x^32) * mu / x^32) with mu = floor(x^64 / P), and
// W mod P = (W + q * P) mod x^32. mu and P have degree 32: 33-bit
// reflected values (x^32 at bit 0, x^0 at bit 32).
constexpr uint64_t BarrettMu() {
  // Long division of x^64 by P in the unreflected form (x^i at bit i).
  const unsigned __int128 p = (static_cast<unsigned __int128>(1) << 32) |
                              0x04C11DB7u;  // P: kPolynomial reversed
  unsigned __int128 r = static_cast<unsigned __int128>(1) << 64;
  uint64_t q = 0;
  for (int d = 32; d >= 0; --d) {
    if ((r >> (d + 32)) & 1) {
      q |= uint64_t{1} << d;
      r ^= p << d;
    }
  }
  uint64_t reflected = 0;  // reflected over 33 bits
  for (int i = 0; i <= 32; ++i) reflected |= ((q >> i) & 1) << (32 - i);
  return reflected;
}
constexpr uint64_t kBarrettMu = BarrettMu();
constexpr uint64_t kBarrettP = (uint64_t{kPolynomial} << 1) | 1;
static_assert(kBarrettMu == 0x1F7011641u, "floor(x^64 / P), reflected");

#define TWL_PCLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

// A * x^D + next, for multipliers k = {TimesXPow(D + 64), TimesXPow(D)}.
TWL_PCLMUL_TARGET inline __m128i Fold(__m128i a, __m128i k, __m128i next) {
  const __m128i h = _mm_clmulepi64_si128(a, k, 0x00);
  const __m128i l = _mm_clmulepi64_si128(a, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(h, l), next);
}

TWL_PCLMUL_TARGET inline __m128i Load128(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// The CRC register after accumulator a: a * x^32 mod P.
TWL_PCLMUL_TARGET uint32_t Reduce128(__m128i a) {
  // V = H * x^96 + L * x^32 (degree < 96, bits 32..127): H folded, L moved
  // from bits 64..127 to 32..95.
  const __m128i k96 = _mm_set_epi64x(0, TimesXPow(96));
  const __m128i l = _mm_blend_epi16(_mm_srli_si128(a, 4), _mm_setzero_si128(),
                                    0x03);  // clears bits 0..31
  const __m128i v = _mm_xor_si128(_mm_clmulepi64_si128(a, k96, 0x00), l);
  // W = V's bits 32..63 (the coefficients x^95..x^64) times x^64 mod P,
  // plus its high half: degree < 64, in bits 64..127.
  const __m128i k64 = _mm_set_epi64x(0, TimesXPow(64));
  const __m128i w = _mm_xor_si128(_mm_clmulepi64_si128(v, k64, 0x00), v);
  // Barrett: floor(W / x^32) is bits 64..95, W mod x^32 bits 96..127.
  const __m128i mu_p = _mm_set_epi64x(static_cast<int64_t>(kBarrettP),
                                      static_cast<int64_t>(kBarrettMu));
  const __m128i w_hi = _mm_cvtsi32_si128(_mm_extract_epi32(w, 2));
  // (32-bit, x^31 at bit 0) * (33-bit, x^32 at bit 0): x^(63 - k) at bit k,
  // so q = floor(product / x^32) is its bits 0..31.
  const __m128i q = _mm_cvtsi32_si128(
      _mm_cvtsi128_si32(_mm_clmulepi64_si128(w_hi, mu_p, 0x00)));
  // q * P mod x^32 is bits 32..63 of that product.
  const __m128i qp = _mm_clmulepi64_si128(q, mu_p, 0x10);
  return static_cast<uint32_t>(_mm_extract_epi32(qp, 1) ^
                               _mm_extract_epi32(w, 3));
}

TWL_PCLMUL_TARGET uint32_t UpdatePclmul(uint32_t state, const uint8_t* p,
                                        size_t size) {
  if (size < 64) return UpdateTable(state, p, size);
  // Four lanes, each followed by 3 more blocks of 16 bytes when the next 64
  // bytes are folded in: D = 512.
  const __m128i k512 = _mm_set_epi64x(TimesXPow(512), TimesXPow(576));
  __m128i a0 = _mm_xor_si128(Load128(p), _mm_cvtsi32_si128(state));
  __m128i a1 = Load128(p + 16);
  __m128i a2 = Load128(p + 32);
  __m128i a3 = Load128(p + 48);
  for (p += 64, size -= 64; size >= 64; p += 64, size -= 64) {
    a0 = Fold(a0, k512, Load128(p));
    a1 = Fold(a1, k512, Load128(p + 16));
    a2 = Fold(a2, k512, Load128(p + 32));
    a3 = Fold(a3, k512, Load128(p + 48));
  }
  // The lanes into one, then the remaining blocks of 16 bytes: D = 128.
  const __m128i k128 = _mm_set_epi64x(TimesXPow(128), TimesXPow(192));
  __m128i a = Fold(Fold(Fold(a0, k128, a1), k128, a2), k128, a3);
  for (; size >= 16; p += 16, size -= 16) a = Fold(a, k128, Load128(p));
  return UpdateTable(Reduce128(a), p, size);
}

bool CpuHasPclmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif  // TWL_CRC32_PCLMUL

#if TWL_CRC32_ARM
#if defined(__clang__)
#define TWL_ARM_CRC32_TARGET __attribute__((target("crc")))
#else
#define TWL_ARM_CRC32_TARGET __attribute__((target("+crc")))
#endif

TWL_ARM_CRC32_TARGET uint32_t UpdateArmCrc32(uint32_t state, const uint8_t* p,
                                             size_t size) {
  for (; size != 0 && reinterpret_cast<uintptr_t>(p) % 8 != 0; --size) {
    state = __crc32b(state, *p++);
  }
  for (; size >= 32; size -= 32, p += 32) {
    uint64_t v[4];
    memcpy(v, p, sizeof(v));
    state = __crc32d(state, v[0]);
    state = __crc32d(state, v[1]);
    state = __crc32d(state, v[2]);
    state = __crc32d(state, v[3]);
  }
  for (; size >= 8; size -= 8, p += 8) {
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    state = __crc32d(state, v);
  }
  for (; size != 0; --size) state = __crc32b(state, *p++);
  return state;
}

bool CpuHasArmCrc32() {
#if defined(__ARM_FEATURE_CRC32)
  return true;
#else
  return (getauxval(AT_HWCAP) & (1ul << 7)) != 0;  // HWCAP_CRC32
#endif
}
#endif  // TWL_CRC32_ARM

}  // namespace

bool Crc32KernelSupported(Crc32Kernel kernel) {
  switch (kernel) {
    case Crc32Kernel::kTable:
      return true;
    case Crc32Kernel::kPclmul: {
#if TWL_CRC32_PCLMUL
      static const bool supported = CpuHasPclmul();
      return supported;
#else
      return false;
#endif
    }
    case Crc32Kernel::kArmCrc32: {
#if TWL_CRC32_ARM
      static const bool supported = CpuHasArmCrc32();
      return supported;
#else
      return false;
#endif
    }
  }
  return false;
}

Crc32Kernel Crc32DefaultKernel() {
  static const Crc32Kernel kernel =
      Crc32KernelSupported(Crc32Kernel::kPclmul)     ? Crc32Kernel::kPclmul
      : Crc32KernelSupported(Crc32Kernel::kArmCrc32) ? Crc32Kernel::kArmCrc32
                                                     : Crc32Kernel::kTable;
  return kernel;
}

const char* Crc32KernelName(Crc32Kernel kernel) {
  switch (kernel) {
    case Crc32Kernel::kTable:
      return "table";
    case Crc32Kernel::kPclmul:
      return "pclmul";
    case Crc32Kernel::kArmCrc32:
      return "armv8-crc32";
  }
  return "unknown";
}

uint32_t Crc32With(Crc32Kernel kernel, const void* data, size_t size,
                   uint32_t crc) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (!Crc32KernelSupported(kernel)) kernel = Crc32Kernel::kTable;
  switch (kernel) {
#if TWL_CRC32_PCLMUL
    case Crc32Kernel::kPclmul:
      return ~UpdatePclmul(~crc, p, size);
#endif
#if TWL_CRC32_ARM
    case Crc32Kernel::kArmCrc32:
      return ~UpdateArmCrc32(~crc, p, size);
#endif
    default:
      return ~UpdateTable(~crc, p, size);
  }
}

uint32_t Crc32(const void* data, size_t size, uint32_t crc) {
  return Crc32With(Crc32DefaultKernel(), data, size, crc);
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
