// Builds against a CPU-only torch: no CUDA device can be timed, so nothing here is ever held.
#include "timing/cuda_hooks.h"

#include <stdexcept>

namespace backendbench::timing::cuda {

struct StreamHold::State {};

bool built_with_cuda() { return false; }
int64_t l2_cache_bytes(c10::Device) { return 0; }
std::string pci_bus_id(c10::Device) { return ""; }
StreamHold::StreamHold(c10::Stream, std::chrono::milliseconds) {}
StreamHold::~StreamHold() = default;
void StreamHold::release() {}
bool StreamHold::timed_out() const { return false; }

struct CapturedCalls::Graph {};
CapturedCalls::CapturedCalls(c10::Device, const std::function<void()>&, size_t)
    : error_("CUDA graphs need a build against torch with CUDA") {}
CapturedCalls::~CapturedCalls() = default;
void CapturedCalls::replay() { throw std::logic_error("CapturedCalls::replay: " + error_); }

struct AllocationsApart::Pool {};
AllocationsApart::AllocationsApart(c10::Device) {}
AllocationsApart::~AllocationsApart() = default;
void AllocationsApart::begin() {}
void AllocationsApart::end() {}
void AllocationsApart::scrub_free_blocks(std::span<AllocationsApart* const>) {}

void profiler_start() {}
void profiler_stop() {}

}  // namespace backendbench::timing::cuda
