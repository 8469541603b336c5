#include "timing/cuda_hooks.h"

#include <atomic>
#include <thread>

#include <cuda_runtime_api.h>

namespace backendbench::timing::cuda {

struct StreamHold::State {
  std::atomic<bool> released{false};
  std::atomic<bool> timed_out{false};
  std::chrono::milliseconds timeout{0};
};

namespace {

// Runs on a CUDA driver thread when the stream reaches it; the stream waits for it to return.
void CUDART_CB hold_until_released(void* data) {
  auto* state = static_cast<std::shared_ptr<StreamHold::State>*>(data);
  const auto deadline = std::chrono::steady_clock::now() + (*state)->timeout;
  while (!(*state)->released.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > deadline) {
      (*state)->timed_out = true;
      break;
    }
    std::this_thread::yield();
  }
  delete state;
}

}  // namespace

bool built_with_cuda() { return true; }

int64_t l2_cache_bytes(c10::Device device) {
  int bytes = 0;
  if (cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device.index() < 0 ? 0 : device.index()) != cudaSuccess) {
    return 0;
  }
  return bytes;
}

StreamHold::StreamHold(c10::Stream stream, std::chrono::milliseconds timeout) : state_(std::make_shared<State>()) {
  state_->timeout = timeout;
  auto* handle = new std::shared_ptr<State>(state_);  // the host function owns one reference
  const auto raw = reinterpret_cast<cudaStream_t>(stream.native_handle());
  if (cudaLaunchHostFunc(raw, hold_until_released, handle) != cudaSuccess) {
    delete handle;
    state_->released = true;
  }
}

StreamHold::~StreamHold() { release(); }

void StreamHold::release() { state_->released.store(true, std::memory_order_release); }

bool StreamHold::timed_out() const { return state_->timed_out.load(); }

}  // namespace backendbench::timing::cuda
