// CUPTI's activity records for timing/gpu_activity.h. libcupti is loaded at
// run time (timing/cupti_library.h) and its functions looked up here; records
// arrive in buffers that CUPTI hands back (on any thread) and are kept in one
// process-wide store until a window collects them.
#include "timing/gpu_activity.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <span>
#include <unordered_set>

#include <cupti.h>
#include <cuda_runtime_api.h>

#include <ATen/ATen.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Type.h>

#include "timing/cupti_library.h"
#include "timing/timer.h"
#include "util/log.h"

namespace backendbench::timing {
namespace {

// Kineto (torch.profiler) tags with CUSTOM0 and CUSTOM1; ours do not mix with its.
constexpr CUpti_ExternalCorrelationKind kTagKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
constexpr uint64_t kEngineTag = 1;
constexpr size_t kBufferBytes = size_t{8} << 20;
// The GPU's records: on from CUPTI's start for the process (switched on per window, they made each window's
// first call wait about 0.7 ms on an H200); what they record while no window is open is dropped.
constexpr CUpti_ActivityKind kGpuKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                            CUPTI_ACTIVITY_KIND_MEMSET};
// On while a window is open: API records (runtime and driver), what external correlation ids attach to, cost
// every CUDA call host time.
constexpr CUpti_ActivityKind kWindowKinds[] = {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME,
                                               CUPTI_ACTIVITY_KIND_DRIVER};
// Event records and stream waits prove work on other streams ordered before
// the caller's stream (gpu_activity.h, stream_order). Their records carry
// cudaEventSyncId from CUPTI 13 on; without them (older headers, or a
// libcupti refusing the kinds) all work off the current stream is stray.
#if CUPTI_API_VERSION >= 130000
#define BB_STREAM_ORDER_RECORDS 1
constexpr CUpti_ActivityKind kOrderKinds[] = {CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
#else
#define BB_STREAM_ORDER_RECORDS 0
#endif

enum class Op : uint8_t { kernel, copy, set };

struct GpuRecord {
  uint64_t start, end;
  uint32_t device, context, stream, correlation;
  Op op;
  const char* name;  // kernels: CUPTI's own copy, kept for the process
};

// The functions of the loaded libcupti.
struct Api {
  decltype(&::cuptiGetVersion) get_version = nullptr;
  decltype(&::cuptiGetResultString) result_string = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&::cuptiActivityEnable) enable = nullptr;
  decltype(&::cuptiActivityDisable) disable = nullptr;
  decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&::cuptiActivityPushExternalCorrelationId) push = nullptr;
  decltype(&::cuptiActivityPopExternalCorrelationId) pop = nullptr;
};

// What a window takes from CUPTI: GPU records, and by correlation id the
// tag and the launching thread of the API call behind each.
struct Batch {
  std::vector<GpuRecord> records;
  std::vector<stream_order::EventRecord> events;  // cudaEventRecord
  std::vector<stream_order::StreamWait> waits;    // cudaStreamWaitEvent
  std::vector<std::pair<uint32_t, uint64_t>> tags;     // correlation id -> tag
  std::vector<std::pair<uint32_t, uint32_t>> threads;  // correlation id -> thread
  size_t dropped = 0;
};

// Records CUPTI delivered and no window has collected yet.
struct Store {
  std::mutex mutex;
  Batch pending;
  std::vector<uint8_t*> spare;  // buffers to hand out again
};

// The functions, looked up once (before CUPTI can call back into buffer_completed).
Api& api() {
  static Api a;
  return a;
}

// The process's CUPTI: loaded and started once; `unavailable` says why not.
struct Cupti {
  std::string path;
  std::mutex mutex;          // guards `unavailable`
  std::string unavailable;   // "" while usable
  std::atomic<uint64_t> next_tag{kEngineTag + 1};
};

Store& store() {
  static Store* s = new Store;  // never destroyed: CUPTI may hand back buffers at exit
  return *s;
}

Cupti& cupti();

// Whether a window is open (one at a time per process). API records are on
// then, and only then: they cost every CUDA call host time, more than
// switching them on and off per window costs (on an H100, a judged run of 666
// tests: 31-35 tests/s recording between windows too, 36.5-37.3 recording
// inside them only). The GPU's records (kGpuKinds) stay on, and
// buffer_completed drops those that arrive while no window is open. Outside
// Cupti: the callbacks read it, on CUPTI's thread, from the moment they are
// registered.
std::atomic<bool> g_window_open{false};

std::string result_text(CUptiResult result) {
  const char* text = nullptr;
  if (api().result_string && api().result_string(result, &text) == CUPTI_SUCCESS && text) return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Store& s = store();
  {
    std::lock_guard lock(s.mutex);
    if (!s.spare.empty()) {
      *buffer = s.spare.back();
      s.spare.pop_back();
    } else {
      *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    }
  }
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  if (!g_window_open) {  // the GPU's records of work between windows: nobody's to judge
    Store& s = store();
    std::lock_guard lock(s.mutex);
    s.spare.push_back(buffer);
    return;
  }
  const Api& a = api();
  Batch batch;
  auto& records = batch.records;
  CUpti_Activity* record = nullptr;
  // The fields read below sit in the same place in every version of these records.
  while (valid > 0 && a.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        records.push_back({k->start, k->end, k->deviceId, k->contextId, k->streamId, k->correlationId, Op::kernel, k->name});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        records.push_back({c->start, c->end, c->deviceId, c->contextId, c->streamId, c->correlationId, Op::copy, nullptr});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        records.push_back({m->start, m->end, m->deviceId, m->contextId, m->streamId, m->correlationId, Op::set, nullptr});
        break;
      }
#if BB_STREAM_ORDER_RECORDS
      case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record);
        batch.events.push_back({e->cudaEventSyncId, {e->contextId, e->streamId}, e->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* y = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        if (y->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT && y->returnValue == 0) {
          batch.waits.push_back({y->cudaEventSyncId, {y->contextId, y->streamId}, y->correlationId});
        }
        break;
      }
#endif
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == kTagKind) batch.tags.emplace_back(e->correlationId, e->externalId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* call = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        batch.threads.emplace_back(call->correlationId, call->threadId);
        break;
      }
      default:
        break;
    }
  }
  if (a.dropped_records) a.dropped_records(context, stream_id, &batch.dropped);
  Store& s = store();
  std::lock_guard lock(s.mutex);
  Batch& p = s.pending;
  p.records.insert(p.records.end(), batch.records.begin(), batch.records.end());
  p.tags.insert(p.tags.end(), batch.tags.begin(), batch.tags.end());
  p.threads.insert(p.threads.end(), batch.threads.begin(), batch.threads.end());
  p.events.insert(p.events.end(), batch.events.begin(), batch.events.end());
  p.waits.insert(p.waits.end(), batch.waits.begin(), batch.waits.end());
  p.dropped += batch.dropped;
  s.spare.push_back(buffer);
}

template <typename F>
bool bind(void* handle, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(handle, name));
  return fn != nullptr;
}

// Where torch's CUDA libraries are (the NVIDIA wheels with libcupti sit beside torch).
std::filesystem::path torch_lib_dir() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&c10::cuda::device_count), &info) == 0 || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

// Turns `kinds` on (or off); the first failure in words.
std::string switch_kinds(std::span<const CUpti_ActivityKind> kinds, bool on) {
  for (CUpti_ActivityKind kind : kinds) {
    const CUptiResult r = on ? api().enable(kind) : api().disable(kind);
    if (r != CUPTI_SUCCESS) return std::string(on ? "enabling" : "disabling") + " activity kind " +
                                   std::to_string(static_cast<int>(kind)) + ": " + result_text(r);
  }
  return "";
}

// Turns a window's record kinds on (or off); the first failure in words. The
// stream-order kinds are optional: refused, work off the current stream is
// judged without them (all of it stray).
std::string switch_window_kinds(bool on) {
  if (std::string e = switch_kinds(kWindowKinds, on); !e.empty()) return e;
#if BB_STREAM_ORDER_RECORDS
  for (CUpti_ActivityKind kind : kOrderKinds) {
    const CUptiResult r = on ? api().enable(kind) : api().disable(kind);
    if (r != CUPTI_SUCCESS && on) {
      static std::once_flag warned;
      std::call_once(warned, [&] {
        BB_LOG(warning) << "CUPTI refused activity kind " << static_cast<int>(kind) << " (" << result_text(r)
                        << "): work a call queues on another stream is stray even where the call makes the "
                           "current stream wait for it";
      });
    }
  }
#endif
  return "";
}

std::string start(Cupti& c) {
  const CuptiLibrary lib = load_cupti(torch_lib_dir());
  if (!lib.loaded()) return lib.error;
  Api& a = api();
  void* h = lib.handle;
  const bool bound = bind(h, "cuptiGetVersion", a.get_version) && bind(h, "cuptiGetResultString", a.result_string) &&
                     bind(h, "cuptiActivityRegisterCallbacks", a.register_callbacks) &&
                     bind(h, "cuptiActivityEnable", a.enable) && bind(h, "cuptiActivityDisable", a.disable) &&
                     bind(h, "cuptiActivityFlushAll", a.flush_all) &&
                     bind(h, "cuptiActivityGetNextRecord", a.next_record) &&
                     bind(h, "cuptiActivityPushExternalCorrelationId", a.push) &&
                     bind(h, "cuptiActivityPopExternalCorrelationId", a.pop);
  bind(h, "cuptiActivityGetNumDroppedRecords", a.dropped_records);  // optional
  if (!bound) return lib.path + " lacks the CUPTI activity functions this build uses";
  uint32_t version = 0;
  if (a.get_version(&version) != CUPTI_SUCCESS) return lib.path + ": cuptiGetVersion failed";
  // Records are read with this build's layouts: the library must be of the same CUDA major version.
  if (version / 10000 != CUPTI_API_VERSION / 10000) {
    return lib.path + " has CUPTI API version " + std::to_string(version) + "; this build reads version " +
           std::to_string(CUPTI_API_VERSION) + "'s records (set BACKENDBENCH_CUPTI to a matching libcupti)";
  }
  if (const CUptiResult r = a.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    return lib.path + ": cuptiActivityRegisterCallbacks: " + result_text(r);
  }
  // Another profiler (ncu, nsys) holding CUPTI refuses the kinds: find out now, not mid-timing.
  std::string e = switch_kinds(kGpuKinds, true);
  if (e.empty()) e = switch_window_kinds(true);
  if (!e.empty()) {
    switch_window_kinds(false);
    switch_kinds(kGpuKinds, false);
    return lib.path + ": " + e + " (another profiler attached?)";
  }
  switch_window_kinds(false);
  c.path = lib.path;
  return "";
}

Cupti& cupti() {
  static Cupti* c = [] {
    auto* made = new Cupti;  // never destroyed: CUPTI's callbacks reach it until exit
    made->unavailable = start(*made);
    if (!made->unavailable.empty()) {
      BB_LOG(warning) << "CUPTI unavailable (" << made->unavailable
                      << "): GPU calls are timed with CUDA events on the current stream, and work on other streams "
                         "or threads is not seen";
    }
    return made;
  }();
  return *c;
}

std::string unavailable_now() {
  Cupti& c = cupti();
  std::lock_guard lock(c.mutex);
  return c.unavailable;
}

void give_up(const std::string& why) {
  Cupti& c = cupti();
  std::lock_guard lock(c.mutex);
  if (!c.unavailable.empty()) return;
  c.unavailable = why;
  switch_kinds(kGpuKinds, false);
  BB_LOG(warning) << "CUPTI stopped recording (" << why << "): GPU calls are timed with CUDA events from now on";
}

// Everything CUPTI recorded so far, taken out of the store.
Batch drain() {
  api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  Store& s = store();
  std::lock_guard lock(s.mutex);
  Batch taken;
  std::swap(taken, s.pending);
  return taken;
}

// Tags the GPU work this thread launches while alive.
class TagScope {
 public:
  explicit TagScope(uint64_t tag) { api().push(kTagKind, tag); }
  ~TagScope() {
    uint64_t last = 0;
    api().pop(kTagKind, &last);
  }
  TagScope(const TagScope&) = delete;
  TagScope& operator=(const TagScope&) = delete;
};

}  // namespace

EngineWorkScope::EngineWorkScope() {
  if (!g_window_open || !unavailable_now().empty()) return;
  api().push(kTagKind, kEngineTag);
  pushed_ = true;
}

EngineWorkScope::~EngineWorkScope() {
  if (!pushed_) return;
  uint64_t last = 0;
  api().pop(kTagKind, &last);
}

namespace {

std::string describe(const GpuRecord& r) {
  std::string what;
  switch (r.op) {
    case Op::kernel: what = "kernel " + (r.name ? c10::demangle(r.name) : std::string("?")); break;
    case Op::copy: what = "a memory copy"; break;
    case Op::set: what = "a memset"; break;
  }
  return what + " on device " + std::to_string(r.device) + ", stream " + std::to_string(r.stream);
}

}  // namespace

struct ActivityWindow::State {
  c10::Device device{c10::kCUDA};
  bool active = false;
  at::Tensor marker;  // the engine's memset on the current stream shows which stream that is
  bool stream_known = false;
  uint32_t device_id = 0, context = 0, stream = 0;
  // Over the window's life, by correlation id: the tag, the launching thread.
  std::unordered_map<uint32_t, uint64_t> tags;
  std::unordered_map<uint32_t, uint32_t> threads;
  std::unordered_set<uint32_t> calling_threads;  // the threads that made tagged calls
};

std::string gpu_activity_unavailable(c10::Device device) {
  if (!device.is_cuda()) return "not a CUDA device";
  return unavailable_now();
}

std::string gpu_timing_source(c10::Device device) {
  if (!device.is_cuda()) return "";
  const std::string why = gpu_activity_unavailable(device);
  if (why.empty()) return "CUPTI activity records (" + cupti().path + ")";
  return "CUDA events on the current stream (CUPTI unavailable: " + why + ")";
}

ActivityWindow::ActivityWindow(c10::Device device) : state_(std::make_unique<State>()) {
  state_->device = device;
  if (!gpu_activity_unavailable(device).empty()) return;
  if (g_window_open.exchange(true)) return;  // one at a time: a nested window records nothing
  synchronize(device);
  if (std::string e = switch_window_kinds(true); !e.empty()) {
    switch_window_kinds(false);
    g_window_open = false;
    give_up(e);
    return;
  }
  (void)drain();  // earlier work's records
  state_->active = true;
  state_->marker = at::empty({1}, at::TensorOptions().dtype(at::kInt).device(device));
  run_engine([&] {
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
    C10_CUDA_CHECK(cudaMemsetAsync(state_->marker.data_ptr(), 0, sizeof(int32_t), stream));
  });
}

ActivityWindow::~ActivityWindow() {
  if (!state_->active) return;
  switch_window_kinds(false);
  g_window_open = false;
}

bool ActivityWindow::active() const { return state_->active; }

uint64_t ActivityWindow::run_tagged(const std::function<void()>& fn) {
  if (!state_->active) {
    fn();
    return 0;
  }
  const uint64_t tag = cupti().next_tag++;
  const TagScope scope(tag);
  fn();
  return tag;
}

void ActivityWindow::run_engine(const std::function<void()>& fn) {
  if (!state_->active) {
    fn();
    return;
  }
  const TagScope scope(kEngineTag);
  fn();
}

WindowWork ActivityWindow::collect() {
  WindowWork work;
  State& s = *state_;
  if (!s.active) return work;
  synchronize(s.device);
  const Batch batch = drain();
  work.incomplete = batch.dropped > 0;
  for (const auto& [correlation, tag] : batch.tags) s.tags[correlation] = tag;
  for (const auto& [correlation, thread] : batch.threads) s.threads[correlation] = thread;
  for (const auto& [correlation, tag] : batch.tags) {
    if (const auto it = s.threads.find(correlation); it != s.threads.end()) s.calling_threads.insert(it->second);
  }
  const auto tag_of = [&](const GpuRecord& r) -> uint64_t {
    const auto it = s.tags.find(r.correlation);
    return it == s.tags.end() ? 0 : it->second;
  };
  for (const GpuRecord& r : batch.records) {  // the engine's marker runs on the current stream
    if (!s.stream_known && tag_of(r) == kEngineTag) {
      s.stream_known = true;
      s.device_id = r.device;
      s.context = r.context;
      s.stream = r.stream;
    }
  }
  std::unordered_map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> intervals;  // by tag: [start, end)
  std::unordered_map<uint64_t, std::vector<const GpuRecord*>> elsewhere_by_tag;  // off the current stream
  for (const GpuRecord& r : batch.records) {
    const uint64_t tag = tag_of(r);
    if (tag == kEngineTag) continue;
    if (tag == 0) {  // the calling thread's own untagged work is the engine's; another thread's is stray
      const auto thread = s.threads.find(r.correlation);
      const bool foreign = thread != s.threads.end() && !s.calling_threads.contains(thread->second);
      if (foreign && work.foreign++ == 0) work.foreign_example = describe(r);
      continue;
    }
    CallWork& call = work.calls[tag];
    call.first_start_ns = call.records == 0 ? r.start : std::min(call.first_start_ns, r.start);
    call.last_end_ns = call.records == 0 ? r.end : std::max(call.last_end_ns, r.end);
    if (r.end > r.start) intervals[tag].emplace_back(r.start, r.end);
    ++call.records;
    if (r.op == Op::kernel && r.name && std::find(call.kernels.begin(), call.kernels.end(), r.name) == call.kernels.end()) {
      call.kernels.push_back(r.name);
    }
    const bool elsewhere = s.stream_known && (r.device != s.device_id || r.context != s.context || r.stream != s.stream);
    if (elsewhere) elsewhere_by_tag[tag].push_back(&r);
  }
  for (auto& [tag, spans] : intervals) work.calls[tag].busy_ns = covered_ns(std::move(spans));
  // Work off the current stream is stray unless the call itself (its own
  // waits, on its thread) made the current stream wait for it.
  for (const auto& [tag, records] : elsewhere_by_tag) {
    std::vector<stream_order::StreamWait> waits;
    for (const stream_order::StreamWait& w : batch.waits) {
      if (const auto t = s.tags.find(w.correlation); t != s.tags.end() && t->second == tag) waits.push_back(w);
    }
    const auto bounds = stream_order::ordered_before({s.context, s.stream}, batch.events, waits);
    CallWork& call = work.calls[tag];
    for (const GpuRecord* r : records) {
      if (r->device == s.device_id && stream_order::is_ordered(bounds, {r->context, r->stream}, r->correlation)) {
        ++call.off_stream_ordered;
      } else if (call.off_stream++ == 0) {
        call.off_stream_example = describe(*r) + ", the current stream being " + std::to_string(s.stream);
      }
    }
  }
  return work;
}

}  // namespace backendbench::timing
