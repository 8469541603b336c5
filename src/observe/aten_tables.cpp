#include "observe/aten_tables.h"

#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <ATen/core/dispatch/Dispatcher.h>

namespace backendbench::observe {
namespace {

// A computed table's entries for one device: key ("CPU", "AutogradCPU") -> what serves it.
using Entries = std::map<std::string, std::string>;

std::string key_of(const c10::OperatorName& op) { return op.name + "." + op.overload_name; }

Entries device_entries(const c10::OperatorHandle& op, c10::DeviceType device) {
  const std::string backend = c10::DeviceTypeName(device, /*lower_case=*/false);
  std::istringstream table(op.dumpComputedTable());
  Entries entries;
  for (std::string line; std::getline(table, line);) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    if (key == backend || key == "Autograd" + backend) entries[key] = line.substr(colon + 2);
  }
  return entries;
}

// A generic fallback serves every operator: one there is no kernel of the operator's own.
bool own_kernel(const std::string& served_by) { return served_by.find("[backend fallback]") == std::string::npos; }

struct Snapshot {
  std::mutex mutex;
  bool taken = false;
  std::unordered_map<std::string, std::unordered_map<int, Entries>> entries;  // operator -> device -> entries
};

Snapshot& snapshot() {
  static Snapshot* s = new Snapshot;
  return *s;
}

constexpr c10::DeviceType kDevices[] = {c10::DeviceType::CPU, c10::DeviceType::CUDA};

}  // namespace

void remember_aten_kernels() {
  Snapshot& s = snapshot();
  const std::lock_guard lock(s.mutex);
  if (s.taken) return;
  s.taken = true;
  for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
    if (!name.name.starts_with("aten::")) continue;
    const auto op = c10::Dispatcher::singleton().findOp(name);
    if (!op) continue;
    auto& per_device = s.entries[key_of(name)];
    for (c10::DeviceType d : kDevices) per_device[static_cast<int>(d)] = device_entries(*op, d);
  }
}

std::vector<std::string> replaced_aten_kernels(c10::DeviceType device, const std::vector<c10::OperatorName>& ops) {
  Snapshot& s = snapshot();
  const std::lock_guard lock(s.mutex);
  std::vector<std::string> replaced;
  if (!s.taken) return replaced;
  // Over every operator, only kernels that replaced one of ATen's count: importing torch's Python side (which
  // a Python kernel does) adds kernels where ATen had none (aten::get_gradients, from libtorch_python).
  const bool additions = !ops.empty();
  const auto check = [&](const c10::OperatorName& name) {
    const auto remembered = s.entries.find(key_of(name));
    if (remembered == s.entries.end()) return;  // an operator registered since: not one of ATen's
    const auto op = c10::Dispatcher::singleton().findOp(name);
    if (!op) return;
    const Entries& before = remembered->second[static_cast<int>(device)];
    for (const auto& [key, served_by] : device_entries(*op, device)) {
      const auto was = before.find(key);
      const bool had_own = was != before.end() && own_kernel(was->second);
      if (had_own ? was->second == served_by : !additions || !own_kernel(served_by)) continue;
      replaced.push_back(name.name + (name.overload_name.empty() ? "" : "." + name.overload_name) + " (" + key + ": " +
                         served_by + ")");
      return;
    }
  };
  if (ops.empty()) {
    for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
      if (name.name.starts_with("aten::")) check(name);
    }
  } else {
    for (const c10::OperatorName& name : ops) check(name);
  }
  return replaced;
}

}  // namespace backendbench::observe
