// The kernel overrides as operators, for Python (python/backendbench wraps them):
//   torch.ops.load_library("build/libbackendbench_override.so")
//   failures = torch.ops.backendbench_override.enable("generated_kernels", "cuda")
//   ...  # run the model: its ATen calls reach the kernels
//   torch.ops.backendbench_override.call_counts()   # {"aten::relu": 17, ...}
//   torch.ops.backendbench_override.disable()
// Loading the library with $BACKENDBENCH_KERNELS_DIR set enables that
// directory at once, for $BACKENDBENCH_KERNELS_DEVICE (cpu or cuda; default
// cuda when this torch sees a GPU, else cpu), so unmodified scripts run on it.

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <ATen/Context.h>
#include <torch/library.h>

#include "override/kernel_overrides.h"
#include "util/crash_backtrace.h"
#include "util/log.h"

namespace backendbench::overrides {
namespace {

template <typename Value>
c10::Dict<std::string, Value> to_dict(const std::map<std::string, Value>& map) {
  c10::Dict<std::string, Value> dict;
  for (const auto& [key, value] : map) dict.insert(key, value);
  return dict;
}

// Failures by kernel folder. Bad arguments reach Python as ValueError.
c10::Dict<std::string, std::string> enable(const std::string& kernel_dir, const std::string& device) {
  try {
    return to_dict(process_overrides().enable(kernel_dir, dispatch_key_for(device)).failures);
  } catch (const std::invalid_argument& e) {
    C10_THROW_ERROR(ValueError, e.what());
  }
}

void log_report(const std::string& kernel_dir, const std::string& device, const EnableReport& report) {
  BB_LOG(info) << "backendbench_override: " << report.overridden.size() << " operators run on the kernels of "
               << kernel_dir << " (" << device << ")";
  for (const auto& [op, source] : report.overridden) BB_LOG(info) << "  " << op << ": " << source;
  for (const auto& [folder, why] : report.failures) BB_LOG(warning) << "  skipped " << folder << ": " << why;
}

// $BACKENDBENCH_KERNELS_DIR at load time. Never throws: a failure here would fail the load.
bool enable_from_environment() {
  const char* dir = std::getenv("BACKENDBENCH_KERNELS_DIR");
  if (!dir || !*dir) return false;
  const char* device_env = std::getenv("BACKENDBENCH_KERNELS_DEVICE");
  const std::string device = device_env && *device_env ? device_env : at::hasCUDA() ? "cuda" : "cpu";
  try {
    log_report(dir, device, process_overrides().enable(dir, dispatch_key_for(device)));
    return true;
  } catch (const std::exception& e) {
    BB_LOG(error) << "backendbench_override: $BACKENDBENCH_KERNELS_DIR=" << dir << " not enabled: " << e.what();
    return false;
  }
}

// A crash inside the Python process can print the native call stack.
[[maybe_unused]] const bool backtrace_on_crash = util::install_crash_backtrace_from_env();


}  // namespace

TORCH_LIBRARY(backendbench_override, m) {
  m.def("enable(str kernel_dir, str device) -> Dict(str, str)", &enable);
  m.def("disable() -> ()", [] { process_overrides().disable(); });
  m.def("overridden() -> Dict(str, str)", [] { return to_dict(process_overrides().overridden()); });
  m.def("call_counts() -> Dict(str, int)", [] { return to_dict(process_overrides().call_counts()); });
}

// After the operators above: at load, in this order.
[[maybe_unused]] const bool enabled_from_environment = enable_from_environment();

}  // namespace backendbench::overrides
