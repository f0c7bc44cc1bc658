#include "core/framework/attr_value.h"

#include <sstream>

namespace tensorweave {
namespace {

Status Find(const AttrMap& attrs, const std::string& name,
            AttrValue::ValueCase kind, const char* kind_name,
            const AttrValue** value) {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    return errors::InvalidArgument("missing attr '", name, "'");
  }
  if (it->second.value_case() != kind) {
    return errors::InvalidArgument("attr '", name, "' is ",
                                   AttrValueToString(it->second), ", expected ",
                                   kind_name);
  }
  *value = &it->second;
  return Status::OK();
}

Status FindList(const AttrMap& attrs, const std::string& name,
                const AttrValue::ListValue** list) {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    return errors::InvalidArgument("missing attr '", name, "'");
  }
  if (it->second.value_case() != AttrValue::kList &&
      it->second.value_case() != AttrValue::VALUE_NOT_SET) {
    return errors::InvalidArgument("attr '", name, "' is ",
                                   AttrValueToString(it->second),
                                   ", expected a list");
  }
  *list = &it->second.list();
  return Status::OK();
}

}  // namespace

Status GetAttr(const AttrMap& attrs, const std::string& name, int64_t* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kI, "int", &v));
  *value = v->i();
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name, int32_t* value) {
  int64_t v;
  TW_RETURN_IF_ERROR(GetAttr(attrs, name, &v));
  if (v < INT32_MIN || v > INT32_MAX) {
    return errors::InvalidArgument("attr '", name, "' value ", v,
                                   " does not fit in int32");
  }
  *value = static_cast<int32_t>(v);
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name, float* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kF, "float", &v));
  *value = v->f();
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name, bool* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kB, "bool", &v));
  *value = v->b();
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::string* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kS, "string", &v));
  *value = v->s();
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name, DataType* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kType, "type", &v));
  *value = static_cast<DataType>(v->type());
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               PartialShape* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kShape, "shape", &v));
  return PartialShape::FromProto(v->shape(), value);
}

Status GetAttr(const AttrMap& attrs, const std::string& name, Tensor* value) {
  const AttrValue* v;
  TW_RETURN_IF_ERROR(Find(attrs, name, AttrValue::kTensor, "tensor", &v));
  return Tensor::FromProto(v->tensor(), value);
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<int64_t>* value) {
  const AttrValue::ListValue* list;
  TW_RETURN_IF_ERROR(FindList(attrs, name, &list));
  value->assign(list->i().begin(), list->i().end());
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<int32_t>* value) {
  std::vector<int64_t> wide;
  TW_RETURN_IF_ERROR(GetAttr(attrs, name, &wide));
  value->assign(wide.begin(), wide.end());
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<float>* value) {
  const AttrValue::ListValue* list;
  TW_RETURN_IF_ERROR(FindList(attrs, name, &list));
  value->assign(list->f().begin(), list->f().end());
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<DataType>* value) {
  const AttrValue::ListValue* list;
  TW_RETURN_IF_ERROR(FindList(attrs, name, &list));
  value->clear();
  for (int t : list->type()) value->push_back(static_cast<DataType>(t));
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<std::string>* value) {
  const AttrValue::ListValue* list;
  TW_RETURN_IF_ERROR(FindList(attrs, name, &list));
  value->assign(list->s().begin(), list->s().end());
  return Status::OK();
}

Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<PartialShape>* value) {
  const AttrValue::ListValue* list;
  TW_RETURN_IF_ERROR(FindList(attrs, name, &list));
  value->clear();
  for (const auto& proto : list->shape()) {
    PartialShape shape;
    TW_RETURN_IF_ERROR(PartialShape::FromProto(proto, &shape));
    value->push_back(shape);
  }
  return Status::OK();
}

std::string AttrValueToString(const AttrValue& value) {
  std::ostringstream out;
  auto join = [&out](const auto& items, auto&& show) {
    out << "[";
    bool first = true;
    for (const auto& item : items) {
      if (!first) out << ", ";
      first = false;
      show(item);
    }
    out << "]";
  };
  switch (value.value_case()) {
    case AttrValue::kS:
      out << "'" << value.s() << "'";
      break;
    case AttrValue::kI:
      out << value.i();
      break;
    case AttrValue::kF:
      out << value.f();
      break;
    case AttrValue::kB:
      out << (value.b() ? "true" : "false");
      break;
    case AttrValue::kType:
      out << DataTypeName(static_cast<DataType>(value.type()));
      break;
    case AttrValue::kShape: {
      PartialShape shape;
      if (PartialShape::FromProto(value.shape(), &shape).ok()) {
        out << shape.ToString();
      } else {
        out << "<invalid shape>";
      }
      break;
    }
    case AttrValue::kTensor: {
      // Printing decodes the values only of a small tensor: a proto's shape
      // (a hostile one's too) may ask for gigabytes from a single value.
      constexpr int64_t kMaxDecodedElements = int64_t{1} << 16;
      const TensorProto& proto = value.tensor();
      PartialShape shape;
      int64_t count = -1;
      if (PartialShape::FromProto(proto.tensor_shape(), &shape).ok() &&
          shape.IsFullyDefined() && !NumElementsOf(shape.dims(), &count).ok()) {
        count = -1;
      }
      Tensor tensor;
      if (count < 0 || !IsValidDataType(proto.dtype())) {
        out << "<invalid tensor>";
      } else if (count > kMaxDecodedElements) {
        out << "Tensor<" << DataTypeName(static_cast<DataType>(proto.dtype()))
            << " " << shape.ToString() << "> [...]";
      } else if (Tensor::FromProto(proto, &tensor).ok()) {
        out << tensor.DebugString();
      } else {
        out << "<invalid tensor>";
      }
      break;
    }
    case AttrValue::kList: {
      const auto& list = value.list();
      if (list.type_size() > 0) {
        join(list.type(),
             [&](int t) { out << DataTypeName(static_cast<DataType>(t)); });
      } else if (list.s_size() > 0) {
        join(list.s(), [&](const std::string& s) { out << "'" << s << "'"; });
      } else if (list.f_size() > 0) {
        join(list.f(), [&](float f) { out << f; });
      } else if (list.b_size() > 0) {
        join(list.b(), [&](bool b) { out << (b ? "true" : "false"); });
      } else if (list.shape_size() > 0) {
        join(list.shape(), [&](const TensorShapeProto& s) {
          PartialShape shape;
          if (PartialShape::FromProto(s, &shape).ok()) out << shape.ToString();
        });
      } else {
        join(list.i(), [&](int64_t i) { out << i; });
      }
      break;
    }
    case AttrValue::kFunc:
      out << "func " << value.func().name();
      break;
    case AttrValue::kPlaceholder:
      out << "$" << value.placeholder();
      break;
    case AttrValue::VALUE_NOT_SET:
      out << "<unset>";
      break;
  }
  return out.str();
}

Status CheckAttrKind(const AttrValue& value, const std::string& attr_type) {
  AttrValue::ValueCase expected;
  if (attr_type.rfind("list(", 0) == 0) {
    // An empty list may arrive as an unset value (proto3 has no presence).
    if (value.value_case() == AttrValue::kList ||
        value.value_case() == AttrValue::VALUE_NOT_SET) {
      return Status::OK();
    }
    expected = AttrValue::kList;
  } else if (attr_type == "int") {
    expected = AttrValue::kI;
  } else if (attr_type == "float") {
    expected = AttrValue::kF;
  } else if (attr_type == "bool") {
    expected = AttrValue::kB;
  } else if (attr_type == "string") {
    expected = AttrValue::kS;
  } else if (attr_type == "type") {
    expected = AttrValue::kType;
  } else if (attr_type == "shape") {
    expected = AttrValue::kShape;
  } else if (attr_type == "tensor") {
    expected = AttrValue::kTensor;
  } else if (attr_type == "func") {
    expected = AttrValue::kFunc;
  } else {
    return errors::Internal("unknown attr type '", attr_type, "'");
  }
  if (value.value_case() != expected) {
    return errors::InvalidArgument("value ", AttrValueToString(value),
                                   " is not of attr type ", attr_type);
  }
  return Status::OK();
}

}  // namespace tensorweave
