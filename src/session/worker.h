// The worker side of a run: a process started by the worker pool
// (workers/pool.h) as `<binary> __worker`, which reads its configuration from
// the socket, makes the backend and serves tests until the run closes it.
#pragma once

namespace backendbench::session {

// The worker's whole life; returns its exit status.
int serve_as_worker();

// A judge's whole life (`<binary> __judge`, judge/kernel_process.h): a worker
// of the run that starts its own sandboxed worker for the kernels and keeps
// ATen's reference and the comparison of outputs to itself.
int serve_as_judge();

}  // namespace backendbench::session
