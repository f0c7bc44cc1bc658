// TRANSPOSE: output dim i is input dim perm[i] (perm a constant int
// tensor). Any dtype (moves elements as bytes of the dtype's size).
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int perm[kMaxDims];
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  int64_t perm[kMaxDims];
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "perm", perm,
                                       kMaxDims, &count));
  const int rank = input->shape.rank;
  TWL_CHECK_ARG(count == rank, "perm has %d values for rank %d", count, rank);
  bool seen[kMaxDims] = {};
  Shape shape;
  shape.rank = rank;
  for (int i = 0; i < rank; ++i) {
    TWL_CHECK_ARG(perm[i] >= 0 && perm[i] < rank && !seen[perm[i]],
                  "perm is not a permutation of 0..%d", rank - 1);
    seen[perm[i]] = true;
    d->perm[i] = static_cast<int>(perm[i]);
    shape.dims[i] = input->shape.dims[perm[i]];
  }
  return context->ResizeTensor(output, shape);
}

template <typename T>
void Transpose(const Shape& out_shape, const int64_t* in_strides,
               const int* perm, const T* in, T* out) {
  const int rank = out_shape.rank;
  int64_t stride[kMaxDims];  // input stride for each output dim
  for (int i = 0; i < rank; ++i) stride[i] = in_strides[perm[i]];
  int64_t n = out_shape.NumElements();
  int64_t index[kMaxDims] = {};
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = in[offset];
    for (int k = rank - 1; k >= 0; --k) {
      offset += stride[k];
      if (++index[k] < out_shape.dims[k]) break;
      offset -= stride[k] * index[k];
      index[k] = 0;
    }
  }
}

// Optimized: the innermost output dim as one tight loop per row (a memcpy
// when it is the input's innermost dim too), the carry only between rows.
template <typename T>
void TransposeRows(const Shape& out_shape, const int64_t* in_strides,
                   const int* perm, const T* in, T* out) {
  const int rank = out_shape.rank;
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  int64_t stride[kMaxDims];
  for (int i = 0; i < rank; ++i) stride[i] = in_strides[perm[i]];
  const int64_t inner = out_shape.dims[rank - 1];
  const int64_t inner_stride = stride[rank - 1];
  const int64_t rows = inner == 0 ? 0 : out_shape.NumElements() / inner;
  int64_t index[kMaxDims] = {};
  int64_t offset = 0;
  if (rank >= 2 && inner_stride != 1 && inner <= 16 && stride[rank - 2] == 1) {
    // Few elements per output row, read from the input's innermost dim (an
    // NCHW image with 1-4 channels to NHWC): the last two dims as a 2-d
    // transpose, each input row read in one pass (its elements land inner
    // apart), the carry only between such blocks.
    const int64_t cols = out_shape.dims[rank - 2];
    for (int64_t r = 0; r < rows; r += cols, out += cols * inner) {
      for (int64_t j = 0; j < inner; ++j) {
        const T* src = in + offset + j * inner_stride;
        for (int64_t i = 0; i < cols; ++i) out[i * inner + j] = src[i];
      }
      for (int k = rank - 3; k >= 0; --k) {
        offset += stride[k];
        if (++index[k] < out_shape.dims[k]) break;
        offset -= stride[k] * index[k];
        index[k] = 0;
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r, out += inner) {
    const T* src = in + offset;
    if (inner_stride == 1) {
      memcpy(out, src, inner * sizeof(T));
    } else {
      for (int64_t j = 0; j < inner; ++j) out[j] = src[j * inner_stride];
    }
    for (int k = rank - 2; k >= 0; --k) {
      offset += stride[k];
      if (++index[k] < out_shape.dims[k]) break;
      offset -= stride[k] * index[k];
      index[k] = 0;
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  int64_t strides[kMaxDims];
  ComputeStrides(input->shape, strides);
  return DispatchAll(input->type, [&](auto zero) {
    using T = decltype(zero);
    if (context->use_reference()) {
      Transpose<T>(output->shape, strides, d.perm, input->data_as<T>(),
                   output->data_as<T>());
    } else {
      TransposeRows<T>(output->shape, strides, d.perm, input->data_as<T>(),
                       output->data_as<T>());
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_TRANSPOSE() {
  return {BuiltinOperator::TRANSPOSE, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,         Prepare, Eval};
}

}  // namespace twl
