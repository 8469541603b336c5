#include "cli/setup_dirs_command.h"

#include <iostream>
#include <variant>

#include "data/select.h"
#include "kernels/scaffold.h"
#include "ops/resolve.h"
#include "session/devices.h"
#include "session/suites.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

int setup_dirs_command(const SetupDirsOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const suite::Suite suite = session::load_suite(
      {.kind = *suite::parse_suite_kind(o.suite),
       .op_filters = data::split_op_filters(o.ops),
       .data = o.data,
       .dtype = o.dtype.empty() ? spec::Dtype::bf16 : *spec::dtype_from_name(o.dtype)},
      session::choose_device(""));
  for (const auto& d : suite.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  const std::string extension = o.language == "cuda" ? ".cu" : o.language == "python" ? ".py" : ".cpp";

  size_t folders = 0, new_folders = 0, created = 0, kept = 0;
  for (const auto& tests : suite.operators) {
    auto resolved = ops::resolve(ops::parse_operator_name(tests.op_name));
    if (auto* e = std::get_if<ops::ResolveError>(&resolved)) {
      BB_LOG(warning) << "no folder for " << tests.op_name << ": " << e->message;
      continue;
    }
    const auto setup = kernels::set_up_operator_folder(o.base_dir, std::get<c10::OperatorHandle>(resolved), extension,
                                                       kernels::example_inputs(tests));
    ++folders;
    new_folders += setup.folder_created;
    created += setup.created.size();
    kept += setup.kept.size();
    std::cout << setup.folder.generic_string() << ":";
    if (!setup.created.empty()) std::cout << " created " << joined(setup.created) << ";";
    if (!setup.kept.empty()) std::cout << " kept " << joined(setup.kept) << ";";
    std::cout << "\n";
  }
  std::cout << "setup-dirs: " << folders << " operator folders in " << o.base_dir << " (" << new_folders
            << " created), " << created << " files created, " << kept << " existing files kept\n";
  return 0;
}

}  // namespace backendbench::cli
