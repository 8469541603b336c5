#include "results/operator_name.h"

#include <algorithm>

namespace backendbench::results {

std::string OperatorName::dotted() const {
  return ns + "." + name + "." + (overload.empty() ? "default" : overload);
}

std::string OperatorName::short_name() const {
  return name + "." + (overload.empty() ? "default" : overload);
}

std::string OperatorName::qualified() const {
  return ns + "::" + name + (overload.empty() ? "" : "." + overload);
}

std::string OperatorName::folder() const { return overload.empty() ? name : name + "__" + overload; }

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

}  // namespace backendbench::results
