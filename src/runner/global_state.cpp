#include "runner/global_state.h"

#include <cstdint>
#include <limits>
#include <mutex>
#include <tuple>

#if defined(__x86_64__) || defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/core/AutogradState.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/GradMode.h>
#include <c10/core/Stream.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/VirtualGuardImpl.h>

namespace backendbench::runner {
namespace {

std::string flag(int v) { return v ? "True" : "False"; }
std::string number(int v) { return std::to_string(v); }

// A setting read and written as an int (flags, enums, counts), named as
// Python spells it, so the message says what to stop doing.
struct Setting {
  const char* name;
  int (*read)();
  void (*write)(int);
  std::string (*show)(int);
};

at::Context& ctx() { return at::globalContext(); }

constexpr const char* kMatmulPrecisions[] = {"highest", "high", "medium"};

// Reduced-precision reductions in cuBLAS, as torch's setter takes them.
void set_reduction(bool fp16, int v) {
  const auto option = static_cast<at::CuBLASReductionOption>(v);
  const bool reduced = option == at::CuBLASReductionOption::AllowReducedPrecisionWithSplitK;
  const bool splitk = option != at::CuBLASReductionOption::DisallowReducedPrecisionDisallowSplitK;
  if (fp16) ctx().setAllowFP16ReductionCuBLAS(reduced, splitk);
  else ctx().setAllowBF16ReductionCuBLAS(reduced, splitk);
}

// The matmul precision comes before allow_tf32, which it also sets, so that
// restoring both in this order gives back both.
const Setting kSettings[] = {
    {"torch.get_float32_matmul_precision()", [] { return static_cast<int>(ctx().float32MatmulPrecision()); },
     [](int v) { ctx().setFloat32MatmulPrecision(kMatmulPrecisions[v]); },
     [](int v) { return std::string(kMatmulPrecisions[v]); }},
    {"torch.backends.cuda.matmul.allow_tf32", [] { return static_cast<int>(ctx().allowTF32CuBLAS()); },
     [](int v) { ctx().setAllowTF32CuBLAS(v != 0); }, flag},
    {"torch.backends.cudnn.allow_tf32", [] { return static_cast<int>(ctx().allowTF32CuDNN()); },
     [](int v) { ctx().setAllowTF32CuDNN(v != 0); }, flag},
    {"torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
     [] { return static_cast<int>(ctx().allowFP16ReductionCuBLAS()); }, [](int v) { set_reduction(true, v); }, number},
    {"torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
     [] { return static_cast<int>(ctx().allowBF16ReductionCuBLAS()); }, [](int v) { set_reduction(false, v); }, number},
    {"torch.are_deterministic_algorithms_enabled() (2: warn only)",
     [] { return ctx().deterministicAlgorithms() ? (ctx().deterministicAlgorithmsWarnOnly() ? 2 : 1) : 0; },
     [](int v) { ctx().setDeterministicAlgorithms(v != 0, v == 2); }, number},
    {"torch.utils.deterministic.fill_uninitialized_memory",
     [] { return static_cast<int>(ctx().deterministicFillUninitializedMemory()); },
     [](int v) { ctx().setDeterministicFillUninitializedMemory(v != 0); }, flag},
    {"torch.backends.cudnn.enabled", [] { return static_cast<int>(ctx().userEnabledCuDNN()); },
     [](int v) { ctx().setUserEnabledCuDNN(v != 0); }, flag},
    {"torch.backends.cudnn.benchmark", [] { return static_cast<int>(ctx().benchmarkCuDNN()); },
     [](int v) { ctx().setBenchmarkCuDNN(v != 0); }, flag},
    {"torch.backends.cudnn.benchmark_limit", [] { return ctx().benchmarkLimitCuDNN(); },
     [](int v) { ctx().setBenchmarkLimitCuDNN(v); }, number},
    {"torch.backends.cudnn.deterministic", [] { return static_cast<int>(ctx().deterministicCuDNN()); },
     [](int v) { ctx().setDeterministicCuDNN(v != 0); }, flag},
    {"torch.backends.mkldnn.enabled", [] { return static_cast<int>(ctx().userEnabledMkldnn()); },
     [](int v) { ctx().setUserEnabledMkldnn(v != 0); }, flag},
    {"torch.backends.cuda.flash_sdp_enabled()", [] { return static_cast<int>(ctx().userEnabledFlashSDP()); },
     [](int v) { ctx().setSDPUseFlash(v != 0); }, flag},
    {"torch.backends.cuda.mem_efficient_sdp_enabled()",
     [] { return static_cast<int>(ctx().userEnabledMemEfficientSDP()); },
     [](int v) { ctx().setSDPUseMemEfficient(v != 0); }, flag},
    {"torch.backends.cuda.math_sdp_enabled()", [] { return static_cast<int>(ctx().userEnabledMathSDP()); },
     [](int v) { ctx().setSDPUseMath(v != 0); }, flag},
    {"torch.backends.cuda.cudnn_sdp_enabled()", [] { return static_cast<int>(ctx().userEnabledCuDNNSDP()); },
     [](int v) { ctx().setSDPUseCuDNN(v != 0); }, flag},
    {"torch.backends.cuda.preferred_linalg_library()",
     [] { return static_cast<int>(ctx().linalgPreferredBackend()); },
     [](int v) { ctx().setLinalgPreferredBackend(static_cast<at::LinalgBackend>(v)); }, number},
    {"torch.get_default_dtype()", [] { return static_cast<int>(c10::get_default_dtype_as_scalartype()); },
     [](int v) { c10::set_default_dtype(caffe2::TypeMeta::fromScalarType(static_cast<c10::ScalarType>(v))); },
     [](int v) { return std::string(c10::toString(static_cast<c10::ScalarType>(v))); }},
    {"torch.is_grad_enabled()", [] { return static_cast<int>(c10::GradMode::is_enabled()); },
     [](int v) { c10::GradMode::set_enabled(v != 0); }, flag},
    {"torch.is_inference_mode_enabled()",
     [] { return static_cast<int>(c10::AutogradState::get_tls_state().get_inference_mode()); },
     [](int v) { c10::AutogradState::get_tls_state().set_inference_mode(v != 0); }, flag},
    {"torch.get_num_threads()", [] { return at::get_num_threads(); }, [](int v) { at::set_num_threads(v); }, number},
    // The fp32_precision settings that replace allow_tf32 (torch.backends.{cuda,cudnn,mkldnn}...fp32_precision).
#define BB_FP32_PRECISION(backend, op, spelled)                                                                 \
  {"torch.backends." spelled ".fp32_precision",                                                                  \
   [] { return static_cast<int>(ctx().float32Precision(at::Float32Backend::backend, at::Float32Op::op)); },    \
   [](int v) {                                                                                                   \
     ctx().setFloat32Precision(at::Float32Backend::backend, at::Float32Op::op, static_cast<at::Float32Precision>(v)); \
   },                                                                                                            \
   [](int v) { return at::precision2str(static_cast<at::Float32Precision>(v)); }}
    BB_FP32_PRECISION(GENERIC, ALL, "fp32"),
    BB_FP32_PRECISION(CUDA, ALL, "cuda"),
    BB_FP32_PRECISION(CUDA, MATMUL, "cuda.matmul"),
    BB_FP32_PRECISION(CUDA, CONV, "cudnn.conv"),
    BB_FP32_PRECISION(CUDA, RNN, "cudnn.rnn"),
    BB_FP32_PRECISION(MKLDNN, ALL, "mkldnn"),
    BB_FP32_PRECISION(MKLDNN, MATMUL, "mkldnn.matmul"),
    BB_FP32_PRECISION(MKLDNN, CONV, "mkldnn.conv"),
    BB_FP32_PRECISION(MKLDNN, RNN, "mkldnn.rnn"),
#undef BB_FP32_PRECISION
};

// A setting's value, or kUnreadable when reading it throws (torch refuses to
// read allow_tf32 once the fp32_precision settings disagree with it).
constexpr int kUnreadable = std::numeric_limits<int>::min();
int read(const Setting& s) {
  try {
    return s.read();
  } catch (const std::exception&) {
    return kUnreadable;
  }
}
std::string shown(const Setting& s, int v) { return v == kUnreadable ? "(unreadable)" : s.show(v); }

// The SSE control bits that flush denormals (torch.set_flush_denormal), on
// this thread, where they apply; -1 where the processor has none.
int denormal_bits() {
#if defined(__x86_64__) || defined(__SSE__)
  return static_cast<int>(_mm_getcsr() & (_MM_FLUSH_ZERO_MASK | 0x0040));  // flush to zero, denormals are zero
#else
  return -1;
#endif
}
void set_denormal_bits(int bits) {
#if defined(__x86_64__) || defined(__SSE__)
  _mm_setcsr((_mm_getcsr() & ~static_cast<unsigned>(_MM_FLUSH_ZERO_MASK | 0x0040)) | static_cast<unsigned>(bits));
#else
  (void)bits;
#endif
}

}  // namespace

struct GlobalStateGuard::Snapshot {
  std::vector<int> values;
  uint64_t cpu_seed = at::detail::getDefaultCPUGenerator().current_seed();  // torch.manual_seed
  int denormals = denormal_bits();
  c10::impl::LocalDispatchKeySet dispatch_keys;
  // Observers of ATen's calls (RecordFunction callbacks): one a kernel leaves
  // sees the reference's calls, their inputs and outputs. The engine's own
  // (observe::AtenCallRecorder) live only inside a guard's span.
  bool global_observers = at::hasGlobalCallbacks();
  bool thread_observers = at::hasThreadLocalCallbacks();
  c10::DeviceType device_type;
  c10::Device device;
  c10::Stream stream;

  explicit Snapshot(c10::Device on)
      : dispatch_keys(c10::impl::tls_local_dispatch_key_set()),
        device_type(on.type()),
        device(c10::impl::VirtualGuardImpl(on.type()).getDevice()),
        stream(c10::impl::VirtualGuardImpl(on.type()).getStream(device)) {
    for (const Setting& s : kSettings) values.push_back(read(s));
  }
};

GlobalStateGuard::GlobalStateGuard(c10::Device device) : saved_(std::make_unique<Snapshot>(device)) {}

GlobalStateGuard::~GlobalStateGuard() {
  if (!restored_) restore();
}

namespace {

// One "setting: before -> after" per setting that differs.
std::vector<std::string> differences(const GlobalStateGuard::Snapshot& before, const GlobalStateGuard::Snapshot& now) {
  std::vector<std::string> changes;
  for (size_t i = 0; i < std::size(kSettings); ++i) {
    const Setting& s = kSettings[i];
    if (now.values[i] == before.values[i]) continue;
    changes.push_back(std::string(s.name) + ": " + shown(s, before.values[i]) + " -> " + shown(s, now.values[i]));
  }
  if (now.cpu_seed != before.cpu_seed) {
    changes.push_back("the seed of the default CPU generator (torch.manual_seed): " + std::to_string(before.cpu_seed) +
                      " -> " + std::to_string(now.cpu_seed));
  }
  if (now.denormals != before.denormals) {
    changes.push_back("flushing denormals to zero (torch.set_flush_denormal): " + flag(before.denormals > 0) + " -> " +
                      flag(now.denormals > 0));
  }
  const auto& keys = before.dispatch_keys;
  if (now.dispatch_keys.included_ != keys.included_ || now.dispatch_keys.excluded_ != keys.excluded_) {
    changes.push_back("the dispatch keys included or excluded on this thread: " + c10::toString(keys.included_) +
                      " / " + c10::toString(keys.excluded_) + " -> " + c10::toString(now.dispatch_keys.included_) +
                      " / " + c10::toString(now.dispatch_keys.excluded_));
  }
  for (const auto& [was, is, whose] : {std::tuple{before.global_observers, now.global_observers, "every thread"},
                                       std::tuple{before.thread_observers, now.thread_observers, "this thread"}}) {
    if (was == is) continue;
    changes.push_back(std::string("observers of ATen's calls on ") + whose +
                      " (RecordFunction callbacks, which see the reference's calls and outputs): " +
                      (was ? "registered -> none" : "none -> registered"));
  }
  if (now.device != before.device) changes.push_back("the current device: " + before.device.str() + " -> " + now.device.str());
  if (now.stream != before.stream) {
    changes.push_back("the current stream: " + std::to_string(before.stream.id()) + " -> " +
                      std::to_string(now.stream.id()));
  }
  return changes;
}

}  // namespace

std::vector<std::string> GlobalStateGuard::changes() const { return differences(*saved_, Snapshot(saved_->device)); }

std::vector<std::string> GlobalStateGuard::restore() {
  restored_ = true;
  const Snapshot now(saved_->device);
  std::vector<std::string> changes = differences(*saved_, now);
  // Written back in the table's order, the fp32_precision settings last (the legacy flags set them too);
  // a write torch refuses leaves that setting as it is, the change reported all the same.
  for (size_t i = 0; i < std::size(kSettings); ++i) {
    if (now.values[i] == saved_->values[i] || saved_->values[i] == kUnreadable) continue;
    try {
      kSettings[i].write(saved_->values[i]);
    } catch (const std::exception&) {
    }
  }
  if (now.cpu_seed != saved_->cpu_seed) {
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    const std::lock_guard lock(generator.mutex());
    generator.set_current_seed(saved_->cpu_seed);
  }
  if (now.denormals != saved_->denormals) set_denormal_bits(saved_->denormals);
  const auto& before = saved_->dispatch_keys;
  if (now.dispatch_keys.included_ != before.included_ || now.dispatch_keys.excluded_ != before.excluded_) {
    c10::impl::_force_tls_local_dispatch_key_set(before);
  }
  // None before: every observer now is one the kernel added (a kernel that removed ours is told, not undone).
  if (now.global_observers && !saved_->global_observers) at::clearGlobalCallbacks();
  if (now.thread_observers && !saved_->thread_observers) at::clearThreadLocalCallbacks();
  c10::impl::VirtualGuardImpl guard(saved_->device_type);
  if (now.device != saved_->device) guard.setDevice(saved_->device);
  if (now.stream != saved_->stream) guard.exchangeStream(saved_->stream);
  return changes;
}

std::string describe_global_changes(const std::vector<std::string>& changes, std::string_view who) {
  std::string text = std::string(who) + " changed global state and did not put it back: ";
  for (size_t i = 0; i < changes.size(); ++i) text += (i ? "; " : "") + changes[i];
  return text + " (restored for the next tests)";
}

}  // namespace backendbench::runner
