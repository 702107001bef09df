#!/usr/bin/python3
"""Checks the models scripts/make-models.py writes in the shape exporters leave them (BINDINGS there):
each passes onnx.checker.check_model(full_check=True), runs in ONNX Runtime (bench/ort/ort_run.js,
the npm onnxruntime-node peer) on seeded random inputs at its binding with finite outputs of the
shapes the binding implies, and, given --tunefarm, what `tunefarm model inspect --input-shape ...`
says of it: the ops it refuses, or that it imports. Run with /usr/bin/python3:

    scripts/check-exported-models.py build/models [--tunefarm build/cli/tunefarm]

Exit 0 when every model passes the checker and runs in ONNX Runtime (tunefarm's refusals are
reported, not failures: they list the ops still to build); 1 otherwise.
"""
import argparse
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_RUN = os.path.join(HERE, "..", "bench", "ort", "ort_run.js")


def load_bindings():
    spec = importlib.util.spec_from_file_location("make_models", os.path.join(HERE, "make-models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BINDINGS


def random_input(info, shape, rng):
    if info.type.tensor_type.elem_type == onnx.TensorProto.INT64:
        if "mask" in info.name:  # ones, with padding at the end of the sequence
            mask = np.ones(shape, np.int64)
            mask[..., shape[-1] * 3 // 4:] = 0
            return mask
        return rng.integers(0, 1000, shape, dtype=np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def expected_shape(info, symbols):
    """The output's declared extents, symbolic ones resolved where an input bound the name."""
    out = []
    for d in info.type.tensor_type.shape.dim:
        out.append(d.dim_value if d.HasField("dim_value") else symbols.get(d.dim_param))
    return out


def check_in_ort(model, path, binding, work):
    rng = np.random.default_rng(30)
    symbols, args = {}, []
    for info in model.graph.input:
        if info.name not in binding:
            continue
        shape = binding[info.name]
        for d, v in zip(info.type.tensor_type.shape.dim, shape):
            if d.dim_param:
                symbols[d.dim_param] = v
        file = os.path.join(work, info.name + ".npy")
        np.save(file, random_input(info, shape, rng))
        args += ["--input", f"{info.name}={file}"]
    out_dir = os.path.join(work, "ort")
    run = subprocess.run(["node", ORT_RUN, "--model", path, "--output-dir", out_dir, "--json"] + args, capture_output=True, text=True)
    if run.returncode != 0:
        return [f"ONNX Runtime failed: {run.stderr.strip()}"]
    report = json.loads(run.stdout[run.stdout.index("{"):])
    problems = []
    declared = {o.name: o for o in model.graph.output}
    for o in report["outputs"]:
        got = np.load(o["file"])
        want = expected_shape(declared[o["name"]], symbols)
        if len(want) != got.ndim or any(w is not None and w != g for w, g in zip(want, got.shape)):
            problems.append(f"output {o['name']} has shape {list(got.shape)}, expected {want}")
        if not np.all(np.isfinite(got)):
            problems.append(f"output {o['name']} is not finite")
        print(f"    ORT output {o['name']} {list(got.shape)} max|y| {float(np.max(np.abs(got))):.3g}")
    print(f"    ORT {report.get('version')}: {report['latency_ms']:.2f} ms")
    return problems


def tunefarm_says(tunefarm, path, binding):
    flags = []
    for name, shape in binding.items():
        flags += ["--input-shape", f"{name}={','.join(map(str, shape))}"]
    run = subprocess.run([tunefarm, "model", "inspect", path, "--json"] + flags, capture_output=True, text=True)
    if run.returncode == 2:
        return f"refused: {run.stderr.strip()}"
    j = json.loads(run.stdout)
    if run.returncode == 0:
        return f"imports: {len(j['tasks'])} tunable tasks"
    ops = collections.Counter(m.group(1) for line in j["unsupported"] for m in [re.search(r"\((\w+), opset", line)] if m)
    missing = ", ".join(f"{op} x{n}" for op, n in sorted(ops.items()))
    return f"{len(j['unsupported'])} nodes refused; ops: {missing}" + (f"; {j['binding_error']}" if j.get("binding_error") else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="the folder make-models.py wrote")
    parser.add_argument("--tunefarm", help="the tunefarm binary: also report what `model inspect` says")
    args = parser.parse_args()
    failed = False
    for name, binding in load_bindings().items():
        path = os.path.join(args.dir, name + ".onnx")
        model = onnx.load(path)
        opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
        params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
        print(f"{name}: opset {opset}, {len(model.graph.node)} nodes, {params / 1e6:.2f} M parameters")
        problems = []
        try:
            onnx.checker.check_model(model, full_check=True)
        except onnx.checker.ValidationError as e:
            problems.append(f"onnx checker: {e}")
        with tempfile.TemporaryDirectory() as work:
            problems += check_in_ort(model, path, binding, work)
        if args.tunefarm:
            print(f"    tunefarm: {tunefarm_says(args.tunefarm, path, binding)}")
        for p in problems:
            print(f"    FAIL {p}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
