// The backend registry: which backend each kind makes. Here, above both the
// backend interface (backends/) and the kernel backends (kernels/), so that
// neither has to know the other.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace backendbench::session {

// Throws RequestError for a backend this build cannot make, or whose folder is missing.
std::unique_ptr<backends::Backend> make_backend(const backends::BackendSpec& spec);

}  // namespace backendbench::session
