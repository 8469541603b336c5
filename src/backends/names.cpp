// The names of the backend and kernel-language values, as users and files spell them.
#include "backends/backend.h"
#include "util/name_table.h"

namespace backendbench::backends {
namespace {

constexpr util::NameTable<BackendKind, 7> kBackends{
    {"aten", "flag_gems", "directory", "pregenerated", "llm", "llm-relay", "kernel_agent"}};
constexpr util::NameTable<KernelLanguage, 5> kLanguages{{"aten", "cpp", "cuda", "python", "triton"}};

}  // namespace

std::string_view to_string(BackendKind kind) { return kBackends.name(kind); }
std::optional<BackendKind> parse_backend_kind(std::string_view name) { return kBackends.parse(name); }
std::span<const std::string_view> backend_names() { return kBackends.all(); }
bool is_llm_backend(BackendKind kind) {
  return kind == BackendKind::llm || kind == BackendKind::llm_relay || kind == BackendKind::kernel_agent;
}
std::string_view to_string(KernelLanguage language) { return kLanguages.name(language); }
std::optional<KernelLanguage> parse_kernel_language(std::string_view name) { return kLanguages.parse(name); }

}  // namespace backendbench::backends
