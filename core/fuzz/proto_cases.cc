#include "core/fuzz/proto_cases.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"

namespace tensorweave {
namespace fuzz {
namespace {

// The fields of tensorweave.TensorProto and the dtypes each may decode to
// (the first is the natural one).
struct ProtoField {
  const char* name;
  std::vector<::tensorweave::DataType> dtypes;
};

const std::vector<ProtoField>& TensorProtoFields() {
  static const auto* fields = new std::vector<ProtoField>{
      {"dtype", {DT_INT32}},
      {"tensor_shape", {DT_STRING}},
      {"version_number", {DT_INT32, DT_INT64}},
      {"tensor_content", {DT_STRING}},
      {"float_val", {DT_FLOAT, DT_DOUBLE}},
      {"double_val", {DT_DOUBLE}},
      {"int_val", {DT_INT32, DT_INT64}},
      {"string_val", {DT_STRING}},
      {"int64_val", {DT_INT64}},
      {"bool_val", {DT_BOOL}},
      {"half_val", {DT_INT32}},
      {"uint32_val", {DT_UINT32, DT_UINT64}},
      {"uint64_val", {DT_UINT64}},
      {"scomplex_val", {DT_FLOAT}},
  };
  return *fields;
}

class ProtoRng {
 public:
  explicit ProtoRng(uint64_t seed)
      : engine_(seed * 0xD1B54A32D192ED03ull + 7) {}
  int64_t Below(int64_t n) {
    return static_cast<int64_t>(engine_() % static_cast<uint64_t>(n));
  }
  bool Chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(engine_) < p;
  }
  uint64_t Bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// A value that looks like a varint / fixed value / length-delimited run.
void AppendRandomValue(ProtoRng& rng, int wire_type, int depth,
                       std::string* out);

// Random wire-format fields of TensorProto's numbers (and others), with
// mostly fitting wire types.
std::string RandomWire(ProtoRng& rng, int depth = 0) {
  std::string out;
  const int64_t fields = rng.Below(6);
  for (int64_t i = 0; i < fields; ++i) {
    uint64_t number = rng.Chance(0.85) ? 1 + rng.Below(17) : rng.Bits() % 1000;
    if (rng.Chance(0.02)) number = rng.Bits();  // past 2^29: a bad tag
    int wire_type = static_cast<int>(rng.Below(8));
    if (rng.Chance(0.6)) {
      // The wire type a TensorProto field has (packed runs for repeated).
      static const int kTypes[] = {0, 0, 2, 0, 2, 2, 2, 2, 2,
                                   2, 2, 2, 2, 2, 2, 2, 2, 2};
      wire_type = kTypes[number < 18 ? number : 0];
    }
    AppendVarint(number << 3 | static_cast<uint64_t>(wire_type), &out);
    AppendRandomValue(rng, wire_type, depth, &out);
  }
  return out;
}

void AppendRandomValue(ProtoRng& rng, int wire_type, int depth,
                       std::string* out) {
  switch (wire_type) {
    case 0:
      AppendVarint(rng.Chance(0.5) ? rng.Below(300) : rng.Bits(), out);
      break;
    case 1:
      for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(rng.Bits()));
      break;
    case 5:
      for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(rng.Bits()));
      break;
    case 2: {
      std::string payload;
      if (depth < 2 && rng.Chance(0.3)) {
        payload = RandomWire(rng, depth + 1);  // a nested message
      } else {
        const int64_t n = rng.Below(12);
        for (int64_t i = 0; i < n; ++i) {
          payload.push_back(
              static_cast<char>(rng.Chance(0.5) ? rng.Below(3) : rng.Bits()));
        }
      }
      uint64_t length = payload.size();
      if (rng.Chance(0.05)) length += 1 + rng.Below(3);  // past the end
      if (rng.Chance(0.01)) length = rng.Bits();
      AppendVarint(length, out);
      out->append(payload);
      break;
    }
    default:  // groups and invalid wire types: whatever follows
      if (rng.Chance(0.5)) AppendVarint(rng.Below(200), out);
  }
}

std::string RandomText(ProtoRng& rng) {
  static const char* const kPieces[] = {"float_val: 1.5 ",
                                        "int_val: -3 ",
                                        "int64_val: 9223372036854775807 ",
                                        "bool_val: true ",
                                        "dtype: DT_FLOAT ",
                                        "string_val: \"a\\001\" ",
                                        "tensor_shape { dim { size: 2 } } ",
                                        "uint64_val: 18446744073709551615 ",
                                        "version_number: 4 ",
                                        "half_val: [1, 2] ",
                                        "nope: 1 ",
                                        "int_val: ",
                                        "{",
                                        "float_val: nan ",
                                        "dtype: 12345 "};
  std::string out;
  const int64_t n = rng.Below(5);
  for (int64_t i = 0; i < n; ++i) {
    out += kPieces[rng.Below(std::size(kPieces))];
  }
  return out;
}

std::string Mutate(ProtoRng& rng, std::string s) {
  if (!s.empty() && rng.Chance(0.3)) s.resize(rng.Below(s.size()));
  if (!s.empty() && rng.Chance(0.3)) {
    s[rng.Below(s.size())] = static_cast<char>(rng.Bits());
  }
  return s;
}

AttrValue StringList(const std::vector<std::string>& items) {
  AttrValue v;
  for (const auto& s : items) v.mutable_list()->add_s(s);
  return v;
}

AttrValue TypeList(const std::vector<::tensorweave::DataType>& types) {
  AttrValue v;
  for (auto t : types) v.mutable_list()->add_type(t);
  return v;
}

// A tensor of `dtype` and `dims` with random values (strings: random wire
// bytes).
TensorProto RandomValues(ProtoRng& rng, ::tensorweave::DataType dtype,
                         const std::vector<int64_t>& dims) {
  TensorProto t;
  t.set_dtype(dtype);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.mutable_tensor_shape()->add_dim()->set_size(d);
    n *= d;
  }
  std::string* content = t.mutable_tensor_content();
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DT_STRING) {
      t.add_string_val(Mutate(rng, RandomWire(rng)));
      continue;
    }
    const uint64_t bits = rng.Chance(0.5) ? rng.Below(5) : rng.Bits();
    char bytes[8];
    size_t size = 8;
    if (dtype == DT_FLOAT) {
      float f = rng.Chance(0.8) ? static_cast<float>(rng.Below(100)) / 8
                                : std::numeric_limits<float>::quiet_NaN();
      std::memcpy(bytes, &f, size = 4);
    } else if (dtype == DT_DOUBLE) {
      double d = static_cast<double>(static_cast<int64_t>(bits)) / 3;
      std::memcpy(bytes, &d, 8);
    } else if (dtype == DT_BOOL) {
      bytes[0] = static_cast<char>(bits & 1);
      size = 1;
    } else if (dtype == DT_INT32 || dtype == DT_UINT32) {
      std::memcpy(bytes, &bits, size = 4);
    } else {
      std::memcpy(bytes, &bits, 8);
    }
    content->append(bytes, size);
  }
  return t;
}

NodeDef* FindNode(FuzzCase* c, const std::string& name) {
  for (NodeDef& node : *c->mutable_graph()->mutable_node()) {
    if (node.name() == name) return &node;
  }
  return nullptr;
}

std::string DescriptorSource(ProtoRng& rng) {
  const int64_t r = rng.Below(20);
  if (r < 15) return "local://";
  if (r < 18) {
    google::protobuf::FileDescriptorSet set;
    TensorProto::descriptor()->file()->CopyTo(set.add_file());
    std::string bytes = set.SerializeAsString();
    return "bytes://" + (r == 17 ? Mutate(rng, bytes) : bytes);
  }
  return r == 18 ? "/nonexistent/set.pb" : "bytes://\x08\x01";
}

}  // namespace

bool IsProtoOp(const std::string& op) {
  return op == "DecodeProtoV2" || op == "EncodeProto";
}

void ReshapeProtoCase(uint64_t seed, FuzzCase* c) {
  ProtoRng rng(seed);
  if (rng.Chance(0.1)) return;  // the generic case: hostile attributes
  NodeDef* target = FindNode(c, "target");
  if (target == nullptr) return;
  auto& attrs = *target->mutable_attr();
  attrs["descriptor_source"].set_s(DescriptorSource(rng));
  attrs["message_type"].set_s(rng.Chance(0.95) ? "tensorweave.TensorProto"
                                               : "tensorweave.Nope");
  std::vector<std::string> names;
  std::vector<::tensorweave::DataType> types;
  const int64_t num_fields = 1 + rng.Below(4);
  for (int64_t i = 0; i < num_fields; ++i) {
    const ProtoField& field =
        TensorProtoFields()[rng.Below(TensorProtoFields().size())];
    names.push_back(rng.Chance(0.02) ? "nope" : field.name);
    types.push_back(rng.Chance(0.03)
                        ? DT_HALF
                        : field.dtypes[rng.Below(field.dtypes.size())]);
  }
  attrs["field_names"] = StringList(names);
  if (c->op() == "DecodeProtoV2") {
    attrs["output_types"] = TypeList(types);
    const bool text = rng.Chance(0.2);
    attrs["message_format"].set_s(text ? "text" : "binary");
    attrs["sanitize"].set_b(rng.Chance(0.2));
    // The bytes: a Const or a feed of strings.
    if (target->input_size() > 0) {
      const std::string producer = target->input(0);
      NodeDef* node = FindNode(c, producer);
      TensorProto* value = nullptr;
      if (node != nullptr && node->op() == "Const") {
        value = (*node->mutable_attr())["value"].mutable_tensor();
      } else if (c->feeds().count(producer + ":0")) {
        value = &(*c->mutable_feeds())[producer + ":0"];
      }
      if (value != nullptr && value->dtype() == DT_STRING) {
        for (std::string& s : *value->mutable_string_val()) {
          s = text ? Mutate(rng, RandomText(rng))
                   : Mutate(rng, RandomWire(rng));
        }
      }
    }
    c->clear_fetches();
    c->clear_targets();
    for (int64_t i = 0; i <= num_fields; ++i) {
      c->add_fetches("target:" + std::to_string(i));
    }
    return;
  }
  // EncodeProto: sizes [batch..., F] and values [batch..., width] built here.
  attrs["Tinput_types"] = TypeList(types);
  std::vector<int64_t> batch;
  const int64_t rank = 1 + rng.Below(2);
  for (int64_t i = 0; i < rank; ++i) batch.push_back(rng.Below(4));
  target->clear_input();
  std::vector<int64_t> widths;
  std::vector<TensorProto> values;
  for (int64_t i = 0; i < num_fields; ++i) {
    std::vector<int64_t> dims = batch;
    widths.push_back(rng.Below(4));
    dims.push_back(widths.back());
    if (rng.Chance(0.03)) dims.pop_back();  // not a matrix
    values.push_back(RandomValues(rng, types[i], dims));
  }
  std::vector<int64_t> size_dims = batch;
  size_dims.push_back(rng.Chance(0.97) ? num_fields : num_fields + 1);
  TensorProto sizes;
  sizes.set_dtype(DT_INT32);
  int64_t n = 1;
  for (int64_t d : size_dims) {
    sizes.mutable_tensor_shape()->add_dim()->set_size(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) {
    int32_t size = static_cast<int32_t>(rng.Below(widths[i % num_fields] + 1));
    if (rng.Chance(0.02)) size = rng.Chance(0.5) ? -1 : 1 << 30;
    sizes.mutable_tensor_content()->append(reinterpret_cast<char*>(&size), 4);
  }
  auto add_const = [&](const std::string& name, const TensorProto& value) {
    NodeDef* node = c->mutable_graph()->add_node();
    node->set_name(name);
    node->set_op("Const");
    (*node->mutable_attr())["dtype"].set_type(value.dtype());
    *(*node->mutable_attr())["value"].mutable_tensor() = value;
    target->add_input(name);
  };
  // `target` must stay the last node: add the constants before it.
  const int last = c->graph().node_size() - 1;
  if (c->graph().node(last).name() != "target") return;
  NodeDef saved = *target;
  c->mutable_graph()->mutable_node()->RemoveLast();
  target = &saved;
  add_const("proto_sizes", sizes);
  for (int64_t i = 0; i < num_fields; ++i) {
    add_const("proto_value" + std::to_string(i), values[i]);
  }
  *c->mutable_graph()->add_node() = saved;
  c->clear_fetches();
  c->clear_targets();
  c->add_fetches("target:0");
}

}  // namespace fuzz
}  // namespace tensorweave
