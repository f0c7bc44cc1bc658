#include "lite/runtime/interpreter.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

namespace twl {

Interpreter::Interpreter(const Model* model, const InterpreterOptions& options)
    : model_(model),
      options_(options),
      thread_pool_(options.num_threads),
      context_(nullptr, &thread_pool_, options.use_reference_kernels) {}

Interpreter::~Interpreter() {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (kernels_[i] != nullptr && kernels_[i]->free != nullptr) {
      kernels_[i]->free(nodes_[i].user_data);
    }
  }
  free(arena_);
}

Status Interpreter::Create(const Model* model, const OpResolver* resolver,
                           const InterpreterOptions& options,
                           std::unique_ptr<Interpreter>* interpreter) {
  if (model == nullptr || resolver == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "model and resolver must not be null");
  }
  if (options.num_threads < 1 || options.num_threads > 64) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "num_threads must be in 1..64, got %d",
                         options.num_threads);
  }
  std::unique_ptr<Interpreter> result(new (std::nothrow)
                                          Interpreter(model, options));
  if (!result)
    return Status::Error(StatusCode::kResourceExhausted, "no memory");
  TWL_RETURN_IF_ERROR(result->Init(resolver));
  *interpreter = std::move(result);
  return Status::Ok();
}

Status Interpreter::Init(const OpResolver* resolver) {
  const schema::SubGraph* graph = model_->main_subgraph();
  const auto* buffers = model_->fb()->buffers();
  int num_tensors = graph->tensors() ? graph->tensors()->size() : 0;
  tensors_.resize(num_tensors);
  first_use_.assign(num_tensors, -1);
  last_use_.assign(num_tensors, -1);
  for (int t = 0; t < num_tensors; ++t) {
    const schema::Tensor* fb = graph->tensors()->Get(t);
    Tensor& tensor = tensors_[t];
    tensor.type = static_cast<DataType>(fb->type());
    tensor.name = fb->name() ? fb->name()->c_str() : "";
    const auto* dims = fb->shape();
    TWL_RETURN_IF_ERROR(MakeShape(dims ? dims->data() : nullptr,
                                  dims ? dims->size() : 0, &tensor.shape));
    TWL_RETURN_IF_ERROR(
        ComputeByteSize(tensor.shape, tensor.type, &tensor.bytes));
    const auto* data = buffers->Get(fb->buffer())->data();
    if (data != nullptr && data->size() != 0) {
      tensor.is_constant = true;
      tensor.data = const_cast<uint8_t*>(data->data());
    }
  }
  int num_ops = graph->operators() ? graph->operators()->size() : 0;
  // A graph with no inputs (all constants) may leave the list out.
  if (graph->inputs() != nullptr) {
    for (int t : *graph->inputs()) inputs_.push_back(t);
  }
  for (int t : *graph->outputs()) outputs_.push_back(t);
  nodes_.resize(num_ops);
  kernels_.resize(num_ops);
  for (int i = 0; i < num_ops; ++i) {
    const schema::Operator* op = graph->operators()->Get(i);
    Node& node = nodes_[i];
    node.index = i;
    node.op = op->opcode();
    node.fb = op;
    const KernelRegistration* kernel =
        resolver->Find(op->opcode(), op->version());
    kernels_[i] = kernel;
    if (kernel == nullptr) {
      return Status::Error(StatusCode::kUnsupported,
                           "operator %d (%s) version %d: no kernel registered",
                           i, OpName(op->opcode()), op->version());
    }
    int num_in = op->inputs() ? op->inputs()->size() : 0;
    int num_out = op->outputs()->size();
    if (num_in > kMaxNodeTensors || num_out > kMaxNodeTensors) {
      kernels_.resize(i);  // no init ran for this node
      nodes_.resize(i);
      return Status::Error(StatusCode::kUnsupported,
                           "operator %d (%s): more than %d inputs or outputs",
                           i, OpName(op->opcode()), kMaxNodeTensors);
    }
    node.num_inputs = num_in;
    node.num_outputs = num_out;
    for (int k = 0; k < num_in; ++k) node.inputs[k] = op->inputs()->Get(k);
    for (int k = 0; k < num_out; ++k) node.outputs[k] = op->outputs()->Get(k);
    if (kernel->init != nullptr) node.user_data = kernel->init(*op);
  }
  fused_away_.assign(num_ops, false);
  if (!options_.use_reference_kernels) {
    FuseResidualAdds();
    FuseInvertedResiduals();
  }
  ComputeLifetimes();
  context_ = KernelContext(tensors_.data(), &thread_pool_,
                           options_.use_reference_kernels, model_);
  context_.set_dynamic_buffers(&dynamic_buffers_);
  return Status::Ok();
}

void Interpreter::ComputeLifetimes() {
  first_use_.assign(tensors_.size(), -1);
  last_use_.assign(tensors_.size(), -1);
  const int num_ops = static_cast<int>(nodes_.size());
  auto use = [&](int t, int step) {
    if (t < 0 || tensors_[t].is_constant) return;
    if (first_use_[t] < 0 || step < first_use_[t]) first_use_[t] = step;
    if (step > last_use_[t]) last_use_[t] = step;
  };
  // Graph inputs live through the whole plan, as in TFLite: a caller may
  // invoke again without setting them again.
  for (int t : inputs_) {
    use(t, 0);
    use(t, num_ops > 0 ? num_ops - 1 : 0);
  }
  for (int t : outputs_) use(t, num_ops > 0 ? num_ops - 1 : 0);
  for (int i = 0; i < num_ops; ++i) {
    if (fused_away_[i]) continue;
    const Node& node = nodes_[i];
    for (int k = 0; k < node.num_inputs; ++k) use(node.inputs[k], i);
    for (int k = 0; k < node.num_outputs; ++k) use(node.outputs[k], i);
  }
}

// A residual connection, ADD(CONV_2D(x), r) (MobileNetV2's inverted
// residuals, ResNet's blocks), runs as one CONV_2D that adds r to each block
// of its output while the block is in registers (or cache), then applies
// the ADD's activation: one pass over the output instead of three. Fused
// when the convolution's output is read by that ADD alone and is no graph
// output, the convolution has no activation of its own, the ADD a clamp
// (none, RELU, RELU6), both operands are float32 of one declared shape (no
// broadcast; the sum's declared shape, if any, the same), and r is ready when
// the convolution runs (a graph input, a constant or an earlier node's output).
// The sums are the same floats the two nodes computed. The CONV_2D checks the
// shapes again in prepare.
void Interpreter::FuseResidualAdds() {
  const auto* fb_tensors = model_->main_subgraph()->tensors();
  const int num_ops = static_cast<int>(nodes_.size());
  std::vector<int> producer(tensors_.size(), -1), readers(tensors_.size(), 0);
  for (int i = 0; i < num_ops; ++i) {
    const Node& node = nodes_[i];
    for (int k = 0; k < node.num_inputs; ++k) {
      if (node.inputs[k] >= 0) ++readers[node.inputs[k]];
    }
    for (int k = 0; k < node.num_outputs; ++k) {
      if (node.outputs[k] >= 0) producer[node.outputs[k]] = i;
    }
  }
  for (int t : outputs_) ++readers[t];  // a graph output is read outside
  auto declared_equal = [&](int a, int b) {
    const auto* da = fb_tensors->Get(a)->shape();
    const auto* db = fb_tensors->Get(b)->shape();
    if (da == nullptr || db == nullptr || da->size() != db->size() ||
        da->size() == 0) {
      return false;
    }
    for (uint32_t i = 0; i < da->size(); ++i) {
      if (da->Get(i) != db->Get(i) || da->Get(i) < 0) return false;
    }
    return true;
  };
  for (int j = 0; j < num_ops; ++j) {
    Node& add = nodes_[j];
    if (add.op != BuiltinOperator::ADD || add.num_inputs != 2 ||
        add.num_outputs != 1 || add.inputs[0] < 0 || add.inputs[1] < 0) {
      continue;
    }
    schema::ActivationFunctionType act = schema::ActivationFunctionType::NONE;
    if (add.fb->builtin_options_type() == BuiltinOptions::ArithmeticOptions) {
      act = add.fb->builtin_options_as_ArithmeticOptions()
                ->fused_activation_function();
    } else if (add.fb->builtin_options_type() != BuiltinOptions::NONE) {
      continue;
    }
    if (act != schema::ActivationFunctionType::NONE &&
        act != schema::ActivationFunctionType::RELU &&
        act != schema::ActivationFunctionType::RELU6) {
      continue;
    }
    const int out = add.outputs[0];
    for (int side = 0; side < 2; ++side) {
      const int x = add.inputs[side], r = add.inputs[1 - side];
      const int i = producer[x];
      if (i < 0 || x == r || readers[x] != 1) continue;
      Node& conv = nodes_[i];
      if (conv.op != BuiltinOperator::CONV_2D || conv.fused_add ||
          conv.num_outputs != 1 || conv.num_inputs < 2 || conv.num_inputs > 3 ||
          conv.fb->builtin_options_type() != BuiltinOptions::Conv2DOptions ||
          conv.fb->builtin_options_as_Conv2DOptions()
                  ->fused_activation_function() !=
              schema::ActivationFunctionType::NONE) {
        continue;
      }
      if (producer[r] >= i || tensors_[x].type != DataType::kFloat32 ||
          tensors_[r].type != DataType::kFloat32 ||
          tensors_[out].type != DataType::kFloat32 || !declared_equal(x, r) ||
          (fb_tensors->Get(out)->shape() != nullptr &&
           fb_tensors->Get(out)->shape()->size() != 0 &&
           !declared_equal(x, out))) {
        continue;
      }
      if (conv.num_inputs == 2) conv.inputs[2] = -1;
      conv.inputs[3] = r;
      conv.num_inputs = 4;
      conv.outputs[0] = out;
      conv.fused_add = true;
      conv.fused_add_activation = act;
      producer[out] = i;
      fused_away_[j] = true;
      break;
    }
  }
}

namespace {

#if defined(__aarch64__)
constexpr bool kAarch64 = true;
#else
constexpr bool kAarch64 = false;
#endif

bool IsClamp(schema::ActivationFunctionType act) {
  return act == schema::ActivationFunctionType::NONE ||
         act == schema::ActivationFunctionType::RELU ||
         act == schema::ActivationFunctionType::RELU6;
}

}  // namespace

// An inverted residual block (MobileNetV2, MnasNet, EfficientNet-lite):
// CONV_2D 1x1 (expansion) -> DEPTHWISE_CONV_2D 3x3 -> CONV_2D 1x1
// (projection, with a residual ADD fused into it or not) runs as one node,
// the depthwise one, over bands of a few output rows: the expanded rows and
// the depthwise rows of a band stay in cache (the unfused chain writes the
// wide expanded tensor, reads it, writes the depthwise output and reads it
// again). Fused when each intermediate tensor is read by the next node
// alone and is no graph output, both convolutions are 1x1 stride 1 without
// padding or dilation with constant filters, the depthwise is 3x3 with
// multiplier 1, stride 1 or 2 (equal) and no dilation, every activation is
// a clamp (none, RELU, RELU6), every tensor is float32 and the expanded
// tensor has at least InterpreterOptions::min_fused_block_bytes (2 MiB:
// MobileNetV2's 112x112x96 block, ~1.14 -> ~1.06 ms min on 1 thread; the
// smaller ones, whose intermediates stay in L2 unfused, measured the same
// or up to 5% slower fused, more on 2 threads as the bands recompute seam
// rows). The kernel computes the floats the three nodes would (the same
// GEMM and depthwise kernels). TWL_LITE_FUSE_INVERTED_RESIDUAL=0 turns it off.
void Interpreter::FuseInvertedResiduals() {
  static const bool disabled = [] {
    const char* v = std::getenv("TWL_LITE_FUSE_INVERTED_RESIDUAL");
    return v != nullptr && strcmp(v, "0") == 0;
  }();
  // aarch64 runs the blocks unfused: the kernel's code would take the
  // stripped library over 1 MiB there.
  if (disabled || kAarch64) return;
  const int num_ops = static_cast<int>(nodes_.size());
  std::vector<int> producer(tensors_.size(), -1), readers(tensors_.size(), 0);
  for (int i = 0; i < num_ops; ++i) {
    if (fused_away_[i]) continue;
    const Node& node = nodes_[i];
    for (int k = 0; k < node.num_inputs; ++k) {
      if (node.inputs[k] >= 0) ++readers[node.inputs[k]];
    }
    for (int k = 0; k < node.num_outputs; ++k) {
      if (node.outputs[k] >= 0) producer[node.outputs[k]] = i;
    }
  }
  for (int t : outputs_) ++readers[t];
  auto float32 = [&](int t) {
    return t < 0 || tensors_[t].type == DataType::kFloat32;
  };
  // A constant float32 filter [out_c, 1, 1, in_c] (in_c < 0: any).
  auto pointwise_filter = [&](int t, int in_c) {
    const Tensor& f = tensors_[t];
    return f.is_constant && f.type == DataType::kFloat32 && f.shape.rank == 4 &&
           f.shape.dims[1] == 1 && f.shape.dims[2] == 1 &&
           (in_c < 0 || f.shape.dims[3] == in_c);
  };
  // A 1x1 stride-1 CONV_2D with no padding or dilation and a clamp.
  auto pointwise = [&](const Node& n, schema::ActivationFunctionType act) {
    if (n.op != BuiltinOperator::CONV_2D || n.num_outputs != 1 ||
        n.num_inputs < 2 || n.num_inputs > (n.fused_add ? 4 : 3) ||
        n.fb->builtin_options_type() != BuiltinOptions::Conv2DOptions ||
        !IsClamp(act) || !pointwise_filter(n.inputs[1], -1) ||
        (n.num_inputs > 2 && !float32(n.inputs[2]))) {
      return false;
    }
    const auto* o = n.fb->builtin_options_as_Conv2DOptions();
    return o->stride_h() == 1 && o->stride_w() == 1 &&
           o->dilation_h_factor() == 1 && o->dilation_w_factor() == 1 &&
           (o->padding() != schema::Padding::EXPLICIT ||
            (o->pad_top() == 0 && o->pad_bottom() == 0 && o->pad_left() == 0 &&
             o->pad_right() == 0));
  };
  // A node's CONV_2D activation; NONE for another op (which `pointwise`
  // then refuses by its options type).
  auto conv_activation = [](const Node& n) {
    const auto* o = n.fb->builtin_options_as_Conv2DOptions();
    return o != nullptr ? o->fused_activation_function()
                        : schema::ActivationFunctionType::NONE;
  };
  for (int j = 0; j < num_ops; ++j) {
    Node& dw = nodes_[j];
    if (fused_away_[j] || dw.op != BuiltinOperator::DEPTHWISE_CONV_2D ||
        dw.num_outputs != 1 || dw.num_inputs < 2 || dw.num_inputs > 3 ||
        dw.inputs[0] < 0 || dw.inputs[1] < 0 ||
        dw.fb->builtin_options_type() !=
            BuiltinOptions::DepthwiseConv2DOptions) {
      continue;
    }
    const auto* o = dw.fb->builtin_options_as_DepthwiseConv2DOptions();
    const Tensor& f = tensors_[dw.inputs[1]];
    if (o->depth_multiplier() != 1 || o->dilation_h_factor() != 1 ||
        o->dilation_w_factor() != 1 || o->stride_h() != o->stride_w() ||
        (o->stride_h() != 1 && o->stride_h() != 2) ||
        !IsClamp(o->fused_activation_function()) || !f.is_constant ||
        f.type != DataType::kFloat32 || f.shape.rank != 4 ||
        f.shape.dims[0] != 1 || f.shape.dims[1] != 3 || f.shape.dims[2] != 3 ||
        (dw.num_inputs == 3 && !float32(dw.inputs[2]))) {
      continue;
    }
    const int mid = dw.inputs[0], dw_out = dw.outputs[0];
    const int e = producer[mid];
    if (e < 0 || readers[mid] != 1 || readers[dw_out] != 1) continue;
    int p = -1;  // the projection: the reader of dw_out
    for (int i = j + 1; i < num_ops && p < 0; ++i) {
      if (fused_away_[i]) continue;
      for (int k = 0; k < nodes_[i].num_inputs; ++k) {
        if (nodes_[i].inputs[k] == dw_out) p = i;
      }
    }
    if (p < 0) continue;
    Node& expand = nodes_[e];
    Node& project = nodes_[p];
    const int channels = f.shape.dims[3];
    if (expand.fused_add || expand.inputs[0] < 0 ||
        !pointwise(expand, conv_activation(expand)) ||
        tensors_[expand.inputs[1]].shape.dims[0] != channels ||
        project.inputs[0] != dw_out ||
        !pointwise(project, project.fused_add ? project.fused_add_activation
                                              : conv_activation(project)) ||
        !pointwise_filter(project.inputs[1], channels) ||
        !float32(expand.inputs[0]) || !float32(mid) || !float32(dw_out) ||
        !float32(project.outputs[0])) {
      continue;
    }
    if (tensors_[mid].bytes < options_.min_fused_block_bytes) continue;
    const int residual = project.fused_add ? project.inputs[3] : -1;
    // The fused node runs at the depthwise's place: the projection's
    // residual must be ready by then.
    if (residual >= 0 && producer[residual] >= j) continue;
    const int x = expand.inputs[0];
    const int e_bias = expand.num_inputs > 2 ? expand.inputs[2] : -1;
    const int p_bias = project.num_inputs > 2 ? project.inputs[2] : -1;
    const int d_bias = dw.num_inputs > 2 ? dw.inputs[2] : -1;
    dw.fused_expand = expand.fb;
    dw.fused_project = project.fb;
    dw.fused_project_activation =
        project.fused_add ? project.fused_add_activation
                          : project.fb->builtin_options_as_Conv2DOptions()
                                ->fused_activation_function();
    const int inputs[8] = {x,      dw.inputs[1],      d_bias, expand.inputs[1],
                           e_bias, project.inputs[1], p_bias, residual};
    for (int k = 0; k < 8; ++k) dw.inputs[k] = inputs[k];
    dw.num_inputs = 8;
    dw.outputs[0] = project.outputs[0];
    producer[project.outputs[0]] = j;
    fused_away_[e] = true;
    fused_away_[p] = true;
  }
}

Status Interpreter::Fail(const Status& status) {
  error_ = status;
  return status;
}

Status Interpreter::ResizeInputTensor(int input, const Shape& shape) {
  if (input < 0 || input >= num_inputs()) {
    return Fail(Status::Error(StatusCode::kInvalidArgument,
                              "input index %d out of range (%d inputs)", input,
                              num_inputs()));
  }
  Tensor& tensor = tensors_[inputs_[input]];
  if (shape.rank != tensor.shape.rank) {
    return Fail(Status::Error(StatusCode::kInvalidArgument,
                              "input %d '%s': rank %d does not match the "
                              "model's rank %d",
                              input, tensor.name, shape.rank,
                              tensor.shape.rank));
  }
  if (shape == tensor.shape) return Status::Ok();
  size_t bytes = 0;
  Status status = ComputeByteSize(shape, tensor.type, &bytes);
  for (int i = 0; status.ok() && i < shape.rank; ++i) {
    if (shape.dims[i] < 0) {
      status = Status::Error(StatusCode::kInvalidArgument,
                             "dimension %d is negative", i);
    }
  }
  if (!status.ok()) return Fail(status.WithPrefix("input %d", input));
  tensor.shape = shape;
  tensor.bytes = bytes;
  allocated_ = false;
  return Status::Ok();
}

namespace {

bool MatchesDeclared(const Shape& shape, const schema::Tensor* fb) {
  const auto* dims = fb->shape();
  const int rank = dims ? static_cast<int>(dims->size()) : 0;
  if (rank != shape.rank) return false;
  for (int i = 0; i < rank; ++i) {
    if (dims->Get(i) != shape.dims[i]) return false;
  }
  return true;
}

}  // namespace

bool Interpreter::InputsHaveDeclaredShapes() const {
  const auto* fb_tensors = model_->main_subgraph()->tensors();
  for (int t : inputs_) {
    if (!MatchesDeclared(tensors_[t].shape, fb_tensors->Get(t))) return false;
  }
  return true;
}

Status Interpreter::CheckDeclaredShapes(const Node& node) const {
  const auto* fb_tensors = model_->main_subgraph()->tensors();
  for (int k = 0; k < node.num_outputs; ++k) {
    const int t = node.outputs[k];
    if (tensors_[t].is_dynamic) continue;  // known in Invoke
    const schema::Tensor* fb = fb_tensors->Get(t);
    // An empty declared shape is "not given" (writers may leave computed
    // shapes out); a scalar output then matches trivially.
    if (fb->shape() == nullptr || fb->shape()->size() == 0) continue;
    if (MatchesDeclared(tensors_[t].shape, fb)) continue;
    Shape declared;
    const auto* dims = fb->shape();
    TWL_RETURN_IF_ERROR(MakeShape(dims ? dims->data() : nullptr,
                                  dims ? dims->size() : 0, &declared));
    char computed_text[96], declared_text[96];
    return Status::Error(
        StatusCode::kInvalidModel,
        "output %d '%s' has shape %s from the model's own input shapes, but "
        "the model declares %s (corrupt or inconsistent model)",
        k, tensors_[t].name,
        tensors_[t].shape.ToString(computed_text, sizeof(computed_text)),
        declared.ToString(declared_text, sizeof(declared_text)));
  }
  return Status::Ok();
}

Status Interpreter::PrepareNodes() {
  const bool declared_inputs = InputsHaveDeclaredShapes();
  for (Tensor& tensor : tensors_) tensor.is_dynamic = false;
  deferred_.assign(nodes_.size(), false);
  has_deferred_ = false;
  prepared_key_.clear();
  prepared_key_.resize(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& node = nodes_[i];
    node.num_scratch = 0;
    if (fused_away_[i]) continue;
    // A node reading a dynamic tensor is prepared in Invoke, once that
    // tensor's shape is known; its outputs are dynamic too.
    for (int k = 0; k < node.num_inputs && !deferred_[i]; ++k) {
      deferred_[i] = node.inputs[k] >= 0 && tensors_[node.inputs[k]].is_dynamic;
    }
    if (deferred_[i]) {
      has_deferred_ = true;
      for (int k = 0; k < node.num_outputs; ++k) {
        tensors_[node.outputs[k]].is_dynamic = true;
      }
      continue;
    }
    Status status = kernels_[i]->prepare(&context_, &node);
    if (status.ok() && declared_inputs) status = CheckDeclaredShapes(node);
    if (!status.ok()) {
      return status.WithPrefix("operator %zu (%s)", i, OpName(node.op));
    }
  }
  return Status::Ok();
}

Status Interpreter::PlanArena() {
  planner_.Reset();
  std::vector<int> tensor_ids(tensors_.size(), -1);
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (first_use_[t] < 0 || tensors_[t].is_dynamic) continue;
    tensor_ids[t] =
        planner_.Add(tensors_[t].bytes, first_use_[t], last_use_[t]);
  }
  int first_scratch = planner_.num_requests();
  for (const Node& node : nodes_) {
    for (int s = 0; s < node.num_scratch; ++s) {
      planner_.Add(node.scratch_bytes[s], node.index, node.index);
    }
  }
  Status planned = planner_.Plan();
  if (!planned.ok()) {
    const int failed = planner_.failed_request();
    for (size_t t = 0; t < tensors_.size(); ++t) {
      if (failed >= 0 && tensor_ids[t] == failed) {
        return planned.WithPrefix("tensor %zu '%s'", t, tensors_[t].name);
      }
    }
    int scratch_id = first_scratch;
    for (const Node& node : nodes_) {
      if (failed >= scratch_id && failed < scratch_id + node.num_scratch) {
        return planned.WithPrefix("operator %d (%s) scratch", node.index,
                                  OpName(node.op));
      }
      scratch_id += node.num_scratch;
    }
    return planned;
  }
  size_t size = planner_.arena_size();
  if (size > options_.max_arena_bytes) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "arena of %zu bytes exceeds the limit of %zu", size,
                         options_.max_arena_bytes);
  }
  if (size > arena_capacity_ || arena_ == nullptr) {
    free(arena_);
    arena_capacity_ = 0;
    size_t capacity = size == 0 ? kArenaAlignment : size;
    arena_ = static_cast<uint8_t*>(aligned_alloc(kArenaAlignment, capacity));
    if (arena_ == nullptr) {
      return Status::Error(StatusCode::kResourceExhausted,
                           "cannot allocate an arena of %zu bytes", capacity);
    }
    arena_capacity_ = capacity;
  }
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensor_ids[t] >= 0) {
      tensors_[t].data = arena_ + planner_.offset(tensor_ids[t]);
    }
  }
  int id = first_scratch;
  for (Node& node : nodes_) {
    for (int s = 0; s < node.num_scratch; ++s) {
      node.scratch[s] = arena_ + planner_.offset(id++);
    }
  }
  return Status::Ok();
}

Status Interpreter::AllocateTensors() {
  if (allocated_) return Status::Ok();
  Status status = PrepareNodes();
  if (status.ok()) status = PlanArena();
  if (!status.ok()) return Fail(status);
  allocated_ = true;
  return Status::Ok();
}

Status Interpreter::Invoke() {
  if (!allocated_) {
    return Fail(Status::Error(StatusCode::kFailedPrecondition,
                              "Invoke() needs AllocateTensors() first"));
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (fused_away_[i]) continue;
    auto start = profiler_ ? std::chrono::steady_clock::now()
                           : std::chrono::steady_clock::time_point();
    Status status = has_deferred_ && deferred_[i] ? PrepareDeferred(&nodes_[i])
                                                  : Status::Ok();
    if (status.ok()) status = kernels_[i]->eval(&context_, &nodes_[i]);
    if (profiler_ != nullptr) ReportTime(static_cast<int>(i), start);
    if (!status.ok()) {
      return Fail(
          status.WithPrefix("operator %zu (%s)", i, OpName(nodes_[i].op)));
    }
  }
  return Status::Ok();
}

// Inputs of at most this many bytes that are not constant have their values
// in the key: a prepare may read them as shape values.
constexpr size_t kMaxKeyedValueBytes = 64;

void Interpreter::InputsKey(const Node& node, std::vector<int64_t>* key) const {
  key->clear();
  for (int k = 0; k < node.num_inputs; ++k) {
    const int t = node.inputs[k];
    if (t < 0) {
      key->push_back(-1);
      continue;
    }
    const Tensor& tensor = tensors_[t];
    key->push_back(static_cast<int64_t>(tensor.type) << 8 | tensor.shape.rank);
    for (int i = 0; i < tensor.shape.rank; ++i) {
      key->push_back(tensor.shape.dims[i]);
    }
    if (tensor.is_constant || tensor.data == nullptr ||
        tensor.bytes > kMaxKeyedValueBytes) {
      continue;
    }
    const uint8_t* bytes = static_cast<const uint8_t*>(tensor.data);
    for (size_t at = 0; at < tensor.bytes; at += sizeof(int64_t)) {
      int64_t word = 0;
      memcpy(&word, bytes + at, std::min(sizeof(word), tensor.bytes - at));
      key->push_back(word);
    }
  }
}

Status Interpreter::PrepareDeferred(Node* node) {
  // Unchanged inputs: the last prepare's shapes, scratch and buffers hold.
  InputsKey(*node, &key_);
  std::vector<int64_t>& prepared = prepared_key_[node->index];
  if (!prepared.empty() && prepared == key_) return Status::Ok();
  prepared.clear();
  node->num_scratch = 0;
  TWL_RETURN_IF_ERROR(kernels_[node->index]->prepare(&context_, node));
  for (int k = 0; k < node->num_outputs; ++k) {
    Tensor& tensor = tensors_[node->outputs[k]];
    TWL_RETURN_IF_ERROR(dynamic_buffers_.Reserve(
        static_cast<size_t>(node->outputs[k]), tensor.bytes, &tensor.data));
  }
  // Scratch slots follow the tensors' slots, kMaxNodeScratch per node.
  for (int s = 0; s < node->num_scratch; ++s) {
    TWL_RETURN_IF_ERROR(dynamic_buffers_.Reserve(
        tensors_.size() + static_cast<size_t>(node->index) * kMaxNodeScratch +
            s,
        node->scratch_bytes[s], &node->scratch[s]));
  }
  prepared.swap(key_);
  return Status::Ok();
}

void Interpreter::ReportTime(int node,
                             std::chrono::steady_clock::time_point start) {
  std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  profiler_->OnNodeDone(node, nodes_[node].op, elapsed.count());
}

int Interpreter::FindInput(const char* name) const {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (strcmp(tensors_[inputs_[i]].name, name) == 0)
      return static_cast<int>(i);
  }
  return -1;
}

int Interpreter::FindOutput(const char* name) const {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (strcmp(tensors_[outputs_[i]].name, name) == 0)
      return static_cast<int>(i);
  }
  return -1;
}

int Interpreter::num_signatures() const {
  const auto* sigs = model_->fb()->signature_defs();
  return sigs ? static_cast<int>(sigs->size()) : 0;
}

const char* Interpreter::signature_key(int i) const {
  if (i < 0 || i >= num_signatures()) return nullptr;
  return model_->fb()->signature_defs()->Get(i)->signature_key()->c_str();
}

Tensor* Interpreter::FindSignatureTensor(const char* key, const char* name,
                                         bool is_input) {
  for (int s = 0; s < num_signatures(); ++s) {
    const schema::SignatureDef* sig = model_->fb()->signature_defs()->Get(s);
    if (strcmp(sig->signature_key()->c_str(), key) != 0) continue;
    if (sig->subgraph_index() != 0) return nullptr;
    const auto* maps = is_input ? sig->inputs() : sig->outputs();
    for (uint32_t i = 0; maps != nullptr && i < maps->size(); ++i) {
      if (strcmp(maps->Get(i)->name()->c_str(), name) == 0) {
        return &tensors_[maps->Get(i)->tensor_index()];
      }
    }
  }
  return nullptr;
}

}  // namespace twl
