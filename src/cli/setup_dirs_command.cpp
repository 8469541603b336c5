#include "cli/setup_dirs_command.h"

#include <iostream>

#include "data/select.h"
#include "session/tools.h"
#include "util/log.h"
#include "util/text.h"

namespace backendbench::cli {

int setup_dirs_command(const SetupDirsOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const std::string extension = o.language == "cuda" ? ".cu" : o.language == "python" ? ".py" : ".cpp";
  const auto setups = session::set_up_kernel_folders(
      {.suite = {.kind = o.suite,
                 .op_filters = data::split_op_filters(o.ops),
                 .data = o.data,
                 .dtype = o.dtype.empty() ? spec::Dtype::bf16 : *spec::dtype_from_name(o.dtype)},
       .base_dir = o.base_dir,
       .extension = extension});
  size_t new_folders = 0, created = 0, kept = 0;
  for (const auto& setup : setups) {
    new_folders += setup.folder_created;
    created += setup.created.size();
    kept += setup.kept.size();
    std::cout << setup.folder.generic_string() << ":";
    if (!setup.created.empty()) std::cout << " created " << util::join(setup.created, ", ") << ";";
    if (!setup.kept.empty()) std::cout << " kept " << util::join(setup.kept, ", ") << ";";
    std::cout << "\n";
  }
  std::cout << "setup-dirs: " << setups.size() << " operator folders in " << o.base_dir << " (" << new_folders
            << " created), " << created << " files created, " << kept << " existing files kept\n";
  return 0;
}

}  // namespace backendbench::cli
