#include "core/framework/op_def.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "core/framework/tensor_shape.h"

namespace tensorweave {
namespace {

std::string Trim(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of(" \t\n");
  return s.substr(begin, end - begin + 1);
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : s) {
    if (c == ',') {
      parts.push_back(Trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!Trim(current).empty()) parts.push_back(Trim(current));
  return parts;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(c) || c == '_')) return false;
  }
  return true;
}

std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s[0] == '\'' || s[0] == '"') && s.back() == s[0]) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

// Named groups of dtypes usable in "T: {numbertype}".
bool ExpandTypeGroup(const std::string& name, std::vector<DataType>* out) {
  if (name == "numbertype" || name == "realnumbertype") {
    *out = {DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_INT64,  DT_UINT8, DT_INT8,
            DT_INT16, DT_UINT16, DT_UINT32, DT_UINT64, DT_HALF,  DT_BFLOAT16};
    if (name == "numbertype") {
      out->insert(out->end(), {DT_COMPLEX64, DT_COMPLEX128});
    }
  } else if (name == "floattype") {
    *out = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  } else if (name == "inttype") {
    *out = {DT_INT32, DT_INT64};
  } else if (name == "alltypes") {
    *out = AllDataTypes();
  } else {
    return false;
  }
  return true;
}

Status ParseArg(const std::string& spec, const OpDef& op, ArgDef* arg) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    return errors::InvalidArgument("arg spec '", spec, "' has no ':'");
  }
  arg->name = Trim(spec.substr(0, colon));
  std::string type = Trim(spec.substr(colon + 1));
  if (!IsIdentifier(arg->name)) {
    return errors::InvalidArgument("bad arg name in '", spec, "'");
  }
  if (type.rfind("Ref(", 0) == 0 && type.back() == ')') {
    arg->is_ref = true;
    type = Trim(type.substr(4, type.size() - 5));
  }
  size_t star = type.find('*');
  if (star != std::string::npos) {
    arg->number_attr = Trim(type.substr(0, star));
    type = Trim(type.substr(star + 1));
  }
  DataType dtype;
  if (DataTypeFromName(type, &dtype)) {
    arg->type = dtype;
    return Status::OK();
  }
  if (!IsIdentifier(type)) {
    return errors::InvalidArgument("bad type in arg spec '", spec, "'");
  }
  const AttrDef* attr = op.FindAttr(type);
  if (attr != nullptr && attr->type == "list(type)") {
    arg->type_list_attr = type;
  } else {
    arg->type_attr = type;
  }
  return Status::OK();
}

Status ParseDefault(const std::string& text, AttrDef* attr) {
  AttrValue& value = attr->default_value;
  const std::string& type = attr->type;
  if (type == "int") {
    value.set_i(std::strtoll(text.c_str(), nullptr, 10));
  } else if (type == "float") {
    value.set_f(std::strtof(text.c_str(), nullptr));
  } else if (type == "bool") {
    if (text != "true" && text != "false") {
      return errors::InvalidArgument("bad bool default '", text, "'");
    }
    value.set_b(text == "true");
  } else if (type == "string") {
    value.set_s(Unquote(text));
  } else if (type == "type") {
    DataType dtype;
    if (!DataTypeFromName(text, &dtype)) {
      return errors::InvalidArgument("bad type default '", text, "'");
    }
    value.set_type(static_cast<::tensorweave::DataType>(dtype));
  } else if (type == "shape") {
    if (text == "unknown") {
      value.mutable_shape()->set_unknown_rank(true);
    } else {
      if (text.front() != '[' || text.back() != ']') {
        return errors::InvalidArgument("bad shape default '", text, "'");
      }
      auto* shape = value.mutable_shape();
      for (const auto& d : SplitList(text.substr(1, text.size() - 2))) {
        shape->add_dim()->set_size(std::strtoll(d.c_str(), nullptr, 10));
      }
    }
  } else if (type.rfind("list(", 0) == 0) {
    if (text.front() != '[' || text.back() != ']') {
      return errors::InvalidArgument("bad list default '", text, "'");
    }
    auto* list = value.mutable_list();
    for (const auto& item : SplitList(text.substr(1, text.size() - 2))) {
      if (type == "list(int)") {
        list->add_i(std::strtoll(item.c_str(), nullptr, 10));
      } else if (type == "list(float)") {
        list->add_f(std::strtof(item.c_str(), nullptr));
      } else if (type == "list(string)") {
        list->add_s(Unquote(item));
      } else if (type == "list(type)") {
        DataType dtype;
        if (!DataTypeFromName(item, &dtype)) {
          return errors::InvalidArgument("bad type '", item, "'");
        }
        list->add_type(static_cast<::tensorweave::DataType>(dtype));
      } else {
        return errors::InvalidArgument("no defaults for ", type);
      }
    }
  } else {
    return errors::InvalidArgument("no defaults for attr type ", type);
  }
  attr->has_default = true;
  return Status::OK();
}

Status ParseAttr(const std::string& spec, AttrDef* attr) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    return errors::InvalidArgument("attr spec '", spec, "' has no ':'");
  }
  attr->name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(attr->name)) {
    return errors::InvalidArgument("bad attr name in '", spec, "'");
  }
  std::string rest = Trim(spec.substr(colon + 1));
  std::string default_text;
  // The default follows the first '=' that is not part of ">=".
  size_t eq = rest.find('=');
  while (eq != std::string::npos && eq > 0 && rest[eq - 1] == '>') {
    eq = rest.find('=', eq + 1);
  }
  if (eq != std::string::npos) {
    default_text = Trim(rest.substr(eq + 1));
    rest = Trim(rest.substr(0, eq));
  }
  size_t ge = rest.find(">=");
  if (ge != std::string::npos) {
    attr->has_minimum = true;
    attr->minimum = std::strtoll(rest.substr(ge + 2).c_str(), nullptr, 10);
    rest = Trim(rest.substr(0, ge));
  }
  bool is_list = false;
  if (rest.rfind("list(", 0) == 0 && rest.back() == ')') {
    is_list = true;
    rest = Trim(rest.substr(5, rest.size() - 6));
  }
  if (!rest.empty() && rest.front() == '{' && rest.back() == '}') {
    for (const auto& item : SplitList(rest.substr(1, rest.size() - 2))) {
      DataType dtype;
      std::vector<DataType> group;
      if (item[0] == '\'' || item[0] == '"') {
        attr->allowed_strings.push_back(Unquote(item));
      } else if (DataTypeFromName(item, &dtype)) {
        attr->allowed_types.push_back(dtype);
      } else if (ExpandTypeGroup(item, &group)) {
        attr->allowed_types.insert(attr->allowed_types.end(), group.begin(),
                                   group.end());
      } else {
        return errors::InvalidArgument("bad allowed value '", item, "' in '",
                                       spec, "'");
      }
    }
    rest = attr->allowed_strings.empty() ? "type" : "string";
  }
  static const char* kTypes[] = {"int",  "float", "bool",   "string",
                                 "type", "shape", "tensor", "func"};
  bool known = false;
  for (const char* t : kTypes) known = known || rest == t;
  if (!known) {
    return errors::InvalidArgument("unknown attr type '", rest, "' in '", spec,
                                   "'");
  }
  attr->type = is_list ? "list(" + rest + ")" : rest;
  if (!default_text.empty()) {
    Status s = ParseDefault(default_text, attr);
    if (!s.ok()) return s.WithContext("attr spec '" + spec + "'");
  }
  return Status::OK();
}

}  // namespace

const AttrDef* OpDef::FindAttr(const std::string& attr_name) const {
  for (const auto& attr : attrs) {
    if (attr.name == attr_name) return &attr;
  }
  return nullptr;
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();
  return registry;
}

Status OpRegistry::Register(OpDef op_def) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ops_.count(op_def.name)) {
    return errors::AlreadyExists("op '", op_def.name,
                                 "' is already registered");
  }
  std::string name = op_def.name;
  ops_[name] = std::make_unique<OpDef>(std::move(op_def));
  return Status::OK();
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

Status OpRegistry::LookUp(const std::string& name, const OpDef** op_def) const {
  *op_def = Find(name);
  if (*op_def == nullptr) {
    return errors::NotFound("Op type not registered '", name, "'");
  }
  return Status::OK();
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& entry : ops_) names.push_back(entry.first);
  return names;
}

OpDefBuilder::OpDefBuilder(std::string name) { op_def_.name = std::move(name); }

OpDefBuilder& OpDefBuilder::Input(const std::string& spec) {
  input_specs_.push_back(spec);
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(const std::string& spec) {
  output_specs_.push_back(spec);
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(const std::string& spec) {
  attr_specs_.push_back(spec);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsStateful() {
  op_def_.is_stateful = true;
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  op_def_.shape_fn = std::move(fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::Doc(std::string doc) {
  op_def_.doc = std::move(doc);
  return *this;
}

Status OpDefBuilder::Finalize(OpDef* op_def) const {
  *op_def = op_def_;
  for (const auto& spec : attr_specs_) {
    AttrDef attr;
    TW_RETURN_IF_ERROR(ParseAttr(spec, &attr));
    op_def->attrs.push_back(std::move(attr));
  }
  auto parse_args = [&](const std::vector<std::string>& specs,
                        std::vector<ArgDef>* args) -> Status {
    for (const auto& spec : specs) {
      ArgDef arg;
      TW_RETURN_IF_ERROR(ParseArg(spec, *op_def, &arg));
      for (const std::string* ref :
           {&arg.type_attr, &arg.number_attr, &arg.type_list_attr}) {
        if (!ref->empty() && op_def->FindAttr(*ref) == nullptr) {
          return errors::InvalidArgument(
              "arg '", spec, "' refers to undeclared attr '", *ref, "'");
        }
      }
      args->push_back(std::move(arg));
    }
    return Status::OK();
  };
  TW_RETURN_IF_ERROR(parse_args(input_specs_, &op_def->inputs));
  TW_RETURN_IF_ERROR(parse_args(output_specs_, &op_def->outputs));
  if (!op_def->shape_fn) {
    return errors::InvalidArgument("op '", op_def->name,
                                   "' has no shape function");
  }
  return Status::OK();
}

OpRegistrar::OpRegistrar(const OpDefBuilder& builder) {
  OpDef op_def;
  Status s = builder.Finalize(&op_def);
  if (s.ok()) s = OpRegistry::Global()->Register(std::move(op_def));
  if (!s.ok()) {
    std::fprintf(stderr, "tensorweave: bad op definition: %s\n",
                 s.ToString().c_str());
    std::abort();
  }
}

}  // namespace tensorweave
