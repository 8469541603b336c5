#include "ops/resolve.h"

#include <algorithm>
#include <vector>

#include <torch/version.h>

#include "util/text.h"

namespace backendbench::ops {

std::string OperatorName::dotted() const {
  return ns + "." + name + "." + (overload.empty() ? "default" : overload);
}

std::string OperatorName::short_name() const {
  return name + "." + (overload.empty() ? "default" : overload);
}

std::string OperatorName::qualified() const {
  return ns + "::" + name + (overload.empty() ? "" : "." + overload);
}

OperatorName parse_operator_name(std::string_view text) {
  OperatorName out;
  std::string s(text);
  if (auto colons = s.find("::"); colons != std::string::npos) {
    out.ns = s.substr(0, colons);
    s = s.substr(colons + 2);
  } else if (auto dot = s.find('.'); dot != std::string::npos) {
    // "aten.add.Tensor" carries its namespace; "add.Tensor" does not.
    const std::string head = s.substr(0, dot);
    const bool has_namespace = std::count(s.begin(), s.end(), '.') >= 2 || head == "aten";
    if (has_namespace) {
      out.ns = head;
      s = s.substr(dot + 1);
    }
  }
  if (auto dot = s.find('.'); dot != std::string::npos) {
    out.name = s.substr(0, dot);
    out.overload = s.substr(dot + 1);
  } else {
    out.name = s;
  }
  if (out.overload == "default") out.overload.clear();
  return out;
}

namespace {
std::vector<std::string> overloads_of(const OperatorName& name) {
  std::vector<std::string> found;
  const std::string qualified = name.ns + "::" + name.name;
  for (const auto& op : c10::Dispatcher::singleton().getAllOpNames()) {
    if (op.name == qualified) found.push_back(op.overload_name.empty() ? "default" : op.overload_name);
  }
  std::sort(found.begin(), found.end());
  return found;
}
}  // namespace

std::variant<c10::OperatorHandle, ResolveError> resolve(const OperatorName& name) {
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

std::optional<std::string> unavailable_reason(const OperatorName& name) {
  const auto resolved = resolve(name);
  const auto* error = std::get_if<ResolveError>(&resolved);
  if (!error) return std::nullopt;
  return "not an operator of torch " + torch_release() + " (" + error->message + ")";
}

}  // namespace backendbench::ops
