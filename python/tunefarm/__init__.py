"""tunefarm from Python: compiled models (.tfm) run on NumPy arrays, ONNX models tuned and built
into them, tuning jobs submitted to a tracker.

    import numpy as np, tunefarm
    tunefarm.tune_model("resnet18.onnx", db="tunefarm.db", trials=400, threads=2)
    tunefarm.build("resnet18.onnx", "resnet18.tfm", db="tunefarm.db", threads=2)
    model = tunefarm.Model("resnet18.tfm", threads=2)
    out = model.run({"input": np.zeros((1, 3, 224, 224), np.float32)})

Loading and running a model needs the runtime alone (tunefarm._runtime), as a board does; the
compiler (tunefarm._compiler, LLVM) is loaded by the first build or tuning job, the tracker's
client (tunefarm._client, gRPC) by the first Client.
"""
import json
import os

from tunefarm._runtime import Model

__all__ = ["Model", "build", "tune_model", "Client"]


def build(onnx_path, output=None, *, db=None, threads=1, input_shapes=None, batch=None, target="native", key=None,
          timing="cold-weights"):
    """Compiles an ONNX model into a .tfm file, as `tunefarm model build` does: each kernel with db's
    best config for this target and thread count (or the boards' key), the default elsewhere.

    output: the .tfm to write (default: beside the .onnx). input_shapes: {input name: full shape}
    binding symbolic extents; batch: extent 0 of the others. Returns what was built: {"output",
    "kernels", "tuned_kernels" (built with a config from db), "steps", "peak_activation_bytes",
    "seconds", ...}. ValueError for a bad model, shape, option or path (the message names it),
    RuntimeError when the build itself fails."""
    from tunefarm import _compiler  # LLVM: only in processes that build

    onnx_path = os.fspath(onnx_path)
    if output is None:
        output = os.path.splitext(onnx_path)[0] + ".tfm"
    shapes = {str(name): [int(d) for d in shape] for name, shape in (input_shapes or {}).items()}
    return _compiler.build(onnx_path, os.fspath(output), None if db is None else os.fspath(db), int(threads), shapes,
                           None if batch is None else int(batch), target, key, timing)


def _shapes(input_shapes):
    return {str(name): [int(d) for d in shape] for name, shape in (input_shapes or {}).items()}


def tune_model(onnx_path, *, db="tunefarm.db", trials=2000, threads=1, input_shapes=None, batch=None,
               target="native", layouts="per-conv", scheduler="gradient", tuner="xgb", cold_inputs="weights",
               time_limit_s=0, seed=1, progress=None, key=None, client=None, priority=1):
    """Tunes every distinct kernel of an ONNX model as one job with one trial budget, as `tunefarm
    model tune` does.

    On this host by default: measured at `threads` threads and recorded in `db` (a SQLite file,
    created when missing, or a postgresql:// URL); a job of the same tasks and settings that did not
    finish is resumed. Returns what `model tune --json` prints: {"job_id", "state", "trials",
    "estimated_ms", "measured_ms", "tasks": [...], ...}. `progress(dict)` is called after each batch
    with {"trials", "budget", "estimated_ms", "elapsed_s", "task", "task_trials", "task_best_ms", ...};
    Ctrl-C or an exception raised by `progress` stops the search, keeps what was measured and is
    raised after.

    With `key` (and `client`, a Client or "HOST:PORT"): the job runs on the tracker's boards of that
    key instead; `progress` gets each snapshot of the job (Client.status's dict) and the result is
    the job's last snapshot with "model" and "input_shapes" added. The tracker records it in its db.

    ValueError for a bad model, shape or option (the message names it), RuntimeError when the
    tuning itself fails."""
    from tunefarm import _compiler  # LLVM: only in processes that build or tune

    onnx_path = os.fspath(onnx_path)
    shapes = _shapes(input_shapes)
    batch = None if batch is None else int(batch)
    if key is None:
        if client is not None:
            raise ValueError("client: a job on a tracker needs key= (which of its boards measure)")
        # Kernels are measured in the worker that ships beside this file, unless the caller named one.
        os.environ.setdefault("TUNEFARM_MEASURE_WORKER", os.path.join(os.path.dirname(__file__),
                                                                      "tunefarm-measure-worker"))
        return _compiler.tune_model(onnx_path, shapes, batch, target, layouts, os.fspath(db), int(trials),
                                    int(threads), scheduler, tuner, cold_inputs, float(time_limit_s), int(seed),
                                    progress)
    if client is None:
        raise ValueError("key: a job on a tracker needs client= (a tunefarm.Client or \"HOST:PORT\")")
    if not isinstance(client, Client):
        client = Client(client)
    tasks = _compiler.model_tasks(onnx_path, shapes, batch, target, layouts)
    job = {"workloads": tasks["workloads"], "key": key, "trials": int(trials), "tuner": tuner,
           "priority": int(priority), "seed": int(seed), "scheduler": scheduler,
           "model": os.path.basename(onnx_path), "input_shapes": tasks["inputs_text"],
           "time_limit_s": float(time_limit_s), "measure": {"cold_inputs": cold_inputs}}
    last = client.submit(job=job)
    for snapshot in client.follow(last["id"]):
        last = snapshot
        if progress is not None:
            progress(snapshot)
    last["model"] = onnx_path
    last["input_shapes"] = tasks["input_shapes"]
    return last


class Client:
    """A tracker's tuning service, as the `tunefarm submit/status/cancel/devices/best` commands use it.

        client = tunefarm.Client("127.0.0.1:9190", token_file="me.token")
        job = client.submit([{"op": "dense", "shape": [512, 512, 512]}], key="x86", trials=64)
        for snapshot in client.follow(job["id"]):
            print(snapshot["state"], snapshot["workloads"][0]["trials_done"])

    Records are the dicts `--json` prints. A refused token raises PermissionError, a bad request
    (a field, an unknown job) ValueError, an unreachable tracker ConnectionError, a failure of the
    tracker RuntimeError: each with the message the CLI prints."""

    def __init__(self, address="127.0.0.1:9190", *, token_file=None, tls_ca=None):
        from tunefarm import _client  # gRPC: only in processes that talk to a tracker

        self._client = _client.Client(str(address), None if token_file is None else os.fspath(token_file),
                                      None if tls_ca is None else os.fspath(tls_ca))

    @property
    def address(self):
        return self._client.address

    def submit(self, workloads=None, *, job=None, key=None, trials=None, tuner=None, priority=None, seed=None,
               measure=None):
        """Submits a tuning job and returns its record. `workloads`: [{"op": "dense", "shape": [...]}];
        or `job`: a job as `tunefarm submit --job` takes it (a dict, or the path of a JSON file). The
        keywords set the job's fields; a field set both ways raises ValueError."""
        if job is None:
            spec = {}
        elif isinstance(job, dict):
            spec = dict(job)
        else:
            with open(job, encoding="utf-8") as f:
                spec = json.load(f)
            if not isinstance(spec, dict):
                raise ValueError(f"job {job}: expected a JSON object")
        given = {"workloads": workloads, "key": key, "trials": trials, "tuner": tuner, "priority": priority,
                 "seed": seed, "measure": measure}
        for field, value in given.items():
            if value is None:
                continue
            if field in spec and spec[field] != value:
                raise ValueError(f"{field}: given as an argument and in the job")
            spec[field] = value
        return self._client.submit(json.dumps(spec))

    def status(self, job_id):
        """The job's record: {"id", "state", "workloads": [{"trials_done", "best_gflops", ...}], ...}."""
        return self._client.status(int(job_id))

    def jobs(self, active=False):
        """The tracker's jobs, newest first (queued and running only when `active`)."""
        return self._client.jobs(bool(active))

    def follow(self, job_id):
        """Yields the job's record each time it progresses, until it ends (the last carries the final
        state). A tracker that restarts resumes the job, and the watch waits up to a minute for it."""
        watch = self._client.watch(int(job_id))
        try:
            while True:
                snapshot = watch.next()
                if snapshot is None:
                    return
                yield snapshot
        finally:
            watch.close()

    def cancel(self, job_id):
        """Cancels the job; returns its record."""
        return self._client.cancel(int(job_id))

    def devices(self, key=""):
        """The boards connected now (of `key` when given)."""
        return self._client.devices(str(key))

    def best(self, key, op, shape, timing=""):
        """The best config the fleet measured for the workload on boards of `key`, or None:
        {"workload", "gflops", "config", "target", "device", "job_id", "timing", "costs", ...}."""
        return self._client.best(str(key), str(op), [int(d) for d in shape], str(timing))
