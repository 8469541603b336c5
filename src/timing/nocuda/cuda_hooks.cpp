// Builds against a CPU-only torch: no CUDA device can be timed, so nothing here is ever held.
#include "timing/cuda_hooks.h"

namespace backendbench::timing::cuda {

struct StreamHold::State {};

bool built_with_cuda() { return false; }
int64_t l2_cache_bytes(c10::Device) { return 0; }
StreamHold::StreamHold(c10::Stream, std::chrono::milliseconds) {}
StreamHold::~StreamHold() = default;
void StreamHold::release() {}
bool StreamHold::timed_out() const { return false; }

}  // namespace backendbench::timing::cuda
