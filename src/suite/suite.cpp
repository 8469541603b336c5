#include "suite/suite.h"

#include "util/name_table.h"

namespace backendbench::suite {
namespace {
constexpr util::NameTable<SuiteKind, 4> kSuites{{"smoke", "opinfo", "torchbench", "facto"}};
}  // namespace

std::string_view to_string(SuiteKind kind) { return kSuites.name(kind); }
std::optional<SuiteKind> parse_suite_kind(std::string_view name) { return kSuites.parse(name); }
std::span<const std::string_view> suite_names() { return kSuites.all(); }

}  // namespace backendbench::suite
