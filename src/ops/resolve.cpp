#include "ops/resolve.h"

#include <algorithm>
#include <vector>

#include <torch/version.h>

#include "util/text.h"

namespace backendbench::ops {

namespace {
std::vector<std::string> overloads_of(const results::OperatorName& name) {
  std::vector<std::string> found;
  const std::string qualified = name.ns + "::" + name.name;
  for (const auto& op : c10::Dispatcher::singleton().getAllOpNames()) {
    if (op.name == qualified) found.push_back(op.overload_name.empty() ? "default" : op.overload_name);
  }
  std::sort(found.begin(), found.end());
  return found;
}
}  // namespace

results::OperatorName name_of(const c10::OperatorHandle& op) {
  const std::string& full = op.schema().name();  // "aten::add"
  const size_t colons = full.find("::");
  const std::string& overload = op.schema().overload_name();
  return {.ns = colons == std::string::npos ? "aten" : full.substr(0, colons),
          .name = colons == std::string::npos ? full : full.substr(colons + 2),
          .overload = overload == "default" ? "" : overload};
}

std::variant<c10::OperatorHandle, ResolveError> resolve(const results::OperatorName& name) {
  if (name.name.empty()) return ResolveError{"empty operator name"};
  auto handle =
      c10::Dispatcher::singleton().findSchema({name.ns + "::" + name.name, name.overload});
  if (handle) return *handle;
  const std::string base = util::printable(name.ns + "::" + name.name);
  std::string message = "unknown operator " + util::printable(name.dotted());
  const auto overloads = overloads_of(name);
  if (overloads.empty()) {
    message += ": no operator " + base + " is registered with the dispatcher";
  } else {
    message += ": " + base + " has the overloads";
    for (const auto& o : overloads) message += " " + o;
  }
  return ResolveError{message};
}

std::string torch_release() { return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR); }

std::optional<std::string> unavailable_reason(const results::OperatorName& name) {
  const auto resolved = resolve(name);
  const auto* error = std::get_if<ResolveError>(&resolved);
  if (!error) return std::nullopt;
  return "not an operator of torch " + torch_release() + " (" + error->message + ")";
}

}  // namespace backendbench::ops
