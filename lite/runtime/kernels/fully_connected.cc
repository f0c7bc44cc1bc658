// FULLY_CONNECTED: output[..., o] = act(sum_i input[..., i] * weights[o, i]
// + bias[o]). Weights are [out, in] as in TFLite; besides TFLite's fused
// activations, act may be GELU or GELU_TANH (the GEMM's epilogue applies
// it to each tile while the tile is in cache). Constant weights are
// packed once in prepare into GEMM panels; runtime weights are packed into
// planned scratch during eval.
#include "lite/runtime/gemm.h"
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  ActivationFunctionType act;
  bool keep_num_dims;
  int rows, in, out;
  AlignedFloats packed;     // packed constant weights
  int packed_scratch = -1;  // scratch index for runtime weights
  bool descending = false;  // alternates call by call (see Gemm)
};

// Packs constant weights a few panels at a time and drops the model's file
// pages of each packed slice at once, so that at its peak memory holds the
// packed copy and one slice of the original, not two whole copies.
void PackConstantWeights(KernelContext* context, const Tensor* weights, int out,
                         int in, float* packed) {
  constexpr int kSliceRows = 4 * kGemmNr;  // whole panels
  const float* w = weights->data_as<float>();
  for (int row = 0; row < out; row += kSliceRows) {
    const int rows = std::min(kSliceRows, out - row);
    const int64_t offset = static_cast<int64_t>(row) * in;
    PackGemmB(w + offset, rows, in, in, packed + offset);
    context->ReleaseConstant(weights,
                             (offset + int64_t{rows} * in) * sizeof(float));
  }
}

// GELU and GELU_TANH, which FULLY_CONNECTED alone fuses: the GEMM's curve.
bool IsGelu(ActivationFunctionType act) {
  return act == ActivationFunctionType::GELU ||
         act == ActivationFunctionType::GELU_TANH;
}

GemmCurve CurveOf(ActivationFunctionType act) {
  if (act == ActivationFunctionType::GELU) return GemmCurve::kGelu;
  if (act == ActivationFunctionType::GELU_TANH) return GemmCurve::kGeluTanh;
  return GemmCurve::kNone;
}

void* Init(const schema::Operator& op) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(data != nullptr, "out of memory");
  const auto* options = GetOptions<schema::FullyConnectedOptions>(*node);
  data->act = options->fused_activation_function();
  data->keep_num_dims = options->keep_num_dims();
  if (!IsGelu(data->act)) TWL_RETURN_IF_ERROR(CheckActivation(data->act));
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
  Tensor* input = context->input(*node, 0);
  Tensor* weights = context->input(*node, 1);
  Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(weights, "weights", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(weights, "weights", 2, 2));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  data->out = weights->shape.dims[0];
  data->in = weights->shape.dims[1];
  int64_t elements = input->num_elements();
  char text[96];
  TWL_CHECK_ARG(data->in > 0 && elements % data->in == 0,
                "input shape %s does not match weights [%d,%d]",
                input->shape.ToString(text, sizeof(text)), data->out, data->in);
  TWL_CHECK_ARG(!data->keep_num_dims ||
                    input->shape.dims[input->shape.rank - 1] == data->in,
                "keep_num_dims needs input's last dim == %d", data->in);
  data->rows = static_cast<int>(elements / data->in);
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckType(bias, "bias", DataType::kFloat32));
    TWL_CHECK_ARG(bias->num_elements() == data->out,
                  "bias has %lld elements, expected %d",
                  static_cast<long long>(bias->num_elements()), data->out);
  }
  Shape out_shape;
  if (data->keep_num_dims) {
    out_shape = input->shape;
    out_shape.dims[out_shape.rank - 1] = data->out;
  } else {
    out_shape = Shape({data->rows, data->out});
  }
  TWL_RETURN_IF_ERROR(context->ResizeTensor(output, out_shape));
  size_t packed_size = PackedGemmBSize(data->out, data->in);
  data->packed_scratch = -1;
  if (context->use_reference()) {
    // Eval reads the weights as they are.
  } else if (weights->is_constant) {
    TWL_CHECK_ARG(data->packed.Resize(packed_size), "out of memory");
    PackConstantWeights(context, weights, data->out, data->in,
                        data->packed.data());
  } else {
    TWL_RETURN_IF_ERROR(context->RequestScratch(
        node, packed_size * sizeof(float), &data->packed_scratch));
  }
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  const Tensor* weights = context->input(*node, 1);
  const Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  GemmEpilogue epilogue;
  epilogue.bias = bias ? bias->data_as<float>() : nullptr;
  ActivationRange(data->act, &epilogue.low, &epilogue.high);
  epilogue.curve = CurveOf(data->act);
  float* out = output->data_as<float>();
  if (context->use_reference()) {
    GemmReference(data->rows, data->out, data->in, input->data_as<float>(),
                  data->in, weights->data_as<float>(), data->in, out, data->out,
                  1, epilogue);
  } else {
    float* packed = data->packed.data();
    if (data->packed_scratch >= 0) {
      packed = static_cast<float*>(node->scratch[data->packed_scratch]);
      PackGemmB(weights->data_as<float>(), data->out, data->in, data->in,
                packed);
    }
    Gemm(data->rows, data->out, data->in, input->data_as<float>(), data->in,
         packed, out, data->out, 1, epilogue, context->thread_pool(),
         data->descending);
    data->descending = !data->descending;
  }
  ApplyActivationInPlace(out, static_cast<int64_t>(data->rows) * data->out,
                         data->act == ActivationFunctionType::TANH ||
                                 data->act == ActivationFunctionType::SIGMOID
                             ? data->act
                             : ActivationFunctionType::NONE);
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_FULLY_CONNECTED() {
  return {BuiltinOperator::FULLY_CONNECTED, 1, Init, Free, Prepare, Eval};
}

}  // namespace twl
