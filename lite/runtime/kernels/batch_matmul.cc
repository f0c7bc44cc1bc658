// BATCH_MATMUL: out[..., m, n] = sum_k x[..., m, k] * y[..., k, n] (float32),
// with adj_x / adj_y transposing the last two dims of x / y and numpy
// broadcasting over the batch dims.
//
// Optimized path: per batch, y is packed into GEMM panels in planned
// scratch (x transposed into scratch when adj_x) and the packed GEMM runs.
#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  bool adj_x, adj_y;
  int m, n, k;
  Shape batch_shape;
  int64_t x_batch_strides[kMaxDims], y_batch_strides[kMaxDims];
  int packed_scratch = -1, x_scratch = -1;
};

Shape BatchPart(const Shape& s) {
  Shape b;
  b.rank = s.rank - 2;
  for (int i = 0; i < b.rank; ++i) b.dims[i] = s.dims[i];
  return b;
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* x = context->input(*node, 0);
  const Tensor* y = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(x, "x", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(y, "y", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(x, "x", 2, kMaxDims));
  TWL_RETURN_IF_ERROR(CheckRank(y, "y", 2, kMaxDims));
  const auto* options = GetOptions<schema::BatchMatMulOptions>(*node);
  d->adj_x = options->adj_x();
  d->adj_y = options->adj_y();
  const Shape& xs = x->shape;
  const Shape& ys = y->shape;
  d->m = xs.dims[xs.rank - (d->adj_x ? 1 : 2)];
  d->k = xs.dims[xs.rank - (d->adj_x ? 2 : 1)];
  int ky = ys.dims[ys.rank - (d->adj_y ? 1 : 2)];
  d->n = ys.dims[ys.rank - (d->adj_y ? 2 : 1)];
  TWL_CHECK_ARG(d->k == ky, "inner dims differ: x has %d, y has %d", d->k, ky);
  Shape xb = BatchPart(xs), yb = BatchPart(ys);
  TWL_RETURN_IF_ERROR(BroadcastShapes(xb, yb, &d->batch_shape));
  BroadcastStrides(xb, d->batch_shape, d->x_batch_strides);
  BroadcastStrides(yb, d->batch_shape, d->y_batch_strides);
  Shape shape = d->batch_shape;
  TWL_CHECK_ARG(shape.rank + 2 <= kMaxDims, "rank too large");
  shape.dims[shape.rank++] = d->m;
  shape.dims[shape.rank++] = d->n;
  TWL_RETURN_IF_ERROR(context->ResizeTensor(output, shape));
  TWL_RETURN_IF_ERROR(context->RequestScratch(
      node, PackedGemmBSize(d->n, d->k) * sizeof(float), &d->packed_scratch));
  d->x_scratch = -1;
  if (d->adj_x) {
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, static_cast<size_t>(d->m) * d->k * sizeof(float), &d->x_scratch));
  }
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const float* x = context->input(*node, 0)->data_as<float>();
  const float* y = context->input(*node, 1)->data_as<float>();
  float* out = context->output(*node, 0)->data_as<float>();
  const int64_t batches = d.batch_shape.NumElements();
  const int64_t mk = static_cast<int64_t>(d.m) * d.k;
  const int64_t kn = static_cast<int64_t>(d.k) * d.n;
  const int64_t mn = static_cast<int64_t>(d.m) * d.n;
  int64_t index[kMaxDims] = {};
  for (int64_t b = 0; b < batches; ++b) {
    int64_t xo = 0, yo = 0;
    for (int i = 0; i < d.batch_shape.rank; ++i) {
      xo += index[i] * d.x_batch_strides[i];
      yo += index[i] * d.y_batch_strides[i];
    }
    const float* xb = x + xo * mk;
    const float* yb = y + yo * kn;
    float* ob = out + b * mn;
    // x[m, k] at xb[m * xs_m + k * xs_k]; y[k, n] at yb[k * ys_k + n * ys_n].
    int64_t xs_m = d.adj_x ? 1 : d.k, xs_k = d.adj_x ? d.m : 1;
    int64_t ys_k = d.adj_y ? 1 : d.n, ys_n = d.adj_y ? d.k : 1;
    if (context->use_reference()) {
      for (int i = 0; i < d.m; ++i)
        for (int j = 0; j < d.n; ++j) {
          double sum = 0;
          for (int kk = 0; kk < d.k; ++kk) {
            sum += static_cast<double>(xb[i * xs_m + kk * xs_k]) *
                   yb[kk * ys_k + j * ys_n];
          }
          ob[i * d.n + j] = static_cast<float>(sum);
        }
    } else {
      float* packed = static_cast<float*>(node->scratch[d.packed_scratch]);
      if (d.adj_y) {
        PackGemmB(yb, d.n, d.k, d.k, packed);
      } else {
        PackGemmBTransposed(yb, d.n, d.k, d.n, packed);
      }
      const float* a = xb;
      if (d.adj_x) {
        float* xt = static_cast<float*>(node->scratch[d.x_scratch]);
        for (int i = 0; i < d.m; ++i)
          for (int kk = 0; kk < d.k; ++kk) xt[i * d.k + kk] = xb[kk * d.m + i];
        a = xt;
      }
      Gemm(d.m, d.n, d.k, a, d.k, packed, ob, d.n, 1, GemmEpilogue(),
           context->thread_pool());
    }
    for (int i = d.batch_shape.rank - 1;
         i >= 0 && ++index[i] == d.batch_shape.dims[i]; --i) {
      index[i] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_BATCH_MATMUL() {
  return {BuiltinOperator::BATCH_MATMUL,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare,
          Eval};
}

}  // namespace twl
