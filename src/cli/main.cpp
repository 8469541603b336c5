// backendbench: thin entry point; the work happens in the engine library.
#include <exception>
#include <iostream>
#include <string_view>

#include "cli/bench_timing_command.h"
#include "cli/compare_command.h"
#include "cli/dataset_command.h"
#include "cli/generate_command.h"
#include "cli/merge_command.h"
#include "cli/models_command.h"
#include "cli/options.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/setup_dirs_command.h"
#include "cli/trace_command.h"
#include "session/session.h"
#include "session/worker.h"
#include "util/crash_backtrace.h"

int main(int argc, char** argv) {
  using namespace backendbench::cli;
  backendbench::util::install_crash_backtrace_from_env();
  if (argc == 2 && std::string_view(argv[1]) == "__worker") return backendbench::session::serve_as_worker();
  if (argc == 2 && std::string_view(argv[1]) == "__judge") return backendbench::session::serve_as_judge();
  try {
    const Command command = parse_command_line(argc, argv);
    for (const auto& warning : command.warnings) std::cerr << "backendbench: warning: " << warning << "\n";
    switch (command.kind) {
      case Command::Kind::help:
        std::cout << command.help_text;
        return 0;
      case Command::Kind::generate:
        return generate_command(command.generate, command.command_line);
      case Command::Kind::run:
        if (is_llm_backend(command.run.backend)) return llm_run_command(command.run, command.command_line);
        return run_command(command.run, command.command_line);
      case Command::Kind::dataset:
        return dataset_command(command.dataset);
      case Command::Kind::trace:
        return trace_command(command.trace);
      case Command::Kind::bench_timing:
        return bench_timing_command(command.bench_timing);
      case Command::Kind::merge:
        return merge_command(command.merge, command.command_line);
      case Command::Kind::setup_dirs:
        return setup_dirs_command(command.setup_dirs);
      case Command::Kind::compare:
        return compare_command(command.compare);
      case Command::Kind::report:
        return report_command(command.report);
      case Command::Kind::models:
        return models_command(command.models);
    }
  } catch (const UsageError& e) {
    std::cerr << "backendbench: error: " << e.message << "\nRun 'backendbench --help' for the options.\n";
    return 2;
  } catch (const backendbench::session::RequestError& e) {
    std::cerr << "backendbench: error: " << e.what() << "\nRun 'backendbench --help' for the options.\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "backendbench: fatal: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
