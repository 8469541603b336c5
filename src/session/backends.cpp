#include "session/backends.h"

#include <stdexcept>

#include "backends/aten.h"
#include "kernels/directory.h"
#include "kernels/flag_gems.h"
#include "kernels/pregenerated.h"
#include "session/session.h"

namespace backendbench::session {

std::unique_ptr<backends::Backend> make_backend(const backends::BackendSpec& spec) {
  try {
    switch (spec.kind) {
      case backends::BackendKind::aten:
        return std::make_unique<backends::AtenBackend>();
      case backends::BackendKind::directory:
        return std::make_unique<kernels::DirectoryBackend>(spec.ops_directory);
      case backends::BackendKind::pregenerated:
        return std::make_unique<kernels::PregeneratedBackend>(spec.kernels_dir);
      case backends::BackendKind::flag_gems:
        return std::make_unique<kernels::FlagGemsBackend>();
      case backends::BackendKind::llm:
      case backends::BackendKind::llm_relay:
      case backends::BackendKind::kernel_agent:
        break;
    }
  } catch (const std::invalid_argument& e) {
    throw RequestError(e.what());
  }
  throw RequestError("--backend " + std::string(backends::to_string(spec.kind)) +
                     " is not available yet in this build (available: aten, flag_gems, directory, pregenerated)");
}

}  // namespace backendbench::session
