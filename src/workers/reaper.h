// Nothing a kernel starts outlives its test. A worker is a child subreaper:
// every process its kernels start, double-forked and setsid'ed ones included,
// stays its descendant (orphans are reparented to it, not to init), so after
// each test the worker kills all of them. The run is a subreaper too, for the
// leftovers of a worker that died: they come to the run, which kills them.
// Processes are found through /proc. Torch-free.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>

namespace backendbench::workers {

// Makes this process the subreaper of its descendants; returns whether it was one already.
bool become_subreaper();

// Stops this process being a subreaper.
void stop_being_subreaper();

// Kills (SIGKILL) every descendant of this process, its children's
// descendants included, except the children for which `spare(child)` says
// true and their descendants; reaps the killed that are its children (as
// orphans come to it) and repeats until none is left, or for at most
// `limit_ms`. Returns how many processes it killed.
size_t kill_descendants(const std::function<bool(pid_t child)>& spare = {}, int limit_ms = 5000);

// When `pid` started, in clock ticks since boot (/proc/<pid>/stat), or 0 when unknown.
unsigned long long start_ticks(pid_t pid);

// Now, in the same clock ticks.
unsigned long long ticks_now();

}  // namespace backendbench::workers
