// The session's entry points besides a run: the dataset builder, the trace
// replayer and the kernel-folder scaffolder. Each takes a typed request and
// returns what it did; the CLI (and any other caller) only prints it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "dataset/builder.h"
#include "kernels/scaffold.h"
#include "results/device.h"
#include "suite/suite.h"

namespace backendbench::session {

// `backendbench dataset`: trace files -> the dataset JSON, every input measured on the device.
struct DatasetRequest {
  std::string data;                     // a trace file or a folder of them
  std::filesystem::path out;            // the dataset .json to write
  std::vector<std::string> op_filters;  // an operator is kept when any is a substring of its name
  std::optional<results::DeviceName> device;
  uint64_t seed = 0;
};
struct DatasetOutcome {
  dataset::BuildSummary summary;
  c10::Device device = c10::Device(c10::kCPU);
};
DatasetOutcome build_dataset(const DatasetRequest& request);

// `backendbench trace`: every input called once through the dispatcher with
// the tracer recording only that call, so the written trace holds exactly
// what the inputs ran (composite operators as their parts).
struct TraceRequest {
  std::string data;  // a trace file, a folder of them, or a dataset .json
  std::filesystem::path out;
  std::optional<results::DeviceName> device;
};
struct TraceOutcome {
  size_t replayed = 0, inputs = 0;
};
TraceOutcome replay_inputs(const TraceRequest& request);

// `backendbench setup-dirs`: a folder per operator of the suite, with its
// README and a stub kernel in `extension`'s language (".cpp", ".cu", ".py").
struct SetupDirsRequest {
  suite::SuiteSpec suite;
  std::filesystem::path base_dir;
  std::string extension = ".cpp";
};
// One entry per operator whose folder was set up (operators that do not
// resolve are skipped with a warning).
std::vector<kernels::FolderSetup> set_up_kernel_folders(const SetupDirsRequest& request);

}  // namespace backendbench::session
