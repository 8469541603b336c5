// The pieces of flag definitions the subcommands share (options.cpp and
// models_command.cpp): numbers as people write them, --log-level, and the
// flags parsed here, at the edge, into the engine's values (--device, --suite,
// the backend and other kinds, --dtype).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "results/device.h"
#include "suite/suite.h"

namespace backendbench::cli {

extern const CLI::Validator kCount1;          // a whole number >= 1 (1e3 and 1000.0 read as 1000)
extern const CLI::Validator kCount0;          // a whole number >= 0
extern const CLI::Validator kAmount0;         // a number >= 0
extern const CLI::Validator kAmount1;         // a number >= 1
extern const CLI::Validator kPositiveAmount;  // a number > 0
extern const CLI::Validator kFinite;          // any finite number

CLI::Option* add_log_level(CLI::App& cmd, std::string& level);

// --device, parsed into a device name ("cuda, cuda:N or cpu").
CLI::Option* add_device_option(CLI::App& cmd, std::optional<results::DeviceName>& device, const std::string& help);

// Every name, in the enum's order (suite_names(), backend_names() list them so).
std::vector<std::string> all_names(std::span<const std::string_view> names);

// A flag naming one of `names`, parsed here into its kind by `parse` (which
// knows every name the check lets through).
template <typename Kind, typename Parse>
CLI::Option* add_kind_option(CLI::App& cmd, const std::string& flag, Kind& kind,
                             std::span<const std::string_view> names, Parse parse, const std::string& help) {
  return cmd.add_option_function<std::string>(flag, [&kind, parse](const std::string& text) { kind = *parse(text); }, help)
      ->check(CLI::IsMember(all_names(names)))
      ->default_str(std::string(to_string(kind)));
}

CLI::Option* add_suite_option(CLI::App& cmd, suite::SuiteKind& kind, const std::string& help);

// --dtype of opinfo and facto's samples.
CLI::Option* add_dtype(CLI::App& cmd, std::string& dtype);

}  // namespace backendbench::cli
