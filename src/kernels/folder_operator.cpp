#include "kernels/folder_operator.h"

#include <vector>

#include "kernels/directory.h"

namespace backendbench::kernels {

FolderOperator operator_for_folder(const std::string& folder) {
  // The whole name as a default overload, then name__overload at every "__".
  std::vector<c10::OperatorName> candidates{{"aten::" + folder, ""}};
  for (size_t at = folder.find("__", 1); at != std::string::npos; at = folder.find("__", at + 1)) {
    if (at + 2 < folder.size()) candidates.push_back({"aten::" + folder.substr(0, at), folder.substr(at + 2)});
  }
  std::vector<c10::OperatorHandle> found;
  for (auto name : candidates) {
    if (name.overload_name == "default") name.overload_name = "";  // BackendBench's "relu__default"
    auto handle = c10::Dispatcher::singleton().findSchema(name);
    // The round trip rules out spellings folder_name never writes (the bare name
    // of an operator with overloads names none of them).
    const bool spelled = handle && (folder_name(*handle) == folder ||
                                    (handle->schema().overload_name().empty() && folder.ends_with("__default")));
    if (spelled) found.push_back(*handle);
  }
  FolderOperator result;
  if (found.size() == 1) {
    result.op = found.front();
  } else if (found.empty()) {
    result.error = "folder " + folder + " names no ATen operator (expected <name> or <name>__<overload>)";
  } else {
    result.error = "folder " + folder + " names several ATen operators:";
    for (const auto& op : found) result.error += " " + c10::toString(op.operator_name());
  }
  return result;
}

}  // namespace backendbench::kernels
