#include "timing/cuda_hooks.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <ATen/Context.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_profiler_api.h>
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

std::string pci_bus_id(c10::Device device) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, device.index() < 0 ? 0 : device.index()) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return id;
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

struct CapturedCalls::Graph {
  at::cuda::CUDAGraph graph{/*keep_graph=*/true};  // kept to count its nodes before instantiating
};

namespace {

// The first line of an exception's message (c10::Error appends a C++ backtrace).
std::string reason_of(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string what = c10_error ? c10_error->what_without_backtrace() : e.what();
  return what.substr(0, what.find('\n'));
}

// After a capture failed before CUDAGraph::capture_end returned: ends the
// stream's capture if it is still open, clears the (non-sticky) capture error,
// and gives the memory pool back, which the graph object would not do.
void abandon_capture(cudaStream_t stream, c10::DeviceIndex device, c10::MempoolId_t pool) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial != nullptr) cudaGraphDestroy(partial);
  }
  (void)cudaGetLastError();
  try {
    c10::cuda::CUDACachingAllocator::endAllocateToPool(device, pool);
  } catch (const c10::Error&) {
    // capture_end got as far as ending the allocation itself
  }
  c10::cuda::CUDACachingAllocator::releasePool(device, pool);
  // capture_begin put the device's default generator in capture mode and only
  // capture_end takes it out: give the generator a fresh state with the same
  // seed and offset, or every later random input on the device would fail.
  at::Generator generator = at::cuda::detail::getDefaultCUDAGenerator(device);  // shares the impl
  std::lock_guard<std::mutex> lock(generator.mutex());
  auto* impl = generator.get<at::CUDAGeneratorImpl>();
  at::Generator fresh = at::make_generator<at::CUDAGeneratorImpl>(device);
  auto* fresh_impl = fresh.get<at::CUDAGeneratorImpl>();
  fresh_impl->set_current_seed(impl->current_seed());
  fresh_impl->set_offset(impl->get_offset());
  impl->graphsafe_set_state(fresh_impl->graphsafe_get_state());
}

// Swallows warnings (capture_end warns about an empty graph, which error() reports instead).
class QuietWarnings : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

}  // namespace

CapturedCalls::CapturedCalls(c10::Device device, const std::function<void()>& fn, size_t calls) {
  const c10::DeviceIndex index = device.index() < 0 ? c10::cuda::current_device() : device.index();
  c10::cuda::CUDAGuard device_guard(index);
  // Inputs were made on the current stream: let them finish before the side stream reads them.
  c10::cuda::device_synchronize();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, index);
  c10::cuda::CUDAStreamGuard stream_guard(side);
  auto graph = std::make_unique<Graph>();
  const c10::MempoolId_t pool = at::cuda::graph_pool_handle();
  bool capture_ended = false;
  try {
    graph->graph.capture_begin(pool);
    for (size_t i = 0; i < calls; ++i) fn();
    QuietWarnings quiet;
    c10::WarningUtils::WarningHandlerGuard guard(&quiet);
    graph->graph.capture_end();
    capture_ended = true;
    size_t nodes = 0;
    C10_CUDA_CHECK(cudaGraphGetNodes(graph->graph.raw_cuda_graph(), nullptr, &nodes));
    if (nodes == 0) {
      error_ = "the call launched no GPU work that a graph could capture";
      return;
    }
    graph->graph.instantiate();
  } catch (const std::exception& e) {
    error_ = "not capturable in a CUDA graph: " + reason_of(e);
    if (!capture_ended) abandon_capture(side.stream(), index, pool);
    return;
  }
  graph_ = std::move(graph);
}

CapturedCalls::~CapturedCalls() = default;

void CapturedCalls::replay() {
  TORCH_CHECK(graph_ != nullptr, "CapturedCalls::replay without a captured graph: ", error_);
  graph_->graph.replay();
}

struct AllocationsApart::Pool {
  c10::DeviceIndex device;
  c10::MempoolId_t id;
  bool routing = false;
};

namespace allocator = c10::cuda::CUDACachingAllocator;

namespace {
// Pools of objects gone, with blocks that were still in use then.
std::mutex g_pools_left_mutex;
std::vector<c10::MempoolId_t> g_pools_left;
}  // namespace

AllocationsApart::AllocationsApart(c10::Device device) {
  if (!device.is_cuda()) return;
  // Its pools are the caching allocator's, which a process that has not allocated on the device yet has not made.
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
  const c10::DeviceIndex index = device.index() < 0 ? c10::cuda::current_device() : device.index();
  // A fresh pool per object: a pool whose last reference went may not be routed to again (the allocator asserts).
  pool_ = std::make_unique<Pool>(Pool{.device = index, .id = at::cuda::graph_pool_handle()});
  allocator::createOrIncrefPool(index, pool_->id);  // this object's reference, until it goes
  const std::lock_guard<std::mutex> lock(g_pools_left_mutex);
  for (const c10::MempoolId_t& id : g_pools_left) allocator::emptyCache(id);  // their last blocks were freed since
  g_pools_left.clear();
}

AllocationsApart::~AllocationsApart() {
  if (!pool_) return;
  end();
  allocator::releasePool(pool_->device, pool_->id);
  // Unreferenced, the pool's cached blocks go back to the driver now. Blocks still in use (a reference output
  // the caller keeps) would wait for an out-of-memory retry in this process, holding memory other processes on
  // the device may need: the next object gives them back.
  allocator::emptyCache(pool_->id);
  const std::lock_guard<std::mutex> lock(g_pools_left_mutex);
  g_pools_left.push_back(pool_->id);
}

void AllocationsApart::begin() {
  if (!pool_ || pool_->routing) return;
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(pool_->device).stream();
  const std::thread::id thread = std::this_thread::get_id();
  allocator::beginAllocateToPool(pool_->device, pool_->id, [stream, thread](cudaStream_t s) {
    return s == stream && std::this_thread::get_id() == thread;  // not other threads' work, a kernel's included
  });
  pool_->routing = true;
}

void AllocationsApart::end() {
  if (!pool_ || !pool_->routing) return;
  allocator::endAllocateToPool(pool_->device, pool_->id);
  allocator::releasePool(pool_->device, pool_->id);  // begin's reference
  pool_->routing = false;
}

void AllocationsApart::scrub_free_blocks(std::span<AllocationsApart* const> objects) {
  const auto owner = [&](const auto& segment) -> const Pool* {
    for (const AllocationsApart* object : objects) {
      const Pool* pool = object->pool_.get();
      if (pool && segment.device == pool->device && segment.owner_private_pool_id == pool->id) return pool;
    }
    return nullptr;
  };
  for (const auto& segment : allocator::snapshot().segments) {
    const Pool* pool = owner(segment);
    if (!pool) continue;
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(pool->device).stream();
    size_t at = segment.address;
    for (const auto& block : segment.blocks) {
      if (!block.allocated) C10_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<void*>(at), 0xFF, block.size, stream));
      at += block.size;
    }
  }
}

void profiler_start() { C10_CUDA_CHECK(cudaProfilerStart()); }
void profiler_stop() { C10_CUDA_CHECK(cudaProfilerStop()); }

}  // namespace backendbench::timing::cuda
