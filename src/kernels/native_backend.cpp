#include "kernels/native_backend.h"

#include "backends/kernel_error.h"
#include "kernels/directory.h"
#include "util/log.h"

namespace backendbench::kernels {

backends::KernelLanguage language_of_file(const std::filesystem::path& source) {
  const auto extension = source.extension();
  if (extension == ".cu") return backends::KernelLanguage::cuda;
  if (extension == ".py") return backends::KernelLanguage::python;
  return backends::KernelLanguage::cpp;
}

backends::Kernel NativeKernelBackend::kernel_for(const c10::OperatorHandle& op) {
  const std::string folder = folder_name(op);
  if (auto it = loaded_.find(folder); it != loaded_.end()) return it->second;
  LoadedKernel found = find_kernel(op);
  backends::Kernel kernel;
  if (found.kernel) {
    BB_LOG(info) << name() << " backend: " << folder << " from " << found.source.string();
    kernel = std::move(found.kernel);
  } else if (!found.error.empty()) {
    BB_LOG(warning) << name() << " backend: " << found.error;
    failures_[folder] = found.error;
    kernel = backends::Kernel(
        [message = found.error, type = found.error_type, traceback = found.traceback](torch::jit::Stack&) {
          throw backends::KernelUnusable(type, message, traceback);
        },
        language_of_file(found.source), found.source);
  }
  loaded_[folder] = kernel;
  return kernel;
}

}  // namespace backendbench::kernels
