// QUANTIZED_BATCH_MATMUL and QUANTIZED_CONV_2D (ONNX MatMulInteger,
// QLinearMatMul, ConvInteger, QLinearConv); see twl.fbs.
//
// Both are one integer GEMM (quantization.h): the left operand (a's rows,
// or the convolution's im2col patches) and the right one (b transposed, or
// the OHWI filter as it is) are widened to int16 with their zero points
// subtracted into planned scratch, multiplied with int32 accumulation, and
// the accumulators are the int32 output or are requantized to int8/uint8.
// The reference path is a plain loop over int32 products.
//
// These are the kernels of one instruction set (quantized_products.cc includes
// them once per variant, inside its namespace, with quantized_gemm.h's
// TWL_INT8_* macros set); it includes nothing itself. QuantizedBatchMatMul()
// and QuantizedConv2D() are the variant's registrations.

namespace {

// Inputs after the two operands.
enum { kLhsZeroPoint = 2, kRhsZeroPoint, kMultiplier, kOutputZeroPoint, kBias };

template <typename F>
Status DispatchEightBit(DataType type, F&& f) {
  if (type == DataType::kInt8) return f(int8_t{});
  if (type == DataType::kUInt8) return f(uint8_t{});
  return Status::Error(StatusCode::kUnsupported, "not an 8-bit type: %s",
                       DataTypeName(type));
}

bool IsEightBit(DataType type) {
  return type == DataType::kInt8 || type == DataType::kUInt8;
}

// Element i of an 8-bit (or absent: 0) zero point, one element or per
// column.
int32_t ZeroPointAt(const Tensor* zp, int64_t i) {
  if (zp == nullptr) return 0;
  if (zp->num_elements() == 1) i = 0;
  return zp->type == DataType::kInt8 ? zp->data_as<int8_t>()[i]
                                     : zp->data_as<uint8_t>()[i];
}

struct OpData {
  int m = 0, n = 0, k = 0;  // per batch (matmul) or per image (conv)
  bool requantize = false;
  // Matmul: batch broadcasting.
  Shape batch_shape;
  int64_t a_batch_strides[kMaxDims], b_batch_strides[kMaxDims];
  // Conv: geometry.
  int batches = 1, in_h = 0, in_w = 0, channels = 0, kernel_h = 0, kernel_w = 0,
      out_h = 0, out_w = 0;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
  // Grouped convolution: `groups` GEMMs, each over group_channels input
  // channels and n / groups output channels (1 for a matmul).
  int groups = 1, group_channels = 0;
  int lhs_scratch = -1, rhs_scratch = -1, acc_scratch = -1;
  // The right operand's element (j, kk) of a batch at j * rhs_sn + kk *
  // rhs_sk; packed once here when it and its zero point are constants.
  int64_t rhs_sn = 0, rhs_sk = 0;
  std::unique_ptr<int16_t[]> packed;
  // kPanelGemm builds: the packed constant right operand in panels
  // (quantization.h), panel_size elements per group and batch.
  std::unique_ptr<int16_t[]> panels;
  int64_t panel_size = 0;
  // Depthwise (one input channel per group, one output per input channel)
  // with a constant filter: the filter tap-major, [KH * KW][C], zero point
  // subtracted, for the direct kernel.
  std::unique_ptr<int16_t[]> depthwise;
  // AVX2 builds with at most kMaxPairTaps taps: the same filter for the
  // pair kernel (DepthwisePairs), per pair of taps and block of 16
  // channels the two vectors of interleaved tap pairs that
  // _mm256_unpack{lo,hi}_epi16 makes of the taps' 16 channels.
  std::unique_ptr<int16_t[]> depthwise_pairs;
  // AVX-512 builds: the same per block of 32 channels (DepthwisePairs32),
  // the 128-bit lanes of _mm512_unpack{lo,hi}_epi16 laid out as AVX2's.
  std::unique_ptr<int16_t[]> depthwise_pairs32;
  // With depthwise_pairs32 and an 8-bit output: the multipliers as doubles
  // (DepthwiseOutput).
  int multiplier_scratch = -1;
  // VNNI builds, a constant filter with values in int8, a uint8 x and an
  // 8-bit output, groups of 1: the filter in VNNI panels (quantization.h)
  // with its column sums; the GEMM reads x itself when the convolution is
  // pointwise with a depth that is a multiple of 4 (vnni_direct), else
  // byte patches of k_quads bytes a row from bytes_scratch. bias_scratch
  // holds bias - x_zp * column sum.
  std::unique_ptr<int8_t[]> vnni_panels;
  // VNNI builds, a constant 3x3 depthwise filter (dilation 1, equal strides
  // of 1 or 2) with values in int8, a uint8 x and an 8-bit output: the
  // filter as DepthwiseVnniRow reads it, per block of 64 channels and
  // filter column kx, the four vectors of (row 0, row 1, row 2, 0) byte
  // quads that DwQuads makes of the input; dw_sums[c] is channel c's sum
  // of taps, dw_bias_scratch holds bias - x_zp * dw_sums in the quads'
  // channel order.
  std::unique_ptr<int8_t[]> dw_vnni;
  std::unique_ptr<int32_t[]> dw_sums;
  int dw_bias_scratch = -1;
  // Every accumulator plus bias stays within kFloatRequantizeLimit (a
  // constant filter and bias): the VNNI kernels requantize in float.
  bool float_exact = false;
  std::unique_ptr<int32_t[]> column_sums;
  bool vnni_direct = false;
  int k_quads = 0, bytes_scratch = -1, bias_scratch = -1;
};

// The AVX2 depthwise pairs (DepthwisePairs); AVX-512 builds run
// DepthwisePairs32 wherever those would run, so they have none.
#if TWL_INT8_AVX2 && !TWL_INT8_AVX512
constexpr bool kDepthwisePairs = true;
#else
constexpr bool kDepthwisePairs = false;
#endif
#if TWL_INT8_AVX512
constexpr bool kDepthwisePairs32 = true;
#else
constexpr bool kDepthwisePairs32 = false;
#endif
constexpr int kMaxPairTaps = 49;
#if TWL_INT8_VNNI
constexpr bool kDepthwiseVnni = true;
#else
constexpr bool kDepthwiseVnni = false;
#endif
// Bytes of dw_vnni per block of 64 channels: 3 filter columns x 4 vectors.
constexpr int kDwVnniBlock = 3 * 4 * 64;

// Checks the operands' and zero points' types, the zero points' sizes (one
// element; the right one may have one per output column) and the output's
// type with its requantization inputs.
TWL_PREPARE Status PrepareCommon(KernelContext* context, Node* node, int n) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 7));
  const char* names[] = {"lhs", "rhs"};
  for (int i = 0; i < 2; ++i) {
    const Tensor* operand = context->input(*node, i);
    TWL_CHECK_ARG(IsEightBit(operand->type),
                  "%s '%s' must be int8 or uint8, got %s", names[i],
                  operand->name, DataTypeName(operand->type));
    const Tensor* zp = context->input(*node, kLhsZeroPoint + i);
    if (zp == nullptr) continue;
    TWL_RETURN_IF_ERROR(CheckType(zp, "zero point", operand->type));
    const int64_t count = zp->num_elements();
    TWL_CHECK_ARG(count == 1 || (i == 1 && count == n),
                  "%s zero point '%s' has %lld elements; it needs 1%s",
                  names[i], zp->name, static_cast<long long>(count),
                  i == 1 ? " or one per output column" : "");
  }
  const Tensor* bias = context->input(*node, kBias);
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kInt32));
    TWL_CHECK_ARG(bias->num_elements() == n,
                  "bias '%s' has %lld elements; it needs one per output "
                  "column (%d)",
                  bias->name, static_cast<long long>(bias->num_elements()), n);
  }
  const Tensor* output = context->output(*node, 0);
  d->requantize = output->type != DataType::kInt32;
  if (!d->requantize) {
    TWL_CHECK_ARG(
        node->num_inputs <= kMultiplier || (node->inputs[kMultiplier] < 0),
        "an int32 output takes no multiplier");
    return Status::Ok();
  }
  TWL_CHECK_ARG(IsEightBit(output->type),
                "output '%s' must be int32, int8 or uint8, got %s",
                output->name, DataTypeName(output->type));
  const Tensor* multiplier = context->input(*node, kMultiplier);
  const Tensor* output_zp = context->input(*node, kOutputZeroPoint);
  TWL_CHECK_ARG(multiplier != nullptr && output_zp != nullptr,
                "an 8-bit output needs a multiplier and a zero point");
  TWL_RETURN_IF_ERROR(CheckType(multiplier, "multiplier", DataType::kFloat32));
  TWL_CHECK_ARG(
      multiplier->num_elements() == 1 || multiplier->num_elements() == n,
      "multiplier '%s' has %lld elements; it needs 1 or %d", multiplier->name,
      static_cast<long long>(multiplier->num_elements()), n);
  TWL_RETURN_IF_ERROR(CheckType(output_zp, "output zero point", output->type));
  TWL_CHECK_ARG(output_zp->num_elements() == 1,
                "output zero point '%s' must have one element",
                output_zp->name);
  if (multiplier->is_constant) {
    TWL_RETURN_IF_ERROR(CheckScales(*multiplier, "multiplier"));
  }
  return Status::Ok();
}

Status RequestScratch(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d->k <= kMaxQuantizedDepth,
                "depth %d exceeds %d, past which int32 accumulation could "
                "overflow",
                d->k, kMaxQuantizedDepth);
  const size_t m = d->m, n = d->n, k = d->k;
  TWL_RETURN_IF_ERROR(
      // One element more: the panel GEMM reads it at an odd depth.
      context->RequestScratch(node, (m * k + 1) * sizeof(int16_t),
                              &d->lhs_scratch));
  d->acc_scratch = -1;
  if (d->requantize) {
    TWL_RETURN_IF_ERROR(context->RequestScratch(node, m * n * sizeof(int32_t),
                                                &d->acc_scratch));
  }
  return Status::Ok();
}

// rhs element (j, kk) of the n x k right operand at src[j * sn + kk * sk],
// minus its column's zero point, into dst[j * k + kk].
template <typename T>
void PackRhs(const T* src, int n, int k, int64_t sn, int64_t sk,
             const Tensor* zp, int16_t* dst) {
  for (int j = 0; j < n; ++j) {
    const int32_t z = ZeroPointAt(zp, j);
    for (int kk = 0; kk < k; ++kk) {
      dst[static_cast<int64_t>(j) * k + kk] =
          static_cast<int16_t>(src[j * sn + kk * sk] - z);
    }
  }
}

// Packs batches [first, first + count) of the right operand into `dst`.
Status PackBatches(const Tensor* rhs, const Tensor* zp, const OpData& d,
                   int64_t first, int64_t count, int16_t* dst) {
  const int64_t nk = int64_t{d.n} * d.k;
  return DispatchEightBit(rhs->type, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < count; ++b) {
      PackRhs(rhs->data_as<T>() + (first + b) * nk, d.n, d.k, d.rhs_sn,
              d.rhs_sk, zp, dst + b * nk);
    }
    return Status::Ok();
  });
}

// Prepare: packs a constant right operand (`batches` of them) once, or plans
// scratch to pack one batch at a time in eval.
TWL_PREPARE Status PrepareRhs(KernelContext* context, Node* node,
                              int64_t batches) {
  OpData* d = static_cast<OpData*>(node->user_data);
  const Tensor* rhs = context->input(*node, 1);
  const Tensor* zp = context->input(*node, kRhsZeroPoint);
  d->packed.reset();
  d->rhs_scratch = -1;
  const size_t nk = static_cast<size_t>(d->n) * d->k;
  if (!rhs->is_constant || (zp != nullptr && !zp->is_constant)) {
    return context->RequestScratch(node, nk * sizeof(int16_t), &d->rhs_scratch);
  }
  d->packed.reset(new (std::nothrow) int16_t[batches * nk + 1]);
  TWL_CHECK_ARG(d->packed != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(PackBatches(rhs, zp, *d, 0, batches, d->packed.get()));
  context->ReleaseConstant(rhs);
  d->panels.reset();
  if (kPanelGemm) {
    const int group_n = d->n / d->groups;
    d->panel_size = PanelSize(group_n, d->k);
    d->panels.reset(new (std::nothrow)
                        int16_t[batches * d->groups * d->panel_size]);
    TWL_CHECK_ARG(d->panels != nullptr, "out of memory");
    for (int64_t b = 0; b < batches * d->groups; ++b) {
      PackPanels(d->packed.get() + b * group_n * d->k, group_n, d->k,
                 d->panels.get() + b * d->panel_size);
    }
  }
  return Status::Ok();
}

// Eval: batch `batch` of the packed right operand.
const int16_t* PackedRhs(KernelContext* context, Node* node, int64_t batch) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  if (d.packed != nullptr) return d.packed.get() + batch * d.n * d.k;
  int16_t* dst = static_cast<int16_t*>(node->scratch[d.rhs_scratch]);
  // The type was checked in prepare: this cannot fail.
  PackBatches(context->input(*node, 1), context->input(*node, kRhsZeroPoint), d,
              batch, 1, dst);
  return dst;
}

// Writes an m x n block of accumulators: the int32 output as it is, or
// requantized into the 8-bit output at element `offset`.
Status Finish(KernelContext* context, Node* node, const int32_t* acc,
              int64_t offset) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  Tensor* out = context->output(*node, 0);
  const Tensor* multiplier = context->input(*node, kMultiplier);
  const int32_t zp = ZeroPointAt(context->input(*node, kOutputZeroPoint), 0);
  return DispatchEightBit(out->type, [&](auto tag) {
    using T = decltype(tag);
    Requantize<T>(acc, d.m, d.n, multiplier->data_as<float>(),
                  multiplier->num_elements() > 1, zp,
                  out->data_as<T>() + offset);
    return Status::Ok();
  });
}

// The m x n product of the lhs rows and the packed rhs, plus the bias, into
// `acc`, group by group: the reference path multiplies lhs_at(g, i, kk)
// (zero point subtracted) plainly; the optimized one has fill_lhs(g, lhs)
// write group g's rows into scratch and runs the GEMM on its columns. With
// panels and an 8-bit output, the panel GEMM adds the bias and requantizes
// into the output at element `offset` itself, and this returns true.
template <typename LhsAt, typename FillLhs>
bool Multiply(KernelContext* context, Node* node, const int16_t* packed_rhs,
              const int16_t* panels, LhsAt lhs_at, FillLhs fill_lhs,
              int32_t* acc, int64_t offset) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const int group_n = d.n / d.groups;
  int16_t* lhs = static_cast<int16_t*>(node->scratch[d.lhs_scratch]);
  if (panels != nullptr && d.requantize && !context->use_reference()) {
    const Tensor* bias = context->input(*node, kBias);
    const Tensor* multiplier = context->input(*node, kMultiplier);
    Tensor* y = context->output(*node, 0);
    QuantizedOutput o;
    o.per_column = multiplier->num_elements() > 1;
    o.zero_point = ZeroPointAt(context->input(*node, kOutputZeroPoint), 0);
    o.is_uint8 = y->type == DataType::kUInt8;
    o.out_stride = d.n;
    o.float_exact = d.float_exact;
    for (int g = 0; g < d.groups; ++g) {
      const int64_t col = int64_t{g} * group_n;
      fill_lhs(g, lhs);
      o.bias = bias != nullptr ? bias->data_as<int32_t>() + col : nullptr;
      o.multiplier = multiplier->data_as<float>() + (o.per_column ? col : 0);
      // int8 and uint8 elements are one byte.
      o.out = static_cast<char*>(y->data) + offset + col;
      QuantizedGemmPanels(lhs, panels + g * d.panel_size, d.m, group_n, d.k, o,
                          context->thread_pool());
    }
    return true;
  }
  for (int g = 0; g < d.groups; ++g) {
    const int16_t* rhs = packed_rhs + int64_t{g} * group_n * d.k;
    int32_t* out = acc + int64_t{g} * group_n;
    if (!context->use_reference()) {
      fill_lhs(g, lhs);
      if (panels != nullptr) {
        QuantizedGemmPanels(lhs, panels + g * d.panel_size, d.m, group_n, d.k,
                            out, d.n, context->thread_pool());
      } else {
        QuantizedGemm(lhs, rhs, d.m, group_n, d.k, out, d.n,
                      context->thread_pool());
      }
      continue;
    }
    for (int i = 0; i < d.m; ++i) {
      for (int j = 0; j < group_n; ++j) {
        int32_t sum = 0;
        for (int kk = 0; kk < d.k; ++kk) {
          sum += lhs_at(g, i, kk) * rhs[static_cast<int64_t>(j) * d.k + kk];
        }
        out[static_cast<int64_t>(i) * d.n + j] = sum;
      }
    }
  }
  const Tensor* bias = context->input(*node, kBias);
  if (bias == nullptr) return false;
  const int32_t* b = bias->data_as<int32_t>();
  const int n = d.n;  // locals: stores through acc could alias d's fields
  const int64_t m = d.m;
  for (int64_t i = 0; i < m; ++i) {
    int32_t* row = acc + i * n;
    for (int j = 0; j < n; ++j) {  // wrapping, as int32 arithmetic in ONNX
      row[j] = static_cast<int32_t>(static_cast<uint32_t>(row[j]) +
                                    static_cast<uint32_t>(b[j]));
    }
  }
  return false;
}

// WidenSubtract (quantization.h), 16 and 8 at a time in AVX2 builds.
template <typename X>
inline void Widen(const X* src, int64_t count, int32_t zero_point,
                  int16_t* dst) {
  int64_t i = 0;
#if TWL_INT8_AVX2
  constexpr bool kUnsigned = std::is_same<X, uint8_t>::value;
  const __m256i zp = _mm256_set1_epi16(static_cast<int16_t>(zero_point));
  for (; i + 16 <= count; i += 16) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(dst + i),
        _mm256_sub_epi16(
            kUnsigned ? _mm256_cvtepu8_epi16(v) : _mm256_cvtepi8_epi16(v), zp));
  }
  if (i + 8 <= count) {
    const __m128i v =
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i));
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(dst + i),
        _mm_sub_epi16(kUnsigned ? _mm_cvtepu8_epi16(v) : _mm_cvtepi8_epi16(v),
                      _mm256_castsi256_si128(zp)));
    i += 8;
  }
#endif
  WidenSubtract(src + i, count - i, zero_point, dst + i);
}

// The convolution's patches as GEMM rows: row (oy, ox) holds, tap by tap,
// group g's channels of x under that tap minus x_zp, or zeros in the
// padding.
template <typename X>
void Im2Col(const OpData& d, const X* x, int g, int32_t x_zp, int16_t* lhs) {
  const int cg = d.group_channels;
  if (d.kernel_h == 1 && d.kernel_w == 1 && d.stride_h == 1 &&
      d.stride_w == 1 && d.pad_top == 0 && d.pad_left == 0 && d.groups == 1 &&
      d.out_h == d.in_h && d.out_w == d.in_w) {
    // A pointwise convolution's patches are x itself.
    Widen(x, int64_t{d.m} * cg, x_zp, lhs);
    return;
  }
  // A tap row inside the image with dilation 1 and one group is kernel_w *
  // channels contiguous elements of x.
  const int span = d.kernel_w * cg;
  for (int oy = 0; oy < d.out_h; ++oy) {
    for (int ox = 0; ox < d.out_w; ++ox) {
      int16_t* row = lhs + (int64_t{oy} * d.out_w + ox) * d.k;
      const int ix0 = ox * d.stride_w - d.pad_left;
      const bool columns_inside = d.groups == 1 && d.dilation_w == 1 &&
                                  ix0 >= 0 && ix0 + d.kernel_w <= d.in_w;
      for (int ky = 0; ky < d.kernel_h; ++ky) {
        const int iy = oy * d.stride_h - d.pad_top + ky * d.dilation_h;
        if (columns_inside && iy >= 0 && iy < d.in_h) {
          Widen(x + (int64_t{iy} * d.in_w + ix0) * d.channels, span, x_zp, row);
          row += span;
          continue;
        }
        for (int kx = 0; kx < d.kernel_w; ++kx, row += cg) {
          const int ix = ox * d.stride_w - d.pad_left + kx * d.dilation_w;
          if (iy < 0 || iy >= d.in_h || ix < 0 || ix >= d.in_w) {
            std::fill(row, row + cg, int16_t{0});
          } else {
            Widen(x + (int64_t{iy} * d.in_w + ix) * d.channels + g * cg, cg,
                  x_zp, row);
          }
        }
      }
    }
  }
}

// Depthwise convolution straight from x (no im2col): each output pixel's C
// accumulators, tap by tap, sum (x - x_zp) * filter over the taps inside
// the image, channels innermost (contiguous in NHWC and in the tap-major
// filter, so the loop vectorizes), then the bias. Output rows split over
// the pool.
// Adds the taps of output pixel (oy, ox) over channels [c0, c0 + W) to
// sum[0, W) (W fixed, so the accumulators stay in vector registers).
template <int W, typename X>
inline void DepthwiseTaps(const OpData& d, const X* x, int32_t x_zp, int oy,
                          int ox, int c0, int width, int32_t* sum) {
  for (int ky = 0; ky < d.kernel_h; ++ky) {
    const int iy = oy * d.stride_h - d.pad_top + ky * d.dilation_h;
    if (iy < 0 || iy >= d.in_h) continue;
    for (int kx = 0; kx < d.kernel_w; ++kx) {
      const int ix = ox * d.stride_w - d.pad_left + kx * d.dilation_w;
      if (ix < 0 || ix >= d.in_w) continue;
      const X* in = x + (int64_t{iy} * d.in_w + ix) * d.channels + c0;
      const int16_t* w =
          d.depthwise.get() + int64_t{ky * d.kernel_w + kx} * d.channels + c0;
      if (W > 0) {
        for (int c = 0; c < W; ++c) {
          sum[c] += (static_cast<int32_t>(in[c]) - x_zp) * w[c];
        }
      } else {
        for (int c = 0; c < width; ++c) {
          sum[c] += (static_cast<int32_t>(in[c]) - x_zp) * w[c];
        }
      }
    }
  }
}

#if TWL_INT8_AVX2
// 16 channels of x at `p` (nullptr: a tap in the padding, zeros) minus the
// zero point, as int16.
template <typename X>
inline __m256i Widened16(const X* p, __m256i zp, bool inside = false) {
  if (!inside && p == nullptr) return _mm256_setzero_si256();
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_sub_epi16(std::is_same<X, uint8_t>::value
                              ? _mm256_cvtepu8_epi16(v)
                              : _mm256_cvtepi8_epi16(v),
                          zp);
}

// Channels [0, 16 * blocks) of one output pixel whose taps start at tap[t]
// (nullptr in the padding): per pair of taps, the two taps' 16 channels
// interleaved into pairs (unpacklo/hi) multiply-add with the pair layout of
// the filter (vpmaddwd: two taps per int32 lane; |x - x_zp|, |w| <= 255),
// then the bias; out gets the int32 sums.
// kTaps > 0: a pixel with all of its kTaps taps inside the image (no
// null checks; the pairs unrolled).
template <int kTaps, typename X, typename Emit>
inline void DepthwisePairs(const OpData& d, const X* const* tap, int32_t x_zp,
                           const int32_t* bias, int first, int blocks,
                           Emit emit) {
  const int taps = kTaps > 0 ? kTaps : d.kernel_h * d.kernel_w;
  const int pairs = (taps + 1) / 2;
  const __m256i zp = _mm256_set1_epi16(static_cast<int16_t>(x_zp));
  for (int b = first; b < blocks; ++b) {
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
    const int16_t* w = d.depthwise_pairs.get() + b * 32;
#pragma GCC unroll 5
    for (int p = 0; p < pairs; ++p, w += blocks * 32) {
      const X* t0 = tap[2 * p];
      const X* t1 = 2 * p + 1 < taps ? tap[2 * p + 1] : nullptr;
      if (kTaps == 0 && t0 == nullptr && t1 == nullptr) continue;
      const __m256i x0 = Widened16(
          kTaps > 0 || t0 != nullptr ? t0 + b * 16 : nullptr, zp, kTaps > 0);
      const __m256i x1 = Widened16(t1 != nullptr ? t1 + b * 16 : nullptr, zp,
                                   kTaps > 0 && 2 * p + 1 < taps);
      lo = _mm256_add_epi32(
          lo, _mm256_madd_epi16(
                  _mm256_unpacklo_epi16(x0, x1),
                  _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))));
      hi = _mm256_add_epi32(
          hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1),
                                _mm256_loadu_si256(
                                    reinterpret_cast<const __m256i*>(w + 16))));
    }
    // lo: channels 0-3 and 8-11; hi: 4-7 and 12-15.
    __m256i first = _mm256_permute2x128_si256(lo, hi, 0x20);
    __m256i second = _mm256_permute2x128_si256(lo, hi, 0x31);
    if (bias != nullptr) {  // wrapping, as in Multiply
      first = _mm256_add_epi32(
          first,
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + b * 16)));
      second = _mm256_add_epi32(
          second, _mm256_loadu_si256(
                      reinterpret_cast<const __m256i*>(bias + b * 16 + 8)));
    }
    emit(b * 16, first, second);
  }
}

// DepthwisePairs' emit storing the int32 sums of channels [c, c + 16).
struct DepthwiseStore32 {
  int32_t* out;
  inline void operator()(int c, __m256i first, __m256i second) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), first);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c + 8), second);
  }
};

// DepthwisePairs' emit requantizing channels [c, c + 16) in float into T
// output `out` (OpData::float_exact: as RequantizeFloat16, eight lanes).
template <typename T>
struct DepthwiseStoreFloat {
  static constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: 0x4B400000
  T* out;
  const float* multiplier;
  bool per_column;
  __m256 low, high;
  __m256i offset;
  DepthwiseStoreFloat(T* out, const float* multiplier, bool per_column,
                      int32_t zero_point)
      : out(out),
        multiplier(multiplier),
        per_column(per_column),
        low(_mm256_set1_ps(kMagic +
                           (std::numeric_limits<T>::min() - zero_point))),
        high(_mm256_set1_ps(kMagic +
                            (std::numeric_limits<T>::max() - zero_point))),
        offset(_mm256_set1_epi32(0x4B400000 - zero_point)) {}
  inline __m256i Int32(__m256i acc, __m256 m) const {
    __m256 v =
        _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), m, _mm256_set1_ps(kMagic));
    v = _mm256_min_ps(_mm256_max_ps(v, low), high);
    return _mm256_sub_epi32(_mm256_castps_si256(v), offset);
  }
  inline void operator()(int c, __m256i first, __m256i second) const {
    const __m256 m_first = per_column ? _mm256_loadu_ps(multiplier + c)
                                      : _mm256_set1_ps(multiplier[0]);
    const __m256 m_second =
        per_column ? _mm256_loadu_ps(multiplier + c + 8) : m_first;
    // In T's range: the packs do not saturate; the pack within 128-bit
    // lanes leaves 64-bit quarters (first 0-3, second 0-3, first 4-7,
    // second 4-7).
    const __m256i halves = _mm256_permute4x64_epi64(
        _mm256_packs_epi32(Int32(first, m_first), Int32(second, m_second)),
        0xd8);
    const __m128i lo = _mm256_castsi256_si128(halves);
    const __m128i hi = _mm256_extracti128_si256(halves, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c),
                     std::is_same<T, uint8_t>::value ? _mm_packus_epi16(lo, hi)
                                                     : _mm_packs_epi16(lo, hi));
  }
};
#endif  // TWL_INT8_AVX2

#if TWL_INT8_AVX512
// As DepthwisePairs over every channel in blocks of 32 in AVX-512
// registers, the last block masked; emit(c, sums, count) gets channels [c,
// c + count) (count <= 16) of the int32 sums, bias added, in one vector.
template <typename X, typename Emit>
inline void DepthwisePairs32(const OpData& d, const X* const* tap, int32_t x_zp,
                             const int32_t* bias, Emit emit) {
  const int taps = d.kernel_h * d.kernel_w, pairs = (taps + 1) / 2;
  const int channels = d.channels, blocks = (channels + 31) / 32;
  const __m512i zp = _mm512_set1_epi16(static_cast<int16_t>(x_zp));
  // lo: channels 8L..8L+3 of lane L, hi: 8L+4..8L+7; in 64-bit units, the
  // lanes of lo and hi alternate in channel order.
  const __m512i first_half = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i second_half = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (int b = 0; b < blocks; ++b) {
    const int valid = std::min(32, channels - b * 32);
    const __mmask32 mask =
        valid == 32 ? ~__mmask32{0} : (__mmask32{1} << valid) - 1;
    // Channels past the mask widen to -x_zp and meet zero weights.
    auto widened = [&](const X* p) {
      if (p == nullptr) return _mm512_setzero_si512();
      const __m256i v = _mm256_maskz_loadu_epi8(mask, p + b * 32);
      return _mm512_sub_epi16(std::is_same<X, uint8_t>::value
                                  ? _mm512_cvtepu8_epi16(v)
                                  : _mm512_cvtepi8_epi16(v),
                              zp);
    };
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
    const int16_t* w = d.depthwise_pairs32.get() + b * 64;
    for (int p = 0; p < pairs; ++p, w += blocks * 64) {
      const X* t0 = tap[2 * p];
      const X* t1 = 2 * p + 1 < taps ? tap[2 * p + 1] : nullptr;
      if (t0 == nullptr && t1 == nullptr) continue;
      const __m512i x0 = widened(t0), x1 = widened(t1);
      lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(x0, x1),
                                                  _mm512_loadu_si512(w)));
      hi = _mm512_add_epi32(hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(x0, x1),
                                                  _mm512_loadu_si512(w + 32)));
    }
    __m512i first = _mm512_permutex2var_epi64(lo, first_half, hi);
    __m512i second = _mm512_permutex2var_epi64(lo, second_half, hi);
    const __mmask16 first_mask = static_cast<__mmask16>(mask);
    const __mmask16 second_mask = static_cast<__mmask16>(mask >> 16);
    if (bias != nullptr) {  // wrapping, as in Multiply
      first = _mm512_add_epi32(
          first, _mm512_maskz_loadu_epi32(first_mask, bias + b * 32));
      second = _mm512_add_epi32(
          second, _mm512_maskz_loadu_epi32(second_mask, bias + b * 32 + 16));
    }
    emit(b * 32, first, std::min(16, valid));
    if (valid > 16) emit(b * 32 + 16, second, valid - 16);
  }
}

// DepthwisePairs32 requantizing into T output `y` at output pixel
// `pixel` (multiplier: one double per channel, readable to a multiple of
// 32 channels).
template <typename T, typename X>
inline void DepthwiseFused(const OpData& d, const X* const* tap, int32_t x_zp,
                           const int32_t* bias, const double* multiplier,
                           const Requantize16& requantize, T* y,
                           int64_t pixel) {
  T* out = y + pixel * d.channels;
  DepthwisePairs32(d, tap, x_zp, bias, [&](int c, __m512i v, int count) {
    const __m128i bytes = requantize(v, _mm512_loadu_pd(multiplier + c),
                                     _mm512_loadu_pd(multiplier + c + 8));
    _mm_mask_storeu_epi8(out + c, static_cast<__mmask16>((1u << count) - 1),
                         bytes);
  });
}
#endif  // TWL_INT8_AVX512

// Where channel c of a block of 64 sits in DwQuads' vectors: vector j =
// (c % 16) / 4, lane L = c / 16, int32 i = c % 4, at 16 * j + 4 * L + i.
inline int QuadOrder(int c) {
  return c / 64 * 64 + (c % 16) / 4 * 16 + (c % 64) / 16 * 4 + c % 4;
}

#if TWL_INT8_VNNI
// DepthwiseVnniRow's float requantization (float_exact): multipliers in
// QuadOrder, results as int32.
template <typename T>
struct DwRequantizeFloat {
  static constexpr bool kInQuadOrder = true;
  RequantizeFloat16 requantize;
  const float* multiplier;
  inline __m512i Int32(__m512i acc, int at) const {
    return requantize.Int32(acc, _mm512_loadu_ps(multiplier + at));
  }
};

// DepthwiseVnniRow's double requantization: multipliers in channel order,
// results as bytes.
template <typename T>
struct DwRequantizeDouble {
  static constexpr bool kInQuadOrder = false;
  Requantize16 requantize;
  const double* multiplier;
  inline __m128i operator()(__m512i acc, int c) const {
    return requantize(acc, _mm512_loadu_pd(multiplier + c),
                      _mm512_loadu_pd(multiplier + c + 8));
  }
};

// acc + a (uint8) . b (int8) per int32 lane, in acc's register (as
// quantization.cc's Dpbusd).
inline __m512i DwDpbusd(__m512i acc, __m512i a, __m512i b) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}

// 64 channels of one input column in three rows as vpdpbusd quads: q[j],
// 128-bit lane L, int32 i holds the bytes (r0, r1, r2, 0) of channel
// 16L + 4j + i.
inline void DwQuads(__m512i r0, __m512i r1, __m512i r2, __m512i* q) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i a = _mm512_unpacklo_epi8(r0, r1);
  const __m512i b = _mm512_unpackhi_epi8(r0, r1);
  const __m512i c = _mm512_unpacklo_epi8(r2, zero);
  const __m512i e = _mm512_unpackhi_epi8(r2, zero);
  q[0] = _mm512_unpacklo_epi16(a, c);
  q[1] = _mm512_unpackhi_epi16(a, c);
  q[2] = _mm512_unpacklo_epi16(b, e);
  q[3] = _mm512_unpackhi_epi16(b, e);
}

// Output row oy of a 3x3 depthwise convolution with stride S (dw_vnni):
// per block of 64 channels, each input column's three rows become quads
// once (DwQuads) and meet the filter's three columns in the (up to) three
// output pixels that read them; taps in the padding read x_zp, which the
// bias (dw_bias_scratch) cancels. Requantize is DwRequantizeFloat (in
// QuadOrder, packed to bytes here) or DwRequantizeDouble.
template <int S, typename T, typename Requantize>
void DepthwiseVnniRow(const OpData& d, const uint8_t* x, uint8_t x_zp,
                      const int32_t* bias, const Requantize& requantize, T* y,
                      int oy) {
  const int channels = d.channels, in_w = d.in_w, out_w = d.out_w;
  const int pad_left = d.pad_left;
  const uint8_t* row[3];
  for (int ky = 0; ky < 3; ++ky) {
    const int iy = oy * S - d.pad_top + ky;
    row[ky] =
        iy >= 0 && iy < d.in_h ? x + int64_t{iy} * in_w * channels : nullptr;
  }
  const __m512i zp = _mm512_set1_epi8(static_cast<char>(x_zp));
  for (int c0 = 0; c0 < channels; c0 += 64) {
    const int valid = std::min(64, channels - c0);
    const __mmask64 mask =
        valid == 64 ? ~__mmask64{0} : (__mmask64{1} << valid) - 1;
    const int8_t* wb = d.dw_vnni.get() + int64_t{c0 / 64} * kDwVnniBlock;
    auto column = [&](int ix, __m512i* q) {
      __m512i r[3];
      for (int ky = 0; ky < 3; ++ky) {
        r[ky] = row[ky] != nullptr && ix >= 0 && ix < in_w
                    ? _mm512_maskz_loadu_epi8(
                          mask, row[ky] + int64_t{ix} * channels + c0)
                    : zp;
      }
      DwQuads(r[0], r[1], r[2], q);
    };
    __m512i qa[4], qb[4], qc[4];
    column(-pad_left, qa);
    if (S == 1) column(1 - pad_left, qb);
    for (int ox = 0; ox < out_w; ++ox) {
      const int ix0 = ox * S - pad_left;
      if (S == 2) column(ix0 + 1, qb);
      column(ix0 + 2, qc);
      __m512i acc[4];
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        acc[j] = _mm512_loadu_si512(bias + c0 + 16 * j);
        acc[j] = DwDpbusd(acc[j], qa[j], _mm512_loadu_si512(wb + j * 64));
        acc[j] = DwDpbusd(acc[j], qb[j], _mm512_loadu_si512(wb + (4 + j) * 64));
        acc[j] = DwDpbusd(acc[j], qc[j], _mm512_loadu_si512(wb + (8 + j) * 64));
      }
      T* out = y + (int64_t{oy} * out_w + ox) * channels + c0;
      if constexpr (Requantize::kInQuadOrder) {
        // Requantized in QuadOrder, two packs (within 128-bit lanes) put
        // lane L's channels 16L..16L+15 in order.
        __m512i q[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          q[j] = requantize.Int32(acc[j], c0 + 16 * j);
        }
        const __m512i low = _mm512_packs_epi32(q[0], q[1]);
        const __m512i high = _mm512_packs_epi32(q[2], q[3]);
        _mm512_mask_storeu_epi8(out, mask,
                                std::is_same<T, uint8_t>::value
                                    ? _mm512_packus_epi16(low, high)
                                    : _mm512_packs_epi16(low, high));
      } else {
        // acc[j]'s lane L holds channels 16L + 4j..: transpose the lanes.
        const __m512i t0 = _mm512_shuffle_i32x4(acc[0], acc[1], 0x44);
        const __m512i t1 = _mm512_shuffle_i32x4(acc[2], acc[3], 0x44);
        const __m512i t2 = _mm512_shuffle_i32x4(acc[0], acc[1], 0xee);
        const __m512i t3 = _mm512_shuffle_i32x4(acc[2], acc[3], 0xee);
        const __m512i sums[4] = {_mm512_shuffle_i32x4(t0, t1, 0x88),
                                 _mm512_shuffle_i32x4(t0, t1, 0xdd),
                                 _mm512_shuffle_i32x4(t2, t3, 0x88),
                                 _mm512_shuffle_i32x4(t2, t3, 0xdd)};
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
          const int count = std::min(16, valid - 16 * k);
          if (count <= 0) break;
          _mm_mask_storeu_epi8(out + 16 * k,
                               static_cast<__mmask16>((1u << count) - 1),
                               requantize(sums[k], c0 + 16 * k));
        }
      }
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        qa[j] = S == 1 ? qb[j] : qc[j];
        if (S == 1) qb[j] = qc[j];
      }
    }
  }
}
#endif  // TWL_INT8_VNNI

// A depthwise convolution's 8-bit output, requantized in registers
// (AVX-512 builds): one double multiplier per channel (zeros to a multiple
// of 32), the zero point, and this image's output.
struct DepthwiseOutput {
  const double* multiplier = nullptr;
  // AVX2 builds, OpData::float_exact and a multiple of 16 channels: the
  // float multipliers (one, or one per channel) instead.
  const float* float_multiplier = nullptr;
  bool per_column = false;
  int32_t zero_point = 0;
  bool is_uint8 = false;
  void* out = nullptr;
};

// Depthwise convolution straight from x (no im2col): for each output pixel
// and block of 32 channels, the taps inside the image add (x - x_zp) *
// filter into accumulators held in registers (channels contiguous in NHWC
// and in the tap-major filter), then the bias; row_done(oy) follows each
// output row (while its accumulators are in cache). Output rows split over
// the pool.
template <typename X, typename RowDone>
void DepthwiseAccumulate(const OpData& d, const X* x, int32_t x_zp,
                         const Tensor* bias, int32_t* acc, RowDone row_done,
                         const DepthwiseOutput* fused, ThreadPool* pool) {
  constexpr int kBlock = 32;
  const int channels = d.channels;
  const int32_t* b = bias != nullptr ? bias->data_as<int32_t>() : nullptr;
#if TWL_INT8_AVX512
  const int32_t y_zp = fused != nullptr ? fused->zero_point : 0;
  const Requantize16 to_uint8(y_zp, true);
  const Requantize16 to_int8(y_zp, false);
#endif
#if TWL_INT8_AVX2
  // Output rows and columns [first_inside, end_inside) read no padding.
  auto inside = [](int pad, int stride, int span, int in, int out, int* first,
                   int* end) {
    *first = std::min(out, (pad + stride - 1) / stride);
    const int last = in - span + pad;  // the last row's start, padded
    *end =
        last < 0 ? *first : std::max(*first, std::min(out, last / stride + 1));
  };
  int first_inside_y, end_inside_y, first_inside_x, end_inside_x;
  inside(d.pad_top, d.stride_h, (d.kernel_h - 1) * d.dilation_h + 1, d.in_h,
         d.out_h, &first_inside_y, &end_inside_y);
  inside(d.pad_left, d.stride_w, (d.kernel_w - 1) * d.dilation_w + 1, d.in_w,
         d.out_w, &first_inside_x, &end_inside_x);
#endif
  auto run = [&](int64_t begin, int64_t end) {
    for (int oy = static_cast<int>(begin); oy < end; ++oy) {
      for (int ox = 0; ox < d.out_w; ++ox) {
        int32_t* out = acc + (int64_t{oy} * d.out_w + ox) * channels;
        int c0 = 0;
#if TWL_INT8_AVX2
        if (d.depthwise_pairs != nullptr || d.depthwise_pairs32 != nullptr) {
          const X* tap[kMaxPairTaps];
          for (int ky = 0, t = 0; ky < d.kernel_h; ++ky) {
            const int iy = oy * d.stride_h - d.pad_top + ky * d.dilation_h;
            for (int kx = 0; kx < d.kernel_w; ++kx, ++t) {
              const int ix = ox * d.stride_w - d.pad_left + kx * d.dilation_w;
              tap[t] = iy < 0 || iy >= d.in_h || ix < 0 || ix >= d.in_w
                           ? nullptr
                           : x + (int64_t{iy} * d.in_w + ix) * channels;
            }
          }
#if TWL_INT8_AVX512
          if (d.depthwise_pairs32 != nullptr) {
            const int64_t pixel = int64_t{oy} * d.out_w + ox;
            if (fused == nullptr) {
              DepthwisePairs32(
                  d, tap, x_zp, b, [&](int c, __m512i v, int count) {
                    _mm512_mask_storeu_epi32(out + c, (1u << count) - 1, v);
                  });
            } else if (fused->is_uint8) {
              DepthwiseFused(d, tap, x_zp, b, fused->multiplier, to_uint8,
                             static_cast<uint8_t*>(fused->out), pixel);
            } else {
              DepthwiseFused(d, tap, x_zp, b, fused->multiplier, to_int8,
                             static_cast<int8_t*>(fused->out), pixel);
            }
            continue;
          }
#else
          const int blocks = channels / 16;
          // 3x3 pixels with every tap inside the image: the unrolled kernel.
          const bool inside_3x3 = d.kernel_h == 3 && d.kernel_w == 3 &&
                                  oy >= first_inside_y && oy < end_inside_y &&
                                  ox >= first_inside_x && ox < end_inside_x;
          auto pairs = [&](auto emit) {
            if (inside_3x3) {
              DepthwisePairs<9>(d, tap, x_zp, b, 0, blocks, emit);
            } else {
              DepthwisePairs<0>(d, tap, x_zp, b, 0, blocks, emit);
            }
          };
          if (fused != nullptr) {  // float_multiplier, channels % 16 == 0
            const int64_t at = (int64_t{oy} * d.out_w + ox) * channels;
            if (fused->is_uint8) {
              pairs(DepthwiseStoreFloat<uint8_t>(
                  static_cast<uint8_t*>(fused->out) + at,
                  fused->float_multiplier, fused->per_column,
                  fused->zero_point));
            } else {
              pairs(DepthwiseStoreFloat<int8_t>(
                  static_cast<int8_t*>(fused->out) + at,
                  fused->float_multiplier, fused->per_column,
                  fused->zero_point));
            }
            continue;
          }
          pairs(DepthwiseStore32{out});
          c0 = blocks * 16;
#endif  // TWL_INT8_AVX512
        }
#endif  // TWL_INT8_AVX2
        for (; c0 < channels; c0 += kBlock) {
          const int width = std::min(kBlock, channels - c0);
          int32_t sum[kBlock];
          // Not `= {}`: GCC makes that a rep stos of the stack array.
#pragma GCC unroll 32
          for (int c = 0; c < kBlock; ++c) sum[c] = 0;
          if (width == kBlock) {
            DepthwiseTaps<kBlock>(d, x, x_zp, oy, ox, c0, width, sum);
          } else {
            DepthwiseTaps<0>(d, x, x_zp, oy, ox, c0, width, sum);
          }
          for (int c = 0; c < width; ++c) {  // wrapping, as in Multiply
            const uint32_t bc = b != nullptr ? b[c0 + c] : 0;
            out[c0 + c] =
                static_cast<int32_t>(static_cast<uint32_t>(sum[c]) + bc);
          }
        }
      }
      row_done(oy);
    }
  };
  if (pool == nullptr) {
    run(0, d.out_h);
  } else {
    const int64_t row_work =
        int64_t{d.out_w} * channels * d.kernel_h * d.kernel_w;
    const int64_t grain =
        std::max<int64_t>(1, 32768 / std::max<int64_t>(row_work, 1));
    pool->ParallelFor(d.out_h, grain, pool->num_threads(), run);
  }
}

#if TWL_INT8_VNNI
// The depthwise convolution of image x by DepthwiseVnniRow into `fused`'s
// output, rows split over the pool.
void DepthwiseVnni(KernelContext* context, Node* node, const uint8_t* x,
                   int32_t x_zp, const DepthwiseOutput& fused) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* bias = context->input(*node, kBias);
  int32_t* b = static_cast<int32_t*>(node->scratch[d.dw_bias_scratch]);
  const int channels = d.channels;
  for (int c = 0; c < (channels + 63) / 64 * 64; ++c) {
    // Channel c at DwQuads' position of its block (wrapping, as in
    // Multiply).
    const int at = QuadOrder(c);
    const uint32_t bc =
        c < channels && bias != nullptr ? bias->data_as<int32_t>()[c] : 0;
    b[at] =
        c < channels
            ? static_cast<int32_t>(bc - static_cast<uint32_t>(x_zp) *
                                            static_cast<uint32_t>(d.dw_sums[c]))
            : 0;
  }
  const uint8_t zp = static_cast<uint8_t>(x_zp);
  auto rows = [&](auto out_tag, int64_t begin, int64_t end) {
    using T = decltype(out_tag);
    T* y = static_cast<T*>(fused.out);
    auto each_row = [&](const auto& requantize) {
      for (int64_t oy = begin; oy < end; ++oy) {
        if (d.stride_h == 1) {
          DepthwiseVnniRow<1>(d, x, zp, b, requantize, y, static_cast<int>(oy));
        } else {
          DepthwiseVnniRow<2>(d, x, zp, b, requantize, y, static_cast<int>(oy));
        }
      }
    };
    if (d.float_exact) {
      each_row(DwRequantizeFloat<T>{
          RequantizeFloat16(fused.zero_point, fused.is_uint8),
          reinterpret_cast<const float*>(fused.multiplier)});
    } else {
      each_row(DwRequantizeDouble<T>{
          Requantize16(fused.zero_point, fused.is_uint8), fused.multiplier});
    }
  };
  auto run = [&](int64_t begin, int64_t end) {
    if (fused.is_uint8) {
      rows(uint8_t{}, begin, end);
    } else {
      rows(int8_t{}, begin, end);
    }
  };
  ThreadPool* pool = context->thread_pool();
  if (pool == nullptr) return run(0, d.out_h);
  const int64_t row_work = int64_t{d.out_w} * channels * 9;
  pool->ParallelFor(d.out_h, std::max<int64_t>(1, 32768 / row_work),
                    pool->num_threads(), run);
}
#endif  // TWL_INT8_VNNI

// The accumulator block for output elements [offset, offset + m * n).
int32_t* AccumulatorsAt(KernelContext* context, Node* node, int64_t offset) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  if (d.requantize) return static_cast<int32_t*>(node->scratch[d.acc_scratch]);
  return context->output(*node, 0)->data_as<int32_t>() + offset;
}

Status CheckEvalMultiplier(KernelContext* context, Node* node) {
  const Tensor* multiplier = context->input(*node, kMultiplier);
  if (!static_cast<OpData*>(node->user_data)->requantize ||
      multiplier->is_constant) {
    return Status::Ok();
  }
  return CheckScales(*multiplier, "multiplier");
}

bool IsPointwise(const OpData& d) {
  return d.kernel_h == 1 && d.kernel_w == 1 && d.stride_h == 1 &&
         d.stride_w == 1 && d.pad_top == 0 && d.pad_left == 0 &&
         d.groups == 1 && d.out_h == d.in_h && d.out_w == d.in_w;
}

// Packs the right operand for the VNNI GEMM when it applies (OpData) and
// plans its scratch; `direct`: the GEMM reads the lhs as it is, else byte
// patches (convolutions only: `patches`).
TWL_PREPARE Status PrepareVnni(KernelContext* context, Node* node, bool direct,
                               bool patches) {
  OpData* d = static_cast<OpData*>(node->user_data);
  d->vnni_panels.reset();
  d->column_sums.reset();
  d->bytes_scratch = d->bias_scratch = -1;
  if (!kVnniGemm || d->packed == nullptr || d->groups != 1 ||
      d->depthwise != nullptr || !d->requantize ||
      context->input(*node, 0)->type != DataType::kUInt8 ||
      (!direct && !patches)) {
    return Status::Ok();
  }
  d->vnni_panels.reset(new (std::nothrow) int8_t[VnniPanelSize(d->n, d->k)]);
  d->column_sums.reset(new (std::nothrow) int32_t[d->n]);
  TWL_CHECK_ARG(d->vnni_panels != nullptr && d->column_sums != nullptr,
                "out of memory");
  if (!PackVnniPanels(d->packed.get(), d->n, d->k, d->vnni_panels.get(),
                      d->column_sums.get())) {
    d->vnni_panels.reset();
    d->column_sums.reset();
    return Status::Ok();
  }
  d->panels.reset();  // the VNNI GEMM runs instead
  d->k_quads = (d->k + 3) / 4 * 4;
  d->vnni_direct = direct;
  TWL_RETURN_IF_ERROR(context->RequestScratch(
      node, static_cast<size_t>(d->n) * sizeof(int32_t), &d->bias_scratch));
  if (!d->vnni_direct) {
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, static_cast<size_t>(d->m) * d->k_quads, &d->bytes_scratch));
  }
  return Status::Ok();
}

// The patches of x as rows of k_quads bytes for the VNNI GEMM: x's values
// (not minus x_zp: the bias carries that), x_zp in the padding (so that it
// adds nothing), zeros past the depth.
void Im2ColBytes(const OpData& d, const uint8_t* x, uint8_t x_zp,
                 uint8_t* rows) {
  // Locals: the byte stores could alias d's fields.
  const int channels = d.channels, in_h = d.in_h, in_w = d.in_w;
  const int kernel_h = d.kernel_h, kernel_w = d.kernel_w;
  const int stride_h = d.stride_h, stride_w = d.stride_w;
  const int dilation_h = d.dilation_h, dilation_w = d.dilation_w;
  const int pad_top = d.pad_top, pad_left = d.pad_left;
  const int out_h = d.out_h, out_w = d.out_w, k_quads = d.k_quads;
  // A tap row inside the image with dilation 1 is kernel_w * channels
  // contiguous bytes of x.
  const int span = kernel_w * channels;
  auto copy = [](uint8_t* dst, const uint8_t* src, int n) {
    if (n >= 32) {
      memcpy(dst, src, n);
    } else {
      for (int i = 0; i < n; ++i) dst[i] = src[i];
    }
  };
  for (int oy = 0; oy < out_h; ++oy) {
    for (int ox = 0; ox < out_w; ++ox) {
      uint8_t* row = rows + (int64_t{oy} * out_w + ox) * k_quads;
      uint8_t* at = row;
      const int ix0 = ox * stride_w - pad_left;
      const bool columns_inside =
          dilation_w == 1 && ix0 >= 0 && ix0 + kernel_w <= in_w;
      for (int ky = 0; ky < kernel_h; ++ky) {
        const int iy = oy * stride_h - pad_top + ky * dilation_h;
        const bool row_inside = iy >= 0 && iy < in_h;
        if (row_inside && columns_inside) {
          copy(at, x + (int64_t{iy} * in_w + ix0) * channels, span);
          at += span;
          continue;
        }
        for (int kx = 0; kx < kernel_w; ++kx, at += channels) {
          const int ix = ix0 + kx * dilation_w;
          if (row_inside && ix >= 0 && ix < in_w) {
            copy(at, x + (int64_t{iy} * in_w + ix) * channels, channels);
          } else {
            for (int c = 0; c < channels; ++c) at[c] = x_zp;
          }
        }
      }
      while (at < row + k_quads) *at++ = 0;
    }
  }
}

// The VNNI GEMM of uint8 rows lhs (row i at lhs + i * lhs_stride) into the
// output at element `offset`; bias - lhs_zp * column sum into scratch first.
void RunVnni(KernelContext* context, Node* node, const uint8_t* lhs,
             int64_t lhs_stride, int64_t offset) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const int32_t lhs_zp = ZeroPointAt(context->input(*node, kLhsZeroPoint), 0);
  const Tensor* bias = context->input(*node, kBias);
  int32_t* b = static_cast<int32_t*>(node->scratch[d.bias_scratch]);
  for (int j = 0; j < d.n; ++j) {  // wrapping, as in Multiply
    const uint32_t bj = bias != nullptr ? bias->data_as<int32_t>()[j] : 0;
    b[j] =
        static_cast<int32_t>(bj - static_cast<uint32_t>(lhs_zp) *
                                      static_cast<uint32_t>(d.column_sums[j]));
  }
  const Tensor* multiplier = context->input(*node, kMultiplier);
  Tensor* y = context->output(*node, 0);
  QuantizedOutput o;
  o.bias = b;
  o.multiplier = multiplier->data_as<float>();
  o.per_column = multiplier->num_elements() > 1;
  o.zero_point = ZeroPointAt(context->input(*node, kOutputZeroPoint), 0);
  o.is_uint8 = y->type == DataType::kUInt8;
  o.out = static_cast<char*>(y->data) + offset;  // 8-bit elements
  o.out_stride = d.n;
  o.float_exact = d.float_exact;
  VnniGemm(lhs, lhs_stride, d.vnni_panels.get(), d.m, d.n, d.k, o,
           context->thread_pool());
}

// The convolution of image x by the VNNI GEMM into output element `offset`.
void EvalVnni(KernelContext* context, Node* node, const uint8_t* x,
              int64_t offset) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  if (d.vnni_direct) return RunVnni(context, node, x, d.k, offset);
  const int32_t x_zp = ZeroPointAt(context->input(*node, kLhsZeroPoint), 0);
  uint8_t* rows = static_cast<uint8_t*>(node->scratch[d.bytes_scratch]);
  Im2ColBytes(d, x, static_cast<uint8_t>(x_zp), rows);
  RunVnni(context, node, rows, d.k_quads, offset);
}

// --- QUANTIZED_BATCH_MATMUL
// -------------------------------------------------------

Shape BatchPart(const Shape& s) {
  Shape b;
  b.rank = s.rank - 2;
  for (int i = 0; i < b.rank; ++i) b.dims[i] = s.dims[i];
  return b;
}

TWL_PREPARE Status PrepareMatMul(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 7));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  TWL_RETURN_IF_ERROR(CheckRank(a, "a", 2, kMaxDims));
  TWL_RETURN_IF_ERROR(CheckRank(b, "b", 2, kMaxDims));
  d->groups = 1;
  const Shape& as = a->shape;
  const Shape& bs = b->shape;
  d->m = as.dims[as.rank - 2];
  d->k = as.dims[as.rank - 1];
  d->n = bs.dims[bs.rank - 1];
  TWL_CHECK_ARG(bs.dims[bs.rank - 2] == d->k,
                "inner dims differ: a has %d, b has %d", d->k,
                bs.dims[bs.rank - 2]);
  TWL_RETURN_IF_ERROR(PrepareCommon(context, node, d->n));
  Shape ab = BatchPart(as), bb = BatchPart(bs);
  TWL_RETURN_IF_ERROR(BroadcastShapes(ab, bb, &d->batch_shape));
  BroadcastStrides(ab, d->batch_shape, d->a_batch_strides);
  BroadcastStrides(bb, d->batch_shape, d->b_batch_strides);
  Shape shape = d->batch_shape;
  shape.dims[shape.rank++] = d->m;
  shape.dims[shape.rank++] = d->n;
  TWL_RETURN_IF_ERROR(context->ResizeTensor(context->output(*node, 0), shape));
  TWL_RETURN_IF_ERROR(RequestScratch(context, node));
  d->rhs_sn = 1;
  d->rhs_sk = d->n;
  TWL_RETURN_IF_ERROR(PrepareRhs(context, node, bb.NumElements()));
  // One right operand and rows of a multiple of 4 bytes: the VNNI GEMM.
  return PrepareVnni(context, node, bb.NumElements() == 1 && d->k % 4 == 0,
                     /*patches=*/false);
}

Status EvalMatMul(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckEvalMultiplier(context, node));
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const int32_t a_zp = ZeroPointAt(context->input(*node, kLhsZeroPoint), 0);
  const int64_t mk = static_cast<int64_t>(d.m) * d.k;
  const int64_t mn = static_cast<int64_t>(d.m) * d.n;
  const int64_t batches = d.batch_shape.NumElements();
  int64_t index[kMaxDims] = {};
  return DispatchEightBit(a->type, [&](auto a_tag) {
    using A = decltype(a_tag);
    for (int64_t batch = 0; batch < batches; ++batch) {
      int64_t ao = 0, bo = 0;
      for (int i = 0; i < d.batch_shape.rank; ++i) {
        ao += index[i] * d.a_batch_strides[i];
        bo += index[i] * d.b_batch_strides[i];
      }
      const A* ab = a->data_as<A>() + ao * mk;
      // (kVnniGemm: the other variants never pack VNNI panels.)
      if (kVnniGemm && d.vnni_panels != nullptr && !context->use_reference()) {
        RunVnni(context, node, reinterpret_cast<const uint8_t*>(ab), d.k,
                batch * mn);
      } else {
        const int16_t* rhs = PackedRhs(context, node, bo);
        const int16_t* panels =
            d.panels != nullptr ? d.panels.get() + bo * d.panel_size : nullptr;
        int32_t* acc = AccumulatorsAt(context, node, batch * mn);
        const bool written = Multiply(
            context, node, rhs, panels,
            [&](int, int i, int kk) {
              return static_cast<int32_t>(
                         ab[static_cast<int64_t>(i) * d.k + kk]) -
                     a_zp;
            },
            [&](int, int16_t* lhs) { Widen(ab, mk, a_zp, lhs); }, acc,
            batch * mn);
        if (d.requantize && !written)
          TWL_RETURN_IF_ERROR(Finish(context, node, acc, batch * mn));
      }
      for (int i = d.batch_shape.rank - 1;
           i >= 0 && ++index[i] == d.batch_shape.dims[i]; --i) {
        index[i] = 0;
      }
    }
    return Status::Ok();
  });
}

// --- QUANTIZED_CONV_2D
// ------------------------------------------------------------

// Packs the filter for DepthwiseVnniRow (OpData::dw_vnni) when it applies
// and plans its bias scratch.
TWL_PREPARE Status PrepareDepthwiseVnni(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  d->dw_vnni.reset();
  d->dw_sums.reset();
  d->dw_bias_scratch = -1;
  if (!kDepthwiseVnni || d->depthwise == nullptr || !d->requantize ||
      d->kernel_h != 3 || d->kernel_w != 3 || d->dilation_h != 1 ||
      d->dilation_w != 1 || d->stride_h != d->stride_w || d->stride_h > 2 ||
      context->input(*node, 0)->type != DataType::kUInt8) {
    return Status::Ok();
  }
  const int channels = d->channels, blocks = (channels + 63) / 64;
  for (int64_t i = 0; i < int64_t{9} * channels; ++i) {
    if (d->depthwise[i] < -128 || d->depthwise[i] > 127) return Status::Ok();
  }
  d->dw_vnni.reset(new (std::nothrow) int8_t[int64_t{blocks} * kDwVnniBlock]);
  d->dw_sums.reset(new (std::nothrow) int32_t[channels]);
  TWL_CHECK_ARG(d->dw_vnni != nullptr && d->dw_sums != nullptr,
                "out of memory");
  for (int c = 0; c < channels; ++c) {
    int32_t sum = 0;
    for (int t = 0; t < 9; ++t) sum += d->depthwise[int64_t{t} * channels + c];
    d->dw_sums[c] = sum;
  }
  // Block b, filter column kx, vector j: lane L, int32 i, byte ky is tap
  // (ky, kx) of channel 64b + 16L + 4j + i (0 past the channels, ky 3).
  for (int b = 0; b < blocks; ++b) {
    for (int kx = 0; kx < 3; ++kx) {
      for (int j = 0; j < 4; ++j) {
        int8_t* v =
            d->dw_vnni.get() + int64_t{b} * kDwVnniBlock + (kx * 4 + j) * 64;
        for (int lane = 0; lane < 4; ++lane) {
          for (int i = 0; i < 4; ++i) {
            for (int ky = 0; ky < 4; ++ky) {
              const int c = 64 * b + 16 * lane + 4 * j + i;
              v[lane * 16 + i * 4 + ky] = static_cast<int8_t>(
                  ky < 3 && c < channels
                      ? d->depthwise[int64_t{ky * 3 + kx} * channels + c]
                      : 0);
            }
          }
        }
      }
    }
  }
  return context->RequestScratch(
      node, static_cast<size_t>(blocks) * 64 * sizeof(int32_t),
      &d->dw_bias_scratch);
}

// Whether every accumulator plus bias of the packed constant right operand
// stays within kFloatRequantizeLimit (|x - x_zp| <= 255) and the bias is
// constant (OpData::float_exact).
bool FloatExact(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* bias = context->input(*node, kBias);
  if (d.packed == nullptr || (bias != nullptr && !bias->is_constant)) {
    return false;
  }
  for (int j = 0; j < d.n; ++j) {
    int64_t bound =
        bias != nullptr ? std::abs(int64_t{bias->data_as<int32_t>()[j]}) : 0;
    const int16_t* w = d.packed.get() + int64_t{j} * d.k;
    for (int kk = 0; kk < d.k; ++kk) bound += 255 * std::abs(int32_t{w[kk]});
    if (bound > kFloatRequantizeLimit) return false;
  }
  return true;
}

TWL_PREPARE Status PrepareConv(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 7));
  const Tensor* x = context->input(*node, 0);
  const Tensor* filter = context->input(*node, 1);
  TWL_RETURN_IF_ERROR(CheckRank(x, "x", 4, 4));
  TWL_RETURN_IF_ERROR(CheckRank(filter, "filter", 4, 4));
  const auto* o = GetOptions<schema::QuantizedConv2DOptions>(*node);
  d->stride_h = o->stride_h();
  d->stride_w = o->stride_w();
  d->dilation_h = o->dilation_h();
  d->dilation_w = o->dilation_w();
  d->pad_top = o->pad_top();
  d->pad_left = o->pad_left();
  TWL_CHECK_ARG(d->stride_h > 0 && d->stride_w > 0 && d->dilation_h > 0 &&
                    d->dilation_w > 0,
                "strides and dilations must be positive");
  TWL_CHECK_ARG(o->pad_top() >= 0 && o->pad_left() >= 0 &&
                    o->pad_bottom() >= 0 && o->pad_right() >= 0,
                "pads must not be negative");
  d->batches = x->shape.dims[0];
  d->in_h = x->shape.dims[1];
  d->in_w = x->shape.dims[2];
  d->channels = x->shape.dims[3];
  d->kernel_h = filter->shape.dims[1];
  d->kernel_w = filter->shape.dims[2];
  // Grouped when the filter has fewer input channels than x.
  d->group_channels = filter->shape.dims[3];
  d->n = filter->shape.dims[0];
  d->groups = d->group_channels > 0 ? d->channels / d->group_channels : 0;
  TWL_CHECK_ARG(d->groups > 0 && d->groups * d->group_channels == d->channels &&
                    d->n % d->groups == 0,
                "filter '%s' has %d input channels: x's %d channels and the %d "
                "output channels must split into groups of them",
                filter->name, d->group_channels, d->channels, d->n);
  const int64_t span_h = int64_t{d->dilation_h} * (d->kernel_h - 1) + 1;
  const int64_t span_w = int64_t{d->dilation_w} * (d->kernel_w - 1) + 1;
  const int64_t padded_h = int64_t{d->in_h} + o->pad_top() + o->pad_bottom();
  const int64_t padded_w = int64_t{d->in_w} + o->pad_left() + o->pad_right();
  TWL_CHECK_ARG(padded_h >= span_h && padded_w >= span_w &&
                    padded_h < (1 << 30) && padded_w < (1 << 30),
                "the filter spans %lldx%lld; the padded input is %lldx%lld",
                static_cast<long long>(span_h), static_cast<long long>(span_w),
                static_cast<long long>(padded_h),
                static_cast<long long>(padded_w));
  d->out_h = static_cast<int>((padded_h - span_h) / d->stride_h + 1);
  d->out_w = static_cast<int>((padded_w - span_w) / d->stride_w + 1);
  d->m = d->out_h * d->out_w;
  const int64_t k = int64_t{d->kernel_h} * d->kernel_w * d->group_channels;
  TWL_CHECK_ARG(k <= kMaxQuantizedDepth, "filter depth %lld exceeds %d",
                static_cast<long long>(k), kMaxQuantizedDepth);
  d->k = static_cast<int>(k);
  TWL_RETURN_IF_ERROR(PrepareCommon(context, node, d->n));
  Shape shape{d->batches, d->out_h, d->out_w, d->n};
  TWL_RETURN_IF_ERROR(context->ResizeTensor(context->output(*node, 0), shape));
  TWL_RETURN_IF_ERROR(RequestScratch(context, node));
  d->rhs_sn = d->k;
  d->rhs_sk = 1;
  TWL_RETURN_IF_ERROR(PrepareRhs(context, node, 1));
  d->depthwise.reset();
  if (d->packed != nullptr && d->group_channels == 1 && d->n == d->channels) {
    d->panels.reset();  // the direct kernel runs instead
    // packed is [C][taps]; the direct kernel reads [taps][C].
    const int taps = d->k, channels = d->channels;
    d->depthwise.reset(new (std::nothrow) int16_t[int64_t{taps} * channels]);
    TWL_CHECK_ARG(d->depthwise != nullptr, "out of memory");
    for (int c = 0; c < channels; ++c) {
      for (int t = 0; t < taps; ++t) {
        d->depthwise[int64_t{t} * channels + c] =
            d->packed[int64_t{c} * taps + t];
      }
    }
    d->depthwise_pairs.reset();
    const int blocks = channels / 16, pairs = (taps + 1) / 2;
    if (kDepthwisePairs && blocks > 0 && taps <= kMaxPairTaps) {
      d->depthwise_pairs.reset(new (std::nothrow)
                                   int16_t[int64_t{pairs} * blocks * 32]);
      TWL_CHECK_ARG(d->depthwise_pairs != nullptr, "out of memory");
      // Lane L (8 channels) of the low vector holds channels 8L..8L+3 of
      // taps 2p and 2p + 1 interleaved, of the high one 8L+4..8L+7; a
      // missing last tap weighs 0.
      for (int p = 0; p < pairs; ++p) {
        for (int b = 0; b < blocks; ++b) {
          int16_t* v =
              d->depthwise_pairs.get() + (int64_t{p} * blocks + b) * 32;
          for (int half = 0; half < 2; ++half) {
            for (int lane = 0; lane < 2; ++lane) {
              for (int i = 0; i < 4; ++i) {
                for (int h = 0; h < 2; ++h) {
                  const int t = 2 * p + h;
                  const int c = b * 16 + 8 * lane + 4 * half + i;
                  v[half * 16 + lane * 8 + 2 * i + h] =
                      t < taps ? d->depthwise[int64_t{t} * channels + c]
                               : int16_t{0};
                }
              }
            }
          }
        }
      }
    }
  }
  d->depthwise_pairs32.reset();
  if (kDepthwisePairs32 && d->depthwise != nullptr && d->k <= kMaxPairTaps) {
    const int taps = d->k, pairs = (taps + 1) / 2, channels = d->channels;
    const int blocks = (channels + 31) / 32;
    d->depthwise_pairs32.reset(new (std::nothrow)
                                   int16_t[int64_t{pairs} * blocks * 64]);
    TWL_CHECK_ARG(d->depthwise_pairs32 != nullptr, "out of memory");
    // As depthwise_pairs with four 128-bit lanes; zeros past the channels.
    for (int p = 0; p < pairs; ++p) {
      for (int b = 0; b < blocks; ++b) {
        int16_t* v =
            d->depthwise_pairs32.get() + (int64_t{p} * blocks + b) * 64;
        for (int half = 0; half < 2; ++half) {
          for (int lane = 0; lane < 4; ++lane) {
            for (int i = 0; i < 4; ++i) {
              for (int h = 0; h < 2; ++h) {
                const int t = 2 * p + h;
                const int c = b * 32 + 8 * lane + 4 * half + i;
                v[half * 32 + lane * 8 + 2 * i + h] =
                    t < taps && c < channels
                        ? d->depthwise[int64_t{t} * channels + c]
                        : int16_t{0};
              }
            }
          }
        }
      }
    }
  }
  TWL_RETURN_IF_ERROR(PrepareDepthwiseVnni(context, node));
  d->multiplier_scratch = -1;
  if (d->depthwise_pairs32 != nullptr && d->requantize) {
    // Padded to DepthwiseVnniRow's blocks of 64 channels.
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, static_cast<size_t>((d->n + 63) / 64 * 64) * sizeof(double),
        &d->multiplier_scratch));
  }
  d->float_exact = FloatExact(context, node);
  return PrepareVnni(context, node, IsPointwise(*d) && d->k % 4 == 0,
                     /*patches=*/true);
}

Status EvalConv(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckEvalMultiplier(context, node));
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* x = context->input(*node, 0);
  const int32_t x_zp = ZeroPointAt(context->input(*node, kLhsZeroPoint), 0);
  const int64_t image = int64_t{d.in_h} * d.in_w * d.channels;
  const int64_t mn = static_cast<int64_t>(d.m) * d.n;
  return DispatchEightBit(x->type, [&](auto x_tag) {
    using X = decltype(x_tag);
    const int16_t* rhs = PackedRhs(context, node, 0);
    for (int batch = 0; batch < d.batches; ++batch) {
      const X* xb = x->data_as<X>() + batch * image;
      // Patch row i = output pixel (oy, ox); column kk = (ky, kx, c) of
      // group g's channels.
      auto patch = [&](int g, int i, int kk) -> int32_t {
        const int cg = d.group_channels;
        const int c = g * cg + kk % cg, tap = kk / cg;
        const int iy = (i / d.out_w) * d.stride_h - d.pad_top +
                       (tap / d.kernel_w) * d.dilation_h;
        const int ix = (i % d.out_w) * d.stride_w - d.pad_left +
                       (tap % d.kernel_w) * d.dilation_w;
        if (iy < 0 || iy >= d.in_h || ix < 0 || ix >= d.in_w) return 0;
        return static_cast<int32_t>(
                   xb[(int64_t{iy} * d.in_w + ix) * d.channels + c]) -
               x_zp;
      };
      int32_t* acc = AccumulatorsAt(context, node, batch * mn);
      if (d.depthwise != nullptr && !context->use_reference()) {
        // An 8-bit output is requantized row by row.
        const int64_t row = int64_t{d.out_w} * d.n;
        const Tensor* multiplier = context->input(*node, kMultiplier);
        Tensor* y = context->output(*node, 0);
        const int32_t y_zp =
            ZeroPointAt(context->input(*node, kOutputZeroPoint), 0);
        // AVX-512 builds requantize each pixel's sums in registers.
        DepthwiseOutput fused;
#if TWL_INT8_AVX512 || !TWL_INT8_AVX2
        const bool is_fused = d.multiplier_scratch >= 0;
        if (is_fused) {
          double* m = static_cast<double*>(node->scratch[d.multiplier_scratch]);
          const float* mul = multiplier->data_as<float>();
          const bool per_column = multiplier->num_elements() > 1;
          const int padded = (d.n + 63) / 64 * 64;
          if (d.dw_vnni != nullptr && d.float_exact) {
            // DepthwiseVnni's float multipliers, in QuadOrder, in the same
            // scratch.
            float* mf = reinterpret_cast<float*>(m);
            for (int c = 0; c < padded; ++c) {
              mf[QuadOrder(c)] = c < d.n ? mul[per_column ? c : 0] : 0.0f;
            }
          } else {
            for (int c = 0; c < padded; ++c) {
              m[c] = c < d.n ? mul[per_column ? c : 0] : 0.0;
            }
          }
          fused.multiplier = m;
          fused.zero_point = y_zp;
          fused.is_uint8 = y->type == DataType::kUInt8;
          fused.out = static_cast<char*>(y->data) + batch * mn;  // bytes
        }
#else
        // AVX2 builds requantize each pixel's sums in registers too when
        // float suffices and DepthwisePairs covers every channel.
        const bool is_fused = d.requantize && d.float_exact &&
                              d.depthwise_pairs != nullptr && d.n % 16 == 0;
        if (is_fused) {
          fused.float_multiplier = multiplier->data_as<float>();
          fused.per_column = multiplier->num_elements() > 1;
          fused.zero_point = y_zp;
          fused.is_uint8 = y->type == DataType::kUInt8;
          fused.out = static_cast<char*>(y->data) + batch * mn;  // bytes
        }
#endif
        auto row_done = [&](int oy) {
          if (!d.requantize || is_fused) return;
          const int32_t* a = acc + oy * row;
          const float* mul = multiplier->data_as<float>();
          const bool per_column = multiplier->num_elements() > 1;
          const int64_t at = batch * mn + oy * row;
          if (y->type == DataType::kUInt8) {
            Requantize<uint8_t>(a, d.out_w, d.n, mul, per_column, y_zp,
                                y->data_as<uint8_t>() + at);
          } else {
            Requantize<int8_t>(a, d.out_w, d.n, mul, per_column, y_zp,
                               y->data_as<int8_t>() + at);
          }
        };
#if TWL_INT8_VNNI
        if (d.dw_vnni != nullptr && is_fused) {
          DepthwiseVnni(context, node, reinterpret_cast<const uint8_t*>(xb),
                        x_zp, fused);
          continue;
        }
#endif
        DepthwiseAccumulate(d, xb, x_zp, context->input(*node, kBias), acc,
                            row_done, is_fused ? &fused : nullptr,
                            context->thread_pool());
        continue;
      }
      if (kVnniGemm && d.vnni_panels != nullptr && !context->use_reference()) {
        EvalVnni(context, node, reinterpret_cast<const uint8_t*>(xb),
                 batch * mn);
        continue;
      }
      const bool written = Multiply(
          context, node, rhs, d.panels.get(), patch,
          [&](int g, int16_t* lhs) { Im2Col(d, xb, g, x_zp, lhs); }, acc,
          batch * mn);
      if (d.requantize && !written)
        TWL_RETURN_IF_ERROR(Finish(context, node, acc, batch * mn));
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration QuantizedBatchMatMul() {
  return {BuiltinOperator::QUANTIZED_BATCH_MATMUL,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          PrepareMatMul,
          EvalMatMul};
}
KernelRegistration QuantizedConv2D() {
  return {BuiltinOperator::QUANTIZED_CONV_2D,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          PrepareConv,
          EvalConv};
}
