"""tunefarm from Python: compiled models (.tfm) run on NumPy arrays, ONNX models built into them.

    import numpy as np, tunefarm
    tunefarm.build("resnet18.onnx", "resnet18.tfm", db="tunefarm.db", threads=2)
    model = tunefarm.Model("resnet18.tfm", threads=2)
    out = model.run({"input": np.zeros((1, 3, 224, 224), np.float32)})

Loading and running a model needs the runtime alone (tunefarm._runtime), as a board does; the
compiler (tunefarm._compiler, LLVM) is loaded by the first build.
"""
import os

from tunefarm._runtime import Model

__all__ = ["Model", "build"]


def build(onnx_path, output=None, *, db=None, threads=1, input_shapes=None, batch=None, target="native", key=None,
          timing="cold-weights"):
    """Compiles an ONNX model into a .tfm file, as `tunefarm model build` does: each kernel with db's
    best config for this target and thread count (or the boards' key), the default elsewhere.

    output: the .tfm to write (default: beside the .onnx). input_shapes: {input name: full shape}
    binding symbolic extents; batch: extent 0 of the others. Returns what was built: {"output",
    "kernels", "steps", "peak_activation_bytes", "seconds", ...}. ValueError for a bad model, shape,
    option or path (the message names it), RuntimeError when the build itself fails."""
    from tunefarm import _compiler  # LLVM: only in processes that build

    onnx_path = os.fspath(onnx_path)
    if output is None:
        output = os.path.splitext(onnx_path)[0] + ".tfm"
    shapes = {str(name): [int(d) for d in shape] for name, shape in (input_shapes or {}).items()}
    return _compiler.build(onnx_path, os.fspath(output), None if db is None else os.fspath(db), int(threads), shapes,
                           None if batch is None else int(batch), target, key, timing)
