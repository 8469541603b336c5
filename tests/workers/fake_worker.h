// The pool's tests run tests/workers/fake_worker.py as their worker: each
// job's argument text is the script it acts out (see the script).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/test_job.h"

namespace backendbench::workers::testing {

inline const std::filesystem::path kFakeWorker =
    std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "tests" / "workers" / "fake_worker.py";

inline bool has_python() { return std::system("python3 -c pass >/dev/null 2>&1") == 0; }

// One job of `kind` per script, and the indices of them all.
inline std::vector<runner::TestJob> fake_jobs(const std::vector<std::string>& scripts,
                                              runner::TestKind kind = runner::TestKind::correctness) {
  std::vector<runner::TestJob> jobs;
  for (const auto& script : scripts) {
    runner::TestJob job{.id = jobs.size(), .op_index = jobs.size(), .op_name = "aten.phases.default", .kind = kind};
    job.input.op_name = job.op_name;
    job.input.args_text = script;
    jobs.push_back(job);
  }
  return jobs;
}

inline std::vector<size_t> all_of(const std::vector<runner::TestJob>& jobs) {
  std::vector<size_t> todo(jobs.size());
  for (size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  return todo;
}

}  // namespace backendbench::workers::testing
