#include <stdexcept>

#include "backends/aten.h"
#include "backends/backend.h"

namespace backendbench::backends {

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"aten", "flag_gems", "directory", "pregenerated",
                                              "llm", "llm-relay", "kernel_agent"};
  return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "aten") return std::make_unique<AtenBackend>();
  throw std::invalid_argument("--backend " + name +
                              " is not available yet in this build (available: aten)");
}

}  // namespace backendbench::backends
