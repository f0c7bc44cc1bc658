#include "core/fuzz/case_runner.h"

#include <google/protobuf/text_format.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "core/framework/graph.h"
#include "core/framework/tensor.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace fuzz {

CaseResult RunCase(const FuzzCase& fuzz_case) {
  CaseResult result;
  auto graph = std::make_shared<Graph>();
  std::vector<Node*> added;
  result.status = graph->ImportGraphDef(fuzz_case.graph(), {}, &added);
  if (!result.status.ok()) return result;  // kGraphError
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = 2;
  Session session(graph, options);
  std::vector<Tensor> outputs;
  for (const std::string& init : fuzz_case.init_targets()) {
    session.Run({}, {}, {init}, &outputs).ok();  // errors are part of the case
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, proto] : fuzz_case.feeds()) {
    Tensor value;
    // A feed the generator made unreadable on purpose stays unfed.
    if (Tensor::FromProto(proto, &value).ok()) feeds.emplace_back(name, value);
  }
  std::vector<std::string> fetches(fuzz_case.fetches().begin(),
                                   fuzz_case.fetches().end());
  std::vector<std::string> targets(fuzz_case.targets().begin(),
                                   fuzz_case.targets().end());
  result.status = session.Run(feeds, fetches, targets, &outputs);
  if (!result.status.ok()) {
    result.kind = CaseResult::kRunError;
    // Named: "[[node x (op: ...)]]" from the executor, or 'x' / 'x:0'
    // quoted by the session (an unfed placeholder, a bad feed).
    const std::string& message = result.status.message();
    result.error_names_no_node = true;
    for (const NodeDef& node : fuzz_case.graph().node()) {
      if (message.find("[[node " + node.name() + " ") != std::string::npos ||
          message.find("'" + node.name() + "'") != std::string::npos ||
          message.find("'" + node.name() + ":") != std::string::npos) {
        result.error_names_no_node = false;
        break;
      }
    }
    return result;
  }
  result.kind = CaseResult::kOk;
  Node* target = graph->FindNode("target");
  for (size_t i = 0; i < outputs.size() && target != nullptr; ++i) {
    int index = static_cast<int>(i);
    if (index >= target->num_outputs()) break;
    const Tensor& out = outputs[i];
    std::ostringstream problem;
    if (out.dtype() != target->output_type(index)) {
      problem << "output " << index << " has dtype "
              << DataTypeName(out.dtype()) << ", the graph says "
              << DataTypeName(target->output_type(index));
    } else if (!target->output_shape(index).IsCompatibleWith(out.shape())) {
      problem << "output " << index << " has shape " << out.shape().ToString()
              << ", the shape function inferred "
              << target->output_shape(index).ToString();
    }
    if (!problem.str().empty()) {
      result.inconsistency = problem.str();
      break;
    }
  }
  return result;
}

Status ReadCase(const std::string& path, FuzzCase* fuzz_case) {
  std::ifstream in(path);
  if (!in) return errors::NotFound("cannot read ", path);
  std::stringstream text;
  text << in.rdbuf();
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), fuzz_case)) {
    return errors::InvalidArgument(path, " is not a FuzzCase in text format");
  }
  return Status::OK();
}

Status WriteCase(const std::string& path, const FuzzCase& fuzz_case) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(fuzz_case, &text);
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) return errors::Unavailable("cannot write ", path);
  return Status::OK();
}

}  // namespace fuzz
}  // namespace tensorweave
