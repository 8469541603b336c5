#include "ops/resolve.h"

#include <algorithm>
#include <vector>

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
  if (out.ns == "aten" && out.name == "sum" && out.overload == "SymInt") out.overload = "dim_IntList";
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
  std::string message = "unknown operator " + name.dotted();
  const auto overloads = overloads_of(name);
  if (overloads.empty()) {
    message += ": no operator " + name.ns + "::" + name.name + " is registered with the dispatcher";
  } else {
    message += ": " + name.ns + "::" + name.name + " has the overloads";
    for (const auto& o : overloads) message += " " + o;
  }
  return ResolveError{message};
}

}  // namespace backendbench::ops
