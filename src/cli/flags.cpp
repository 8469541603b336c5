#include "cli/flags.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>

#include "spec/value.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

// Numbers as people write them: 1000, 1e3 and 1000.0 are the same count; 0.5
// is a fine amount but not a count. Refusals repeat the text as typed and print
// bounds as written (1, not 1.000000). Counts are rewritten as digits for CLI11.
enum class NumberKind { count, amount };

std::string written(double bound) {
  std::ostringstream out;
  out << std::setprecision(15) << bound;
  return out.str();
}

CLI::Validator number(NumberKind kind, double min, bool min_allowed = true) {
  const std::string description =
      min == -std::numeric_limits<double>::max()
          ? "finite number"
          : std::string(kind == NumberKind::count ? "whole number" : "number") + (min_allowed ? " >= " : " > ") +
                written(min);
  return CLI::Validator(
      [kind, min, min_allowed](std::string& text) -> std::string {
        const std::string got = ", got '" + text + "'";
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(begin, &end);
        if (end == begin || *end != '\0' || std::isspace(static_cast<unsigned char>(text.front()))) {
          return "must be a number such as 1000, 1e3 or 0.5" + got;
        }
        if (!std::isfinite(value)) return "must be a finite number" + got;
        if (kind == NumberKind::count && std::trunc(value) != value) return "must be a whole number" + got;
        if (min_allowed ? value < min : value <= min) {
          return std::string("must be ") + (min_allowed ? (min == 0 ? "0 or more" : "at least " + written(min))
                                                        : (min == 0 ? "positive" : "more than " + written(min))) +
                 got;
        }
        if (kind == NumberKind::count) {
          // 2^63: beyond it a double no longer tells counts apart, and int64 ends.
          if (value >= 9223372036854775808.0) return "must be below 2^63" + got;
          // Digits as typed keep their exact value; 1e3 and 1000.0 become 1000.
          const bool digits = text.find_first_not_of("0123456789") == std::string::npos;
          if (!digits) text = std::to_string(static_cast<int64_t>(value));
        }
        return {};
      },
      description);
}

}  // namespace

const CLI::Validator kCount1 = number(NumberKind::count, 1);
const CLI::Validator kCount0 = number(NumberKind::count, 0);
const CLI::Validator kAmount0 = number(NumberKind::amount, 0);
const CLI::Validator kAmount1 = number(NumberKind::amount, 1);
const CLI::Validator kPositiveAmount = number(NumberKind::amount, 0, false);
const CLI::Validator kFinite = number(NumberKind::amount, -std::numeric_limits<double>::max());

CLI::Option* add_log_level(CLI::App& cmd, std::string& level) {
  return cmd.add_option("--log-level", level, "DEBUG, INFO, WARNING, ERROR or CRITICAL (default: $LOG_LEVEL or INFO)")
      ->check([](const std::string& v) {
        return log::level_from_name(v) ? std::string() : "must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL";
      });
}

CLI::Option* add_suite_option(CLI::App& cmd, suite::SuiteKind& kind, const std::string& help) {
  return add_kind_option(cmd, "--suite", kind, suite::suite_names(), suite::parse_suite_kind, help);
}

CLI::Option* add_dtype(CLI::App& cmd, std::string& dtype) {
  return cmd.add_option("--dtype", dtype,
                        "opinfo, facto: the dtype of the samples' (floating-point) tensors, e.g. bfloat16, float32, f16 "
                        "(default: bfloat16, as BackendBench)")
      ->check([](const std::string& v) {
        return spec::dtype_from_name(v) ? std::string() : "must be a dtype such as bfloat16, float16, float32, f32";
      });
}

// --device, parsed here into a device name ("cuda, cuda:N or cpu").
CLI::Option* add_device_option(CLI::App& cmd, std::optional<results::DeviceName>& device, const std::string& help) {
  return cmd.add_option_function<std::string>(
         "--device",
         [&device](const std::string& text) {
           device = results::parse_device_name(text);
           if (!device) {
             throw CLI::ValidationError("--device", "must be " + std::string(results::kDeviceNameSyntax) + ", got '" +
                                                       text + "'");
           }
         },
         help)
      ->type_name("DEVICE");
}

std::vector<std::string> all_names(std::span<const std::string_view> names) { return {names.begin(), names.end()}; }

}  // namespace backendbench::cli
