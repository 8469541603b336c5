#include "cli/run_command.h"

#include <iostream>
#include <stdexcept>

#include "cli/common.h"
#include "data/select.h"
#include "session/session.h"
#include "util/log.h"

namespace backendbench::cli {

session::RunRequest request_of(const RunOptions& o, const std::string& command_line) {
  session::RunRequest r;
  r.suite = {.kind = o.suite,
             .op_filters = data::split_op_filters(o.ops),
             .data = o.data,
             .topn_inputs = o.topn_inputs,
             .overhead_dominated_only = o.check_overhead_dominated_ops,
             .dtype = o.dtype.empty() ? spec::Dtype::bf16 : *spec::dtype_from_name(o.dtype),
             .facto_num_runs = o.facto_num_runs.value_or(10),
             .seed = o.seed};
  r.backend = {.kind = o.backend,
               .ops_directory = o.ops_directory,
               .kernels_dir = o.kernels_dir};
  r.device = o.device;
  r.seed = o.seed;
  r.p = o.p;
  if (o.disable_output_logs) r.log_dir.reset();
  else r.log_dir = o.log_dir;
  r.resume = o.resume;
  if (o.no_baseline_cache) r.baseline_cache = false;
  if (o.baseline_cache) r.baseline_cache = true;
  r.cuda_graphs = o.cuda_graphs;
  r.timing_samples = o.timing_samples;
  if (!o.shard.empty()) r.shard = suite::parse_shard(o.shard);
  if (o.num_workers) r.workers.count = static_cast<size_t>(*o.num_workers);
  r.workers.per_device = o.workers_per_gpu;
  for (const auto& index : data::split_op_filters(o.devices)) {
    try {
      r.workers.cuda_devices.push_back(std::stoi(index));
    } catch (const std::exception&) {
      throw UsageError{"--devices: expected CUDA device indices like 0,1, got '" + o.devices + "'"};
    }
  }
  r.workers.test_timeout_s = o.test_timeout_s;
  r.workers.memory_limit_mb = o.worker_memory_limit_mb;
  r.workers.cpu_limit_s = o.worker_cpu_limit_s;
  r.workers.sandbox = !o.no_sandbox;
  for (const std::string& folder : o.sandbox_writable) r.workers.sandbox_writable.emplace_back(folder);
  r.workers.judge = o.judge;
  r.workers.judge_times_aten = o.judge_times_aten;
  r.command_line = command_line;
  return r;
}

int run_command(const RunOptions& o, const std::string& command_line) {
  log::set_level(*log::level_from_name(o.log_level));
  const session::RunOutcome outcome = session::run(request_of(o, command_line));
  if (!outcome.reporting) return 0;  // an MPI rank other than 0
  print_scores(outcome.scores);
  std::cout << "Time split: " << runner::describe(outcome.time_split) << "\n";
  if (outcome.folder) print_folder(*outcome.folder);
  return 0;
}

}  // namespace backendbench::cli
