#include "session/run_share.h"

#include <algorithm>
#include <thread>

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include "report/merge.h"
#include "session/devices.h"
#include "session/session.h"
#include "util/log.h"

namespace backendbench::session {

RunShare::RunShare(std::optional<suite::Shard> shard) : shard_(std::move(shard)) {
  const auto launch = mpi::detect_launch();
  if (!launch) return;
  if (shard_) {
    throw RequestError("--shard " + shard_->describe() + " cannot be combined with an MPI launch (" +
                       launch->evidence + "): the ranks share the suite between themselves");
  }
  world_ = &mpi::join(*launch);
  shard_ = suite::Shard{static_cast<size_t>(world_->rank()), static_cast<size_t>(world_->size())};
  if (world_->rank() != 0 && log::level() < log::Level::warning) log::set_level(log::Level::warning);
  BB_LOG(info) << "MPI: " << world_->size() << " ranks, each runs its shard of the suite; rank 0 reports all of them";
}

c10::Device RunShare::device(const std::optional<results::DeviceName>& requested) const {
  if (!world_ || (requested && requested->index)) return choose_device(requested);
  const c10::Device chosen = choose_device(requested);
  if (chosen.is_cuda()) {
    const int gpus = static_cast<int>(at::getNumGPUs());
    if (world_->rank() == 0 && world_->local_size() > gpus) {
      BB_LOG(warning) << world_->local_size() << " ranks share " << gpus << " GPUs on a host: their timings interfere";
    }
    return {c10::kCUDA, static_cast<c10::DeviceIndex>(world_->local_rank() % std::max(1, gpus))};
  }
  // Ranks on one host would otherwise each start a thread per core.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(std::max(1, cores / world_->local_size()));
  return chosen;
}

std::string RunShare::journal_name() const {
  return world_ ? "journal.rank" + std::to_string(world_->rank()) + ".jsonl" : "journal.jsonl";
}

void RunShare::select(suite::Suite& suite) const {
  if (shard_) suite::keep_shard(suite, *shard_);
}

void RunShare::describe(nlohmann::json& environment) const {
  if (world_) {
    environment["mpi_ranks"] = world_->size();
  } else if (shard_) {
    environment["shard"] = shard_->describe();
  }
}

bool RunShare::gather(results::RunResults& results, report::RunInfo& info) const {
  if (!world_) return true;
  const auto all = world_->gather_to_root(report::run_to_json(results, info));
  if (world_->rank() != 0) return false;
  std::vector<report::RunPart> parts;
  for (size_t rank = 0; rank < all.size(); ++rank) {
    parts.push_back({"rank " + std::to_string(rank), report::run_from_json(all[rank])});
  }
  report::RunFolder merged = report::merge_runs(parts);
  results = std::move(merged.results);
  info = std::move(merged.info);
  return true;
}

}  // namespace backendbench::session
