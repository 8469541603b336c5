// A backend: a set of candidate kernels for ATen operators, and the small
// values that name one (BackendKind, BackendSpec) and describe a kernel
// (KernelLanguage). The registry that makes backends is the session layer's
// (session/backends.h): this folder holds the interface and ATen only.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace backendbench::backends {

// BackendBench's backends, by its names: aten, flag_gems, directory,
// pregenerated, llm, llm-relay, kernel_agent.
enum class BackendKind { aten, flag_gems, directory, pregenerated, llm, llm_relay, kernel_agent };
std::string_view to_string(BackendKind kind);
std::optional<BackendKind> parse_backend_kind(std::string_view name);
std::span<const std::string_view> backend_names();  // in the order above
// llm, llm_relay, kernel_agent: the backends whose kernels a model writes before they are evaluated.
bool is_llm_backend(BackendKind kind);

// Which backend, with the settings that say where its kernels come from.
struct BackendSpec {
  BackendKind kind = BackendKind::aten;
  std::filesystem::path ops_directory = "generated_kernels";  // directory
  std::filesystem::path kernels_dir;                          // pregenerated
};

// The language a candidate kernel is written in. The checks that apply depend
// on it: a plain-PyTorch kernel may compose ATen operators, native and Triton
// kernels may not have ATen do their work.
enum class KernelLanguage { aten, cpp, cuda, python, triton };
std::string_view to_string(KernelLanguage language);
std::optional<KernelLanguage> parse_kernel_language(std::string_view name);

// A candidate kernel, called the boxed way: arguments in, results out on the
// stack; with what it is written in and where it came from.
struct Kernel {
  std::function<void(torch::jit::Stack&)> call;
  KernelLanguage language = KernelLanguage::aten;
  std::filesystem::path source;  // its file; empty for ATen
  // The shared object it was compiled into (native kernels): what it links is
  // checked for borrowed work (observe/linked_symbols.h).
  std::filesystem::path library;

  Kernel() = default;
  template <typename Fn>
    requires(!std::is_same_v<std::remove_cvref_t<Fn>, Kernel> && std::is_invocable_v<Fn&, torch::jit::Stack&>)
  Kernel(Fn fn, KernelLanguage language = KernelLanguage::aten, std::filesystem::path source = {})
      : call(std::move(fn)), language(language), source(std::move(source)) {}

  explicit operator bool() const { return static_cast<bool>(call); }
  void operator()(torch::jit::Stack& stack) const { call(stack); }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The kernel for `op`, or an empty kernel when this backend does not implement it
  // (the operator is then skipped, as in BackendBench).
  virtual Kernel kernel_for(const c10::OperatorHandle& op) = 0;
  // Work done once before any test (compiling kernels). The run calls it before
  // starting its workers, so that they find the work done rather than each doing it.
  virtual void prepare() {}
};

}  // namespace backendbench::backends
