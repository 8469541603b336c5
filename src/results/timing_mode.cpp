#include "results/timing_mode.h"

#include "util/name_table.h"

namespace backendbench::results {
namespace {

constexpr util::NameTable<TimingMode, 3> kModes{{"kernel", "dispatch", "host"}};
constexpr util::NameTable<ReferenceSource, 3> kSources{{"timed", "cached", "audited"}};

}  // namespace

std::string to_string(TimingMode mode) { return std::string(kModes.name(mode)); }
std::optional<TimingMode> parse_timing_mode(std::string_view name) { return kModes.parse(name); }
std::string to_string(ReferenceSource source) { return std::string(kSources.name(source)); }

}  // namespace backendbench::results
