// How a time was measured and where ATen's reference time came from: the
// words a performance result and the timing engine share.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace backendbench::results {

// kernel: device time between events with the stream held (timing/timer.h);
// dispatch: events around each call, host dispatch included; host: the CPU's clock.
enum class TimingMode { kernel, dispatch, host };
std::string to_string(TimingMode mode);  // "kernel", "dispatch", "host"
std::optional<TimingMode> parse_timing_mode(std::string_view name);

// ATen's time: timed now, taken from the baseline cache, or cached and timed again to audit it.
enum class ReferenceSource { timed, cached, audited };
std::string to_string(ReferenceSource source);  // "timed", "cached", "audited"

}  // namespace backendbench::results
