#include "core/fuzz/case_generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/framework/graph.h"
#include "core/framework/types.h"
#include "core/fuzz/proto_cases.h"

namespace tensorweave {
namespace fuzz {
namespace {

constexpr int64_t kMaxElements = 256;  // per generated tensor
constexpr int kMaxListInputs = 6;      // longer input lists are not built

const int64_t kInterestingInts[] = {
    0,
    1,
    2,
    -1,
    -2,
    255,
    256,
    (int64_t{1} << 31) - 1,
    int64_t{1} << 31,
    -(int64_t{1} << 31),
    int64_t{1} << 32,
    int64_t{1} << 61,
    int64_t{1} << 62,
    std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::min(),
};

const double kInterestingFloats[] = {
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-4,
    1e-40,
    -1e30,
    1e30,
    3e38,
    -3e38,
    1e300,
    65536,
    2147483648.0,
    std::numeric_limits<double>::quiet_NaN(),
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
};

const char* const kInterestingStrings[] = {
    "", "a", "ckpt/model", "NHWC", "SAME", "\n", "x\"y", "a/b/../c",
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  // Uniform in [0, n).
  int64_t Below(int64_t n) {
    return static_cast<int64_t>(engine_() % static_cast<uint64_t>(n));
  }
  int64_t Between(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }
  bool Chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(engine_) < p;
  }
  double Normal() { return std::normal_distribution<double>(0, 1)(engine_); }
  int64_t InterestingInt() {
    return kInterestingInts[Below(std::size(kInterestingInts))];
  }
  double InterestingFloat() {
    return kInterestingFloats[Below(std::size(kInterestingFloats))];
  }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(static_cast<int64_t>(items.size()))];
  }

 private:
  std::mt19937_64 engine_;
};

// How the values of one tensor are drawn.
enum class ValueMode { kSmallIndex, kSmallSigned, kMixed, kHostile };

ValueMode PickValueMode(Rng& rng) {
  int64_t r = rng.Below(20);
  if (r < 9) return ValueMode::kSmallIndex;
  if (r < 14) return ValueMode::kSmallSigned;
  if (r < 18) return ValueMode::kMixed;
  return ValueMode::kHostile;
}

int64_t IntValue(Rng& rng, ValueMode mode) {
  switch (mode) {
    case ValueMode::kSmallIndex:
      return rng.Between(0, 3);
    case ValueMode::kSmallSigned:
      return rng.Between(-3, 5);
    case ValueMode::kMixed:
      return rng.Chance(0.3) ? rng.InterestingInt() : rng.Between(-1, 4);
    case ValueMode::kHostile:
      return rng.InterestingInt();
  }
  return 0;
}

double FloatValue(Rng& rng, ValueMode mode) {
  switch (mode) {
    case ValueMode::kSmallIndex:
      return rng.Chance(0.5) ? rng.Normal() : rng.Between(0, 3);
    case ValueMode::kSmallSigned:
      return rng.Normal() * 3;
    case ValueMode::kMixed:
      return rng.Chance(0.3) ? rng.InterestingFloat() : rng.Normal();
    case ValueMode::kHostile:
      return rng.InterestingFloat();
  }
  return 0;
}

template <typename T>
void AppendBytes(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

// A TensorProto of `dtype` and `dims` with random values.
TensorProto RandomTensor(Rng& rng, DataType dtype,
                         const std::vector<int64_t>& dims,
                         bool may_lie = false) {
  TensorProto proto;
  proto.set_dtype(static_cast<::tensorweave::DataType>(dtype));
  int64_t n = 1;
  for (int64_t d : dims) {
    proto.mutable_tensor_shape()->add_dim()->set_size(d);
    n *= d;
  }
  ValueMode mode = PickValueMode(rng);
  std::string* content = proto.mutable_tensor_content();
  // Every dtype of the registry: integers take the int64 values modulo
  // their width (2^31 in int8 is 0, -1 in uint16 is 65535).
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DT_STRING) {
      proto.add_string_val(
          kInterestingStrings[rng.Below(std::size(kInterestingStrings))]);
    } else if (dtype == DT_BOOL) {
      AppendBytes(content, static_cast<uint8_t>(rng.Below(2)));
    } else {
      DispatchType<TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, complex64> ||
                      std::is_same_v<T, complex128>) {
          using R = typename T::value_type;
          const R re = static_cast<R>(FloatValue(rng, mode));
          AppendBytes(content, T(re, static_cast<R>(FloatValue(rng, mode))));
        } else if constexpr (std::is_integral_v<T>) {
          AppendBytes(content, static_cast<T>(IntValue(rng, mode)));
        } else if constexpr (std::is_same_v<T, double>) {
          AppendBytes(content, FloatValue(rng, mode));
        } else {
          AppendBytes(content, static_cast<T>(
                                   static_cast<float>(FloatValue(rng, mode))));
        }
        return Status::OK();
      }).ok();
    }
  }
  // Sometimes a proto that lies about its size: the reader must notice.
  if (may_lie && rng.Chance(0.1)) {
    proto.mutable_tensor_shape()->add_dim()->set_size(rng.InterestingInt());
  }
  return proto;
}

// Dims sharing one case's "base" shape most of the time, so that
// elementwise and matching-dimension ops also run, not only fail.
class ShapeSource {
 public:
  // `base_rank`: the rank of the shared shape, or -1 for a random one.
  // Each case leans one way (mostly the base shape, mostly scalars, mostly
  // fresh shapes), so that ops needing all inputs alike are built too.
  explicit ShapeSource(Rng& rng, int64_t base_rank = -1) : rng_(rng) {
    base_ = FreshDims(base_rank >= 0 ? base_rank : rng_.Between(0, 4));
    const int64_t leanings[][3] = {
        {10, 13, 15}, {17, 18, 19}, {2, 3, 18}, {5, 7, 9}};
    std::copy_n(leanings[rng_.Below(4)], 3, cut_);
  }
  const std::vector<int64_t>& base() const { return base_; }
  std::vector<int64_t> Next() {
    int64_t r = rng_.Below(20);
    if (r < cut_[0]) return base_;
    if (r < cut_[1]) {  // broadcast-compatible: a suffix, some dims set to 1
      std::vector<int64_t> dims(base_.begin() + rng_.Between(0, base_.size()),
                                base_.end());
      for (int64_t& d : dims) {
        if (rng_.Chance(0.3)) d = 1;
      }
      return dims;
    }
    if (r < cut_[2]) return {};
    return FreshDims(rng_.Between(0, 5));
  }

 private:
  std::vector<int64_t> FreshDims(int64_t rank) {
    std::vector<int64_t> dims;
    int64_t elements = 1;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = rng_.Chance(0.08) ? 0 : rng_.Between(1, 3);
      if (rng_.Chance(0.03)) d = rng_.Between(8, 40);
      if (elements * std::max<int64_t>(d, 1) > kMaxElements) d = 1;
      elements *= std::max<int64_t>(d, 1);
      dims.push_back(d);
    }
    return dims;
  }
  Rng& rng_;
  std::vector<int64_t> base_;
  int64_t cut_[3];  // base below cut_[0], broadcast, scalar, else fresh
};

void RandomShapeProto(Rng& rng, TensorShapeProto* shape) {
  if (rng.Chance(0.2)) {
    shape->set_unknown_rank(true);
    return;
  }
  int64_t rank = rng.Between(0, 4);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = rng.Chance(0.15) ? rng.InterestingInt() : rng.Between(-1, 3);
    shape->add_dim()->set_size(d);
  }
}

DataType RandomType(Rng& rng, const AttrDef& attr) {
  if (!attr.allowed_types.empty() && !rng.Chance(0.03)) {
    return rng.Pick(attr.allowed_types);
  }
  return rng.Pick(AllDataTypes());
}

int64_t RandomInt(Rng& rng, const AttrDef& attr) {
  int64_t low = attr.has_minimum ? attr.minimum : -1;
  int64_t r = rng.Below(10);
  if (r < 6) return low + rng.Between(0, 3);
  if (r < 9) return rng.InterestingInt();
  return rng.Between(-3, 8);
}

int64_t RandomListLength(Rng& rng, const AttrDef& attr) {
  int64_t low = attr.has_minimum ? attr.minimum : 0;
  if (rng.Chance(0.05)) return rng.Between(0, 6);
  if (rng.Chance(0.4)) return 4;  // strides, ksize, dilations
  return low + rng.Between(0, 3);
}

// A random value for `attr`; `dtype_hint` is the case's element type (for
// "tensor" attrs), `image_rank` the rank of the op's images (4, or 5 for the
// 3-D convolutions and pools) that its windows fit.
AttrValue RandomAttr(Rng& rng, const AttrDef& attr, DataType dtype_hint,
                     int image_rank) {
  AttrValue value;
  const std::string& type = attr.type;
  if (attr.has_default && rng.Chance(0.3)) {
    value = attr.default_value;
    // A default list with one element changed.
    if (value.has_list() && value.list().i_size() > 0 && rng.Chance(0.3)) {
      auto* ints = value.mutable_list()->mutable_i();
      ints->Set(rng.Below(ints->size()),
                rng.Chance(0.5) ? rng.InterestingInt() : rng.Between(-1, 3));
    }
    return value;
  }
  if (type == "type") {
    value.set_type(static_cast<::tensorweave::DataType>(RandomType(rng, attr)));
  } else if (type == "int") {
    value.set_i(RandomInt(rng, attr));
  } else if (type == "float") {
    value.set_f(static_cast<float>(rng.Chance(0.5) ? rng.Normal()
                                                   : rng.InterestingFloat()));
  } else if (type == "bool") {
    value.set_b(rng.Chance(0.5));
  } else if (type == "string") {
    if (!attr.allowed_strings.empty() && !rng.Chance(0.05)) {
      value.set_s(rng.Pick(attr.allowed_strings));
    } else {
      value.set_s(
          kInterestingStrings[rng.Below(std::size(kInterestingStrings))]);
    }
  } else if (type == "shape") {
    RandomShapeProto(rng, value.mutable_shape());
  } else if (type == "tensor") {
    ShapeSource shapes(rng);
    *value.mutable_tensor() =
        RandomTensor(rng, dtype_hint, shapes.Next(), /*may_lie=*/true);
  } else if (type == "list(int)" &&
             (attr.name == "strides" || attr.name == "ksize" ||
              attr.name == "dilations") &&
             rng.Chance(0.75)) {
    // A window an NHWC (NDHWC) convolution or pool accepts: 1 for batch
    // and depth.
    const bool ones = attr.name == "dilations" && rng.Chance(0.7);
    value.mutable_list()->add_i(1);
    for (int d = 2; d < image_rank; ++d) {
      value.mutable_list()->add_i(ones ? 1 : rng.Between(1, 3));
    }
    value.mutable_list()->add_i(1);
  } else if (type == "list(int)") {
    int64_t n = RandomListLength(rng, attr);
    ValueMode mode =
        rng.Chance(0.7) ? ValueMode::kSmallIndex : PickValueMode(rng);
    for (int64_t i = 0; i < n; ++i) {
      value.mutable_list()->add_i(mode == ValueMode::kSmallIndex
                                      ? (rng.Chance(0.7) ? 1 : 2)
                                      : IntValue(rng, mode));
    }
  } else if (type == "list(float)" && attr.name == "pooling_ratio" &&
             rng.Chance(0.75)) {
    // A ratio fractional pooling accepts: 1 for batch and depth, [1, 3)
    // for rows and columns.
    for (double v : {1.0, 1.0 + 2.0 * std::fabs(rng.Normal()) / 3.0,
                     1.0 + 2.0 * std::fabs(rng.Normal()) / 3.0, 1.0}) {
      value.mutable_list()->add_f(static_cast<float>(v));
    }
  } else if (type == "list(float)") {
    int64_t n = RandomListLength(rng, attr);
    for (int64_t i = 0; i < n; ++i) {
      value.mutable_list()->add_f(static_cast<float>(rng.Normal()));
    }
  } else if (type == "list(type)") {
    int64_t n = RandomListLength(rng, attr) % 4;
    if (attr.has_minimum && n < attr.minimum) n = attr.minimum;
    for (int64_t i = 0; i < n; ++i) {
      value.mutable_list()->add_type(
          static_cast<::tensorweave::DataType>(RandomType(rng, attr)));
    }
  } else if (type == "list(shape)") {
    int64_t n = RandomListLength(rng, attr) % 4;
    for (int64_t i = 0; i < n; ++i) {
      RandomShapeProto(rng, value.mutable_list()->add_shape());
    }
  } else if (type == "list(string)" && attr.name == "fused_ops" &&
             rng.Chance(0.8)) {
    // What the fused ops (_FusedMatMul, _FusedConv2D) accept: BiasAdd, then
    // at most one activation.
    static const char* const kActivations[] = {"Relu", "Relu6", "Elu", "Tanh",
                                               "Sigmoid"};
    value.mutable_list()->add_s("BiasAdd");
    if (rng.Chance(0.7)) {
      value.mutable_list()->add_s(
          kActivations[rng.Below(std::size(kActivations))]);
    }
  } else if (type == "list(string)") {
    int64_t n = RandomListLength(rng, attr) % 4;
    for (int64_t i = 0; i < n; ++i) {
      value.mutable_list()->add_s(
          kInterestingStrings[rng.Below(std::size(kInterestingStrings))]);
    }
  } else if (type == "list(bool)") {
    int64_t n = RandomListLength(rng, attr) % 4;
    for (int64_t i = 0; i < n; ++i) value.mutable_list()->add_b(rng.Chance(.5));
  }
  return value;
}

// A 1-D int32/int64 tensor holding `values`.
TensorProto IntTensor(DataType dtype, const std::vector<int64_t>& values) {
  TensorProto proto;
  proto.set_dtype(static_cast<::tensorweave::DataType>(dtype));
  proto.mutable_tensor_shape()->add_dim()->set_size(values.size());
  for (int64_t v : values) {
    if (dtype == DT_INT64) {
      AppendBytes(proto.mutable_tensor_content(), v);
    } else {
      AppendBytes(proto.mutable_tensor_content(), static_cast<int32_t>(v));
    }
  }
  return proto;
}

// Some inputs have a role that random shapes rarely fill; each gets what it
// needs most of the time (and a random tensor otherwise, like any input):
// - an optimizer's hyper-parameters (ApplyAdam's lr, beta1, ...: the
//   non-ref inputs other than the gradient) are scalars, the variable, its
//   slots and the gradient share the case's base shape;
// - "input_sizes"/"filter_sizes" of a convolution's gradient are a shape:
//   the base [N,H,W,C] image, or a [KH,KW,C,M] filter for it.
struct InputPlan {
  std::vector<int64_t> dims;
  bool has_values = false;
  std::vector<int64_t> values;
};

InputPlan PlanInput(Rng& rng, const OpDef& op, const ArgDef& arg,
                    DataType dtype, const std::vector<int64_t>& base,
                    ShapeSource& shapes) {
  InputPlan plan;
  const bool optimizer = op.name.compare(0, 5, "Apply") == 0 &&
                         !op.inputs.empty() && op.inputs[0].is_ref;
  if (optimizer && rng.Chance(0.9)) {
    const bool like_var =
        arg.is_ref || arg.name == "grad" || arg.name == "delta";
    if (like_var) plan.dims = base;
    return plan;  // hyper-parameters: scalars
  }
  const bool is_sizes =
      (arg.name == "input_sizes" || arg.name == "filter_sizes") &&
      (dtype == DT_INT32 || dtype == DT_INT64) && base.size() == 4;
  if (is_sizes && rng.Chance(0.8)) {
    plan.dims = {4};
    plan.has_values = true;
    if (arg.name == "input_sizes") {
      plan.values = base;
    } else {
      plan.values = {rng.Between(1, 3), rng.Between(1, 3), base[3],
                     rng.Chance(0.5) ? 1 : base[3]};
    }
    return plan;
  }
  plan.dims = shapes.Next();
  return plan;
}

NodeDef* AddNodeDef(FuzzCase* c, const std::string& op,
                    const std::string& name) {
  NodeDef* node = c->mutable_graph()->add_node();
  node->set_op(op);
  node->set_name(name);
  return node;
}

AttrValue TypeAttr(DataType dtype) {
  AttrValue v;
  v.set_type(static_cast<::tensorweave::DataType>(dtype));
  return v;
}

// Adds the producer of one input of the node under test and returns the
// tensor name to connect.
std::string AddInput(Rng& rng, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>* values, DataType dtype,
                     bool is_ref, int index, FuzzCase* c) {
  const std::string id = std::to_string(index);
  auto make_value = [&] {
    return values != nullptr ? IntTensor(dtype, *values)
                             : RandomTensor(rng, dtype, dims);
  };
  if (is_ref) {
    NodeDef* var = AddNodeDef(c, "VariableV2", "var" + id);
    (*var->mutable_attr())["dtype"] = TypeAttr(dtype);
    AttrValue shape;
    shape.mutable_shape();  // a scalar's shape is set too (no dims)
    for (int64_t d : dims) shape.mutable_shape()->add_dim()->set_size(d);
    (*var->mutable_attr())["shape"] = shape;
    NodeDef* init_value = AddNodeDef(c, "Const", "init_value" + id);
    (*init_value->mutable_attr())["dtype"] = TypeAttr(dtype);
    *(*init_value->mutable_attr())["value"].mutable_tensor() = make_value();
    NodeDef* init = AddNodeDef(c, "Assign", "init" + id);
    init->add_input(var->name());
    init->add_input(init_value->name());
    if (!rng.Chance(0.1)) c->add_init_targets(init->name());
    return var->name();
  }
  if (rng.Chance(0.55)) {
    NodeDef* constant = AddNodeDef(c, "Const", "const" + id);
    (*constant->mutable_attr())["dtype"] = TypeAttr(dtype);
    *(*constant->mutable_attr())["value"].mutable_tensor() = make_value();
    return constant->name();
  }
  NodeDef* placeholder = AddNodeDef(c, "Placeholder", "feed" + id);
  (*placeholder->mutable_attr())["dtype"] = TypeAttr(dtype);
  AttrValue shape;
  shape.mutable_shape();  // a scalar's shape is set too (no dims)
  if (rng.Chance(0.6)) {
    shape.mutable_shape()->set_unknown_rank(true);
  } else {
    for (int64_t d : dims) {
      shape.mutable_shape()->add_dim()->set_size(rng.Chance(0.3) ? -1 : d);
    }
  }
  (*placeholder->mutable_attr())["shape"] = shape;
  (*c->mutable_feeds())[placeholder->name() + ":0"] = make_value();
  return placeholder->name();
}

}  // namespace

FuzzCase GenerateCase(const OpDef& op, uint64_t seed) {
  Rng rng(seed);
  FuzzCase c;
  c.set_op(op.name);
  c.set_seed(seed);
  NodeDef target;
  target.set_name("target");
  target.set_op(op.name);
  const int image_rank =
      op.name.find("3D") != std::string::npos ? 5 : 4;  // Conv3D, MaxPool3D..
  auto& attrs = *target.mutable_attr();
  // Type attributes first: "tensor" attributes take the case's dtype.
  DataType dtype_hint = rng.Pick(AllDataTypes());
  for (int pass = 0; pass < 2; ++pass) {
    for (const AttrDef& attr : op.attrs) {
      if ((attr.type == "type") != (pass == 0)) continue;
      if (rng.Chance(0.01)) continue;  // a missing attribute
      attrs[attr.name] = RandomAttr(rng, attr, dtype_hint, image_rank);
      if (attr.type == "type" && attr.name != "out_type" &&
          attr.name.find("idx") == std::string::npos) {
        dtype_hint = static_cast<DataType>(attrs[attr.name].type());
      }
    }
  }
  // Convolutions and pools take [N,H,W,C] images ([N,D,H,W,C] in 3-D).
  const bool images =
      op.FindAttr("strides") != nullptr || op.FindAttr("ksize") != nullptr;
  ShapeSource shapes(rng, images && rng.Chance(0.8) ? image_rank : -1);
  int index = 0;
  // Lists of inputs or outputs past kMaxListInputs are not built.
  auto list_too_long = [&](const ArgDef& arg) {
    int64_t n = 0;
    return !arg.number_attr.empty() &&
           (!GetAttr(attrs, arg.number_attr, &n).ok() || n < 0 ||
            n > kMaxListInputs);
  };
  for (const ArgDef& arg : op.inputs) {
    std::vector<DataType> types;
    if (list_too_long(arg) || !ArgTypes(op, attrs, arg, &types).ok() ||
        types.size() > kMaxListInputs) {
      break;  // the graph must reject the node: fewer inputs than declared
    }
    for (DataType dtype : types) {
      InputPlan plan = PlanInput(rng, op, arg, dtype, shapes.base(), shapes);
      target.add_input(AddInput(rng, plan.dims,
                                plan.has_values ? &plan.values : nullptr, dtype,
                                arg.is_ref, index++, &c));
    }
  }
  if (op.name == "Placeholder" && rng.Chance(0.7)) {
    DataType dtype = DT_FLOAT;
    GetAttr(attrs, "dtype", &dtype);
    (*c.mutable_feeds())["target:0"] = RandomTensor(rng, dtype, shapes.Next());
  }
  int num_outputs = 0;
  for (const ArgDef& arg : op.outputs) {
    std::vector<DataType> types;
    if (list_too_long(arg) || !ArgTypes(op, attrs, arg, &types).ok() ||
        types.size() > kMaxListInputs) {
      num_outputs = 0;
      break;
    }
    num_outputs += static_cast<int>(types.size());
  }
  for (int i = 0; i < num_outputs; ++i) {
    c.add_fetches("target:" + std::to_string(i));
  }
  if (num_outputs == 0) c.add_targets("target");
  *c.mutable_graph()->add_node() = std::move(target);
  if (IsProtoOp(op.name)) ReshapeProtoCase(seed, &c);
  return c;
}

}  // namespace fuzz
}  // namespace tensorweave
