#!/usr/bin/python3
"""Writes the worker_frames fuzz target's seeds: frames as a measuring parent and its worker
exchange them (runtime/measure_worker.cc: setup, measure, lock notices, result).

    /usr/bin/python3 fuzz/make_frame_seeds.py fuzz/corpus/worker_frames
"""
import struct
import sys
from pathlib import Path

SETUP, MEASURE, RESULT, LOCK_WAITING, LOCK_HELD = 1, 2, 3, 4, 5


def frame(kind, payload):
    return struct.pack("<IQ", kind, len(payload)) + payload


def blob(b):
    return struct.pack("<Q", len(b)) + b


def setup(shapes, expected, tolerance):
    out = struct.pack("<I", len(shapes))
    for shape in shapes:
        out += struct.pack("<I", len(shape)) + struct.pack(f"<{len(shape)}q", *shape) + struct.pack("<ii", 2, 32)
    out += struct.pack("<iQ", len(shapes) - 1, 42)
    out += blob(struct.pack(f"<{len(expected)}f", *expected)) + blob(struct.pack(f"<{len(tolerance)}f", *tolerance))
    return out


def measure(library, entry):
    return (blob(library) + blob(entry.encode()) + struct.pack("<iididd", 3, 0, 20.0, 0, 0.0, 10.0)
            + blob(b"/tmp/tunefarm-timing.lock"))


def result(status, error, costs):
    return struct.pack("<i", status) + blob(error.encode()) + struct.pack("<iI", 4, len(costs)) + struct.pack(f"<{len(costs)}d", *costs)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seeds = {
        "setup_dense": frame(SETUP, setup([[4, 3], [3, 2], [4, 2]], [0.5] * 8, [1e-4] * 8)),
        "setup_then_measure": frame(SETUP, setup([[2], [2]], [1.0, 2.0], [])) + frame(MEASURE, measure(b"\x7fELF\x02\x01\x01", "tf_add_2")),
        "result_ok": frame(LOCK_WAITING, b"") + frame(LOCK_HELD, b"") + frame(RESULT, result(0, "", [1.5e-4, 1.4e-4, 1.6e-4])),
        "result_crash": frame(RESULT, result(3, "killed by signal 11 (Segmentation fault)", [])),
    }
    for name, data in seeds.items():
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main()
