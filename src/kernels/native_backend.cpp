#include "kernels/native_backend.h"

#include <stdexcept>

#include "kernels/directory.h"
#include "util/log.h"

namespace backendbench::kernels {

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
    kernel = backends::Kernel([message = found.error](torch::jit::Stack&) { throw std::runtime_error(message); },
                              found.source.extension() == ".cu" ? backends::KernelLanguage::cuda
                                                                : backends::KernelLanguage::cpp,
                              found.source);
  }
  loaded_[folder] = kernel;
  return kernel;
}

}  // namespace backendbench::kernels
