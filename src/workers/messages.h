// What the run and its workers say to each other, as JSON frames:
//   run -> worker:  {"type": "config", ...WorkerConfig}, then {"type": "job", "job": {...}} ...
//                   {"type": "drop_baseline", "reason": "..."} (another worker found a cached reference untrue)
//   worker -> run:  {"type": "ready", "launch_floor_ms": x}
//                   {"type": "started", "id": n}      (kernel loaded; the test's deadlines start)
//                   {"type": "phase", "id": n, "phase": "candidate"} (at each change: a results::Phase name,
//                                                     "waiting" while it waits for the device lock)
//                   {"type": "baseline_dropped", "reason": "..."} (a cached reference is no longer true)
//                   {"type": "result", "id": n, "outcome": {...}, "context_lost": bool}
//                   {"type": "fatal", "message": "..."} (the worker cannot start; it exits)
// The run closes the socket to stop a worker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "check/tolerance.h"
#include "timing/timer.h"
#include "workers/sandbox.h"

namespace backendbench::workers {

// Everything a worker needs to evaluate tests as the run would.
struct WorkerConfig {
  backends::BackendSpec backend;
  std::string device = "cpu";  // this worker's device: "cpu", "cuda:1"
  uint64_t seed = 0;
  // The run's secret (runner::RunOptions::secret): sent over the socket only,
  // never written to a file a kernel could read.
  uint64_t secret = 0;
  check::Tolerance tolerance;
  timing::TimingOptions timing;
  bool baseline_cache = true;
  // A judge times ATen itself, the kernel's process stopped meanwhile, and the candidate alone there
  // (--judge-times-aten); the kernel's process then never reaches the cache of ATen's timings.
  bool judge_times_aten = false;
  std::string log_level = "INFO";
  size_t memory_limit_mb = 0;  // address space a worker may add after starting (0: no limit)
  double cpu_limit_s = 0;      // CPU time a worker may use (0: no limit)
  SandboxConfig sandbox;       // workers/sandbox.h; the scratch folder is set per worker
  // Processes kernel code may not signal besides the worker's parent: the run, where a judge started the worker.
  std::vector<int> guarded;
  // A judge started this worker: it serves the judge's requests (judge/candidate_service.h) and may not
  // write the cache of ATen's timings (sandbox.baselines, which follows from this field).
  bool for_judge = false;
};

nlohmann::ordered_json to_json(const WorkerConfig& config);
WorkerConfig config_from_json(const nlohmann::ordered_json& j);

}  // namespace backendbench::workers
