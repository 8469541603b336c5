#!/usr/bin/env python3
"""A stand-in worker for the pool's tests (tests/workers/pool_deadline_test.cpp).

Speaks the worker protocol (src/workers/messages.h) on fd 3 and, for each job,
acts out the phases its "args" list: "setup:1.0 candidate:0.1" spends one
second in setup and a tenth in the candidate, then passes the test. A phase
named "waiting" is time spent waiting for the device lock. A step "forge:WHAT"
sends a frame no worker sends, as something writing into its line would:
"other-id" a result for a test it was not given, "twice" its result twice,
"garbage" a frame that is no JSON, "before-start" a result for another
test before this one's "started" (while the last test's answer waits to be
counted). A step "claim:MS" makes the result a
performance result whose 100 ATen samples took MS milliseconds each. A step "oom:always" fails the test with
OutOfMemoryError; "oom:shared" does so while another stand-in worker of the same run is alive. A step "alone:1" fails
the test (NotAlone) while another stand-in worker of the run is alive. A step "late-start:1" sends the test's
"started" only once its phases are done, just before its result, as a run whose loop was busy elsewhere reads both
at once. A step "lost:SECONDS" answers that the test lost the device context, then takes SECONDS to exit, as a
worker does while its driver tears the context down. A step "once:PATH" fails the test (RanTwice) when PATH exists,
and creates it: the test must pass on its first run, not on a retry. A step "whoami:1" puts the worker's pid in
the result's error_msg. A step "done:PATH" creates PATH once the test's phases are done; "after:PATH" fails the test
(StartedEarly) when PATH is not there as it begins.
"""
import json
import os
import struct
import time

SOCKET = 3
RERUNS = set()  # the ids of jobs whose "once:PATH" marker was there when they began
EARLY = set()  # the ids of jobs whose "after:PATH" marker was not there yet when they began


def send(message):
    data = json.dumps(message).encode()
    os.write(SOCKET, struct.pack("<I", len(data)) + data)


def receive():
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = os.read(SOCKET, n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    head = exactly(4)
    if head is None:
        return None
    return json.loads(exactly(struct.unpack("<I", head)[0]))


def send_raw(data):
    os.write(SOCKET, struct.pack("<I", len(data)) + data)


def other_workers_alive():
    """Whether another stand-in worker of this worker's run (the same parent) is alive."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == os.getppid() and b"fake_worker.py" in command:
            return True
    return False


def result_of(job):
    outcome = {"skipped": False,
               "correctness": {"op_name": "phases.default", "args": job["args"], "is_correct": True}}
    steps = job["args"].split()
    if "oom:always" in steps or ("oom:shared" in steps and other_workers_alive()):
        outcome["correctness"].update(is_correct=False, error_type="OutOfMemoryError",
                                      error_msg="CUDA out of memory (stand-in)")
    if job["id"] in RERUNS:
        outcome["correctness"].update(is_correct=False, error_type="RanTwice", error_msg="run a second time")
    if job["id"] in EARLY:
        outcome["correctness"].update(is_correct=False, error_type="StartedEarly", error_msg="began before its marker")
    if "alone:1" in steps and other_workers_alive():
        outcome["correctness"].update(is_correct=False, error_type="NotAlone", error_msg="another worker is alive")
    if "whoami:1" in steps:
        outcome["correctness"]["error_msg"] = str(os.getpid())
    for step in steps:
        if step.startswith("claim:"):
            reference_ms = float(step.split(":")[1])
            outcome = {"skipped": False, "reference_source": "timed", "performance": {
                "op_name": "phases.default", "args": job["args"], "successfully_ran": True,
                "speedup": reference_ms / 0.01, "benchmark_time_ms": 0.01, "reference_time_ms": reference_ms,
                "benchmark_samples": 100, "reference_samples": 100, "timing_mode": "kernel"}}
    return {"type": "result", "id": job["id"], "outcome": outcome,
            "context_lost": any(step.startswith("lost:") for step in steps)}


def forge(what, job):
    if what == "other-id":
        send(dict(result_of(job), id=job["id"] + 1000))
    elif what == "before-start":
        send(dict(result_of(job), id=job["id"] + 1000))
    elif what == "garbage":
        send_raw(b"\x00 not json")


def main():
    if receive() is None:  # the configuration
        return
    send({"type": "ready", "launch_floor_ms": 0.01})
    while True:
        message = receive()
        if message is None:
            return
        if message.get("type") != "job":
            continue
        job = message["job"]
        send({"type": "phase", "id": job["id"], "phase": "waiting"})  # for the device lock, as workers do
        steps = job["args"].split()
        for step in steps:
            if step.startswith("once:"):
                try:
                    open(step.split(":", 1)[1], "x").close()
                except FileExistsError:
                    RERUNS.add(job["id"])
            if step.startswith("after:") and not os.path.exists(step.split(":", 1)[1]):
                EARLY.add(job["id"])
        if "forge:before-start" in steps:
            forge("before-start", job)
        late_start = "late-start:1" in steps
        if not late_start:
            send({"type": "started", "id": job["id"]})
        for step in steps:
            phase, value = step.split(":")
            if phase == "forge" and value == "before-start":
                continue
            if phase == "forge":
                forge(value, job)
                continue
            if phase in ("claim", "oom", "alone", "late-start", "lost", "once", "whoami", "after", "done"):
                continue
            send({"type": "phase", "id": job["id"], "phase": phase})
            time.sleep(float(value))
        for step in steps:
            if step.startswith("done:"):
                open(step.split(":", 1)[1], "a").close()
        if late_start:
            send({"type": "started", "id": job["id"]})
        send({"type": "phase", "id": job["id"], "phase": "setup"})
        send(result_of(job))
        if "forge:twice" in steps:
            send(result_of(job))
        for step in steps:
            if step.startswith("lost:"):
                time.sleep(float(step.split(":")[1]))
                return


if __name__ == "__main__":
    main()
