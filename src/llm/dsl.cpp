// The kernel languages of --dsl and their file extensions and code fences.
#include "llm/dsl.h"

#include <array>

namespace backendbench::llm {
namespace {

struct DslInfo {
  Dsl dsl;
  std::string_view name, extension, fence, module;
};

constexpr std::array<DslInfo, 6> kDsls{{
    {Dsl::triton, "triton", ".py", "python", "triton"},
    {Dsl::pytorch, "pytorch", ".py", "python", "torch"},
    {Dsl::cutedsl, "cutedsl", ".py", "python", "cutlass.cute"},
    {Dsl::helion, "helion", ".py", "python", "helion"},
    {Dsl::cuda, "cuda", ".cu", "cuda", ""},
    {Dsl::cpp, "cpp", ".cpp", "cpp", ""},
}};

const DslInfo& info(Dsl dsl) {
  for (const auto& d : kDsls) {
    if (d.dsl == dsl) return d;
  }
  return kDsls.front();  // unreachable: every enumerator is listed
}

}  // namespace

std::string_view dsl_name(Dsl dsl) { return info(dsl).name; }

std::optional<Dsl> parse_dsl(std::string_view name) {
  for (const auto& d : kDsls) {
    if (d.name == name) return d.dsl;
  }
  return std::nullopt;
}

const std::vector<std::string>& dsl_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& d : kDsls) n.emplace_back(d.name);
    return n;
  }();
  return names;
}

std::string_view kernel_extension(Dsl dsl) { return info(dsl).extension; }
std::string_view code_fence(Dsl dsl) { return info(dsl).fence; }
bool is_python(Dsl dsl) { return info(dsl).extension == ".py"; }
std::string_view python_module(Dsl dsl) { return info(dsl).module; }

}  // namespace backendbench::llm
