// Reading typed values out of a node's attributes (AttrValue protos), and
// the text form of attribute values used in error messages.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_ATTR_VALUE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_ATTR_VALUE_H_

#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tensorweave {

using AttrMap = google::protobuf::Map<std::string, AttrValue>;

// Each overload reads attr `name` from `attrs`, checking its kind.
Status GetAttr(const AttrMap& attrs, const std::string& name, int64_t* value);
Status GetAttr(const AttrMap& attrs, const std::string& name, int32_t* value);
Status GetAttr(const AttrMap& attrs, const std::string& name, float* value);
Status GetAttr(const AttrMap& attrs, const std::string& name, bool* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::string* value);
Status GetAttr(const AttrMap& attrs, const std::string& name, DataType* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               PartialShape* value);
Status GetAttr(const AttrMap& attrs, const std::string& name, Tensor* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<int64_t>* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<int32_t>* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<float>* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<DataType>* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<std::string>* value);
Status GetAttr(const AttrMap& attrs, const std::string& name,
               std::vector<PartialShape>* value);

// "float32", "[1, 2]", "'SAME'", ... for messages.
std::string AttrValueToString(const AttrValue& value);

// Checks that `value` holds the kind named by `attr_type` ("int",
// "list(type)", ...).
Status CheckAttrKind(const AttrValue& value, const std::string& attr_type);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_ATTR_VALUE_H_
