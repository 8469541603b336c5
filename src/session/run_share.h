// This process's share of a run: all of it, the tests of `--shard i/N`, or -
// when mpirun/srun started it - the shard of its MPI rank, with the results
// of all ranks gathered to rank 0, which reports them.
#pragma once

#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "mpi/mpi.h"
#include "report/run_folder.h"
#include "results/device.h"
#include "suite/shard.h"
#include "suite/suite.h"

namespace backendbench::session {

class RunShare {
 public:
  // Joins MPI when a launcher started this process; ranks other than 0 log
  // warnings and errors only. Throws RequestError for a shard under a launcher.
  explicit RunShare(std::optional<suite::Shard> shard);

  // The device to run on. Under MPI, no device or "cuda" picks a GPU of this
  // host by the rank's place on it, and CPU runs split the host's cores between ranks.
  c10::Device device(const std::optional<results::DeviceName>& requested) const;

  // Under MPI each rank runs on the one device that device() chose.
  bool one_device() const { return world_ != nullptr; }

  // The journal's file name in the log folder: one per MPI rank, so that
  // ranks writing to one folder never share a journal.
  std::string journal_name() const;

  // Keeps this process's tests (suite::keep_shard).
  void select(suite::Suite& suite) const;

  // Adds "shard" (i/N) or "mpi_ranks" to the run's environment.
  void describe(nlohmann::json& environment) const;

  // Under MPI, every rank's results go to rank 0, which gets them all merged
  // into `results` and `info`; the other ranks get false (they report
  // nothing). Alone or as a --shard job: true, nothing changes.
  bool gather(results::RunResults& results, report::RunInfo& info) const;

 private:
  std::optional<suite::Shard> shard_;
  mpi::World* world_ = nullptr;
};

}  // namespace backendbench::session
