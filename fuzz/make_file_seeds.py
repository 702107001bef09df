#!/usr/bin/python3
"""Writes the seeds of the npy and model_file fuzz targets: small .npy files as NumPy writes them
(support/npy.h) and small .tfm files as the model writer lays them out (runtime/model/model_file.h),
with a few bytes standing in for each kernel library (the loader copies them, never runs them).

    /usr/bin/python3 fuzz/make_file_seeds.py fuzz/corpus
"""
import json
import struct
import sys
from pathlib import Path


def npy(header, data, major=1):
    prefix = 10 if major == 1 else 12
    pad = (prefix + len(header) + 1 + 63) // 64 * 64 - prefix - len(header) - 1
    text = (header + " " * pad + "\n").encode()
    length = struct.pack("<H" if major == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([major, 0]) + length + text + data


def floats(*v):
    return struct.pack(f"<{len(v)}f", *v)


def tfm(manifest, payload):
    text = json.dumps(manifest, separators=(",", ":")).encode()
    out = b"TFMODEL\0" + struct.pack("<IIQQ", 1, 0, len(text), len(payload)) + text
    return out + b"\0" * ((len(out) + 63) // 64 * 64 - len(out)) + payload


def value(name, shape, storage, offset, dtype="float32"):
    return {"name": name, "shape": shape, "dtype": dtype, "storage": storage, "offset": offset}


def typed_model():
    """int64 ids [2,3] and an int32 constant [3] -> a cast kernel writing a bool mask [2,3]: every
    dtype a value may hold, each sized by its own element width."""
    library = b"\x7fELF\x02\x01\x01" + b"\0" * 57
    limits = struct.pack("<3i", 1, 2, 3)
    return tfm({
        "format": "tunefarm-model", "target": "t", "threads": 1, "arena_bytes": 128,
        "values": [value("ids", [2, 3], "arena", 0, "int64"), value("limit", [3], "constant", 0, "int32"),
                   value("mask", [2, 3], "arena", 64, "bool"), value("score", [2, 3], "arena", 0, "float32")],
        "inputs": [0], "outputs": [2, 3],
        "kernels": [{"workload": "elementwise[w]", "config": "{}", "entry": "tf_w", "offset": 0, "size": 64}],
        "steps": [{"kernel": 0, "args": [0, 1, 2], "node": "less"}],
        "constants": {"offset": 64, "size": len(limits)},
    }, library + limits)


def two_step_model():
    """x [1,8] -> dense with a constant weight [8,4] -> relu viewed as [4]: two kernels, one view."""
    library = b"\x7fELF\x02\x01\x01" + b"\0" * 57
    weights = floats(*[0.5] * 32)
    payload = library + library + weights
    return tfm({
        "format": "tunefarm-model", "target": "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v3", "threads": 1,
        "arena_bytes": 128,
        "values": [value("x", [1, 8], "arena", 0), value("w", [8, 4], "constant", 0), value("h", [1, 4], "arena", 64),
                   value("y", [1, 4], "arena", 0)],
        "inputs": [0], "outputs": [3],
        "kernels": [{"workload": "dense[1,4,8]", "config": "{\"mr\":1}", "entry": "tf_dense", "offset": 0, "size": 64},
                    {"workload": "relu[4]", "config": "{}", "entry": "tf_relu", "offset": 64, "size": 64}],
        "steps": [{"kernel": 0, "args": [0, 1, 2], "node": "dense1"},
                  {"kernel": 1, "args": [2, 3], "node": "relu1", "shapes": [[4], [4]]}],
        "constants": {"offset": 128, "size": len(weights)},
    }, payload)


def claims(manifest_size, payload_size):
    """A 128-byte .tfm whose header claims far more than the file: once allocated before reading."""
    return (b"TFMODEL\0" + struct.pack("<IIQQ", 1, 0, manifest_size, payload_size)).ljust(128, b"\0")


def one_value_model(kernels, shape=(4,), arena_bytes=64, payload=b"k" * 64):
    return tfm({
        "format": "tunefarm-model", "target": "t", "threads": 1, "arena_bytes": arena_bytes,
        "values": [value("x", list(shape), "arena", 0)], "inputs": [0], "outputs": [0], "kernels": kernels, "steps": [],
        "constants": {"offset": 0, "size": 0}}, payload)


def kernel(offset, size):
    return {"workload": "w", "config": "{}", "entry": "e", "offset": offset, "size": size}


def main():
    out = Path(sys.argv[1])
    seeds = {
        "npy/vector.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", floats(1, 2, 3)),
        "npy/matrix.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", floats(1, 2, 3, 4)),
        "npy/scalar.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats(7)),
        "npy/empty.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", b""),
        "npy/version2_reordered.npy": npy("{\"shape\": (1L, 2L), \"descr\": \"=f4\", \"fortran_order\": False}", floats(1, 2), 2),
        "npy/float64.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", struct.pack("<d", 1.0)),
        "npy/int64.npy": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", struct.pack("<2q", -1, 1 << 40)),
        "npy/int32.npy": npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1), }", struct.pack("<2i", 7, -7)),
        "npy/bool.npy": npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", bytes([0, 1, 1])),
        "model_file/two_steps.tfm": two_step_model(),
        "model_file/typed_values.tfm": typed_model(),
        "model_file/no_steps.tfm": tfm({
            "format": "tunefarm-model", "target": "t", "threads": 1, "arena_bytes": 64,
            "values": [value("x", [4], "arena", 0)], "inputs": [0], "outputs": [0], "kernels": [], "steps": [],
            "constants": {"offset": 0, "size": 0}}, b""),
        # The probe's findings (issue 36), kept so that every run checks them under the sanitizers.
        "npy/regress-claims-4GiB.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", floats(1, 2)),
        "npy/regress-shape-overflow.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", b""),
        "model_file/regress-claims-64GiB.tfm": claims(1 << 35, 1 << 35),
        "model_file/regress-section-offset-overflow.tfm": one_value_model([kernel(2**63 - 64, 128)]),
        "model_file/regress-overlapping-sections.tfm": one_value_model([kernel(0, 64)] * 3),
        "model_file/regress-shape-overflow.tfm": one_value_model([], shape=(2**31, 2**31, 2**31)),
        "model_file/regress-arena-4GiB.tfm": one_value_model([], arena_bytes=1 << 32),
    }
    for name, data in seeds.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


if __name__ == "__main__":
    main()
