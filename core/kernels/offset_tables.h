// Copying between tensors by per-dimension offset tables: output element
// (i0, ..., ik) reads input element base + table[0][i0] + ... + table[k][ik]
// (offsets in elements, strides already applied). One mechanism serves
// Slice, StridedSlice, Transpose, Tile, Pad and MirrorPad and their
// gradients; each op only says how to build its tables.
#ifndef TENSORWEAVE_CORE_KERNELS_OFFSET_TABLES_H_
#define TENSORWEAVE_CORE_KERNELS_OFFSET_TABLES_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"

namespace tensorweave {

// Every dtype array ops move around (they only copy elements).
#define TW_ARRAY_TYPES TW_POD_TYPES, TW_COMPLEX_TYPES, std::string

using OffsetTables = std::vector<std::vector<int64_t>>;

// Row-major strides (in elements) of `dims`.
inline std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

// The table of dim `d`: `size` entries (start + i * step) * stride.
inline std::vector<int64_t> AffineTable(int64_t size, int64_t start,
                                        int64_t step, int64_t stride) {
  std::vector<int64_t> table(size);
  for (int64_t i = 0; i < size; ++i) table[i] = (start + i * step) * stride;
  return table;
}

// Calls fn(begin, end) over rows [0, rows), in parallel when rows * row_len
// elements are many.
inline void ForRows(OpKernelContext* ctx, int64_t rows, int64_t row_len,
                    const std::function<void(int64_t, int64_t)>& fn) {
  if (ctx == nullptr || ctx->intra_op_pool() == nullptr ||
      rows * row_len < kParallelElementThreshold) {
    fn(0, rows);
    return;
  }
  const int64_t min_rows = std::max<int64_t>(
      1, kParallelElementThreshold / (4 * std::max<int64_t>(row_len, 1)));
  ctx->intra_op_pool()->ParallelFor(rows, min_rows, fn);
}

// The offset of the first element of output row `row` (a row being all of
// the last dim), accumulated over the tables of the other dims.
inline int64_t RowOffset(const OffsetTables& tables, int64_t row) {
  int64_t offset = 0;
  for (int d = static_cast<int>(tables.size()) - 2; d >= 0; --d) {
    const int64_t size = static_cast<int64_t>(tables[d].size());
    offset += tables[d][row % size];
    row /= size;
  }
  return offset;
}

// out[i0..ik] = in[table[0][i0] + ... + table[k][ik]]; in parallel over rows
// when the output is large. A rank-0 output copies one element.
template <typename T>
void GatherByTables(OpKernelContext* ctx, const T* in,
                    const OffsetTables& tables, T* out) {
  if (tables.empty()) {
    out[0] = in[0];
    return;
  }
  const std::vector<int64_t>& inner = tables.back();
  const int64_t row_len = static_cast<int64_t>(inner.size());
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < tables.size(); ++d) rows *= tables[d].size();
  if (row_len == 0 || rows == 0) return;
  // A contiguous inner table copies whole runs.
  bool contiguous = true;
  for (int64_t i = 1; i < row_len && contiguous; ++i) {
    contiguous = inner[i] == inner[0] + i;
  }
  auto copy_rows = [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const T* src = in + RowOffset(tables, row) + (contiguous ? inner[0] : 0);
      T* dst = out + row * row_len;
      if (contiguous) {
        std::copy(src, src + row_len, dst);
      } else {
        for (int64_t i = 0; i < row_len; ++i) dst[i] = src[inner[i]];
      }
    }
  };
  ForRows(ctx, rows, row_len, copy_rows);
}

// f(out[table[0][i0] + ... + table[k][ik]], in[i0..ik]) for every element
// of `in`, on one thread (tables may map several elements to one place, as
// MirrorPad's gradient does).
template <typename T, typename F>
void ScatterByTables(const T* in, const OffsetTables& tables, T* out, F f) {
  if (tables.empty()) {
    f(out[0], in[0]);
    return;
  }
  const std::vector<int64_t>& inner = tables.back();
  const int64_t row_len = static_cast<int64_t>(inner.size());
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < tables.size(); ++d) rows *= tables[d].size();
  if (row_len == 0) return;
  for (int64_t row = 0; row < rows; ++row) {
    T* dst = out + RowOffset(tables, row);
    const T* src = in + row * row_len;
    for (int64_t i = 0; i < row_len; ++i) f(dst[inner[i]], src[i]);
  }
}

template <typename T>
void ScatterAddByTables(const T* in, const OffsetTables& tables, T* out) {
  ScatterByTables(in, tables, out, [](T& dst, const T& src) { dst += src; });
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_OFFSET_TABLES_H_
