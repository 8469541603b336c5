#include "results/phase.h"

#include <array>

#include "util/name_table.h"

namespace backendbench::results {
namespace {

constexpr util::NameTable<Phase, 8> kPhases{
    {"setup", "reference", "candidate", "compiling", "compare", "crossing", "timing", "waiting"}};
constexpr std::array<std::string_view, 8> kWords{"setup (making inputs, loading the kernel)", "the ATen reference",
                                                 "the candidate's calls", "the candidate compiling a kernel",
                                                 "comparing outputs",
                                                 "values crossing between the judge and the kernel's process",
                                                 "timing", "waiting for the device"};

}  // namespace

std::string_view to_string(Phase phase) { return kPhases.name(phase); }
std::optional<Phase> phase_from_name(std::string_view name) { return kPhases.parse(name); }
std::string_view in_words(Phase phase) { return kWords.at(static_cast<size_t>(phase)); }

}  // namespace backendbench::results
