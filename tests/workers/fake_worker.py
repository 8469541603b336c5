#!/usr/bin/env python3
"""A stand-in worker for the pool's tests (tests/workers/pool_deadline_test.cpp).

Speaks the worker protocol (src/workers/messages.h) on fd 3 and, for each job,
acts out the phases its "args" list: "setup:1.0 candidate:0.1" spends one
second in setup and a tenth in the candidate, then passes the test. A phase
named "waiting" is time spent waiting for the device lock.
"""
import json
import os
import struct
import time

SOCKET = 3


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
        send({"type": "started", "id": job["id"]})
        for step in job["args"].split():
            phase, seconds = step.split(":")
            send({"type": "phase", "id": job["id"], "phase": phase})
            time.sleep(float(seconds))
        send({"type": "phase", "id": job["id"], "phase": "setup"})
        result = {"op_name": "phases.default", "args": job["args"], "is_correct": True}
        send({"type": "result", "id": job["id"], "outcome": {"skipped": False, "correctness": result},
              "context_lost": False})


if __name__ == "__main__":
    main()
