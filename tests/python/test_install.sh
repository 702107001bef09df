#!/bin/sh
# The package installed with `cmake --install BUILD --component python --prefix DIR` (no package
# index) imports from DIR alone, outside the build tree, and builds and runs a model there.
# Usage: test_install.sh BUILD_DIR SITE_SUBDIR MODELS_DIR SCRATCH_DIR
set -eu
build=$1 site=$2 models=$3 scratch=$4
rm -rf "$scratch"
cmake --install "$build" --component python --prefix "$scratch/prefix" > /dev/null
cd "$scratch"
PYTHONPATH="$scratch/prefix/$site" /usr/bin/python3 - "$scratch" "$models" <<'PY'
import sys
import numpy as np
import tunefarm

scratch, models = sys.argv[1], sys.argv[2]
assert tunefarm.__file__.startswith(scratch + "/prefix/"), tunefarm.__file__
report = tunefarm.build(models + "/small_cnn.onnx", scratch + "/small_cnn.tfm")
model = tunefarm.Model(report["output"])
spec = model.inputs[0]
out = model.run({spec["name"]: np.zeros(spec["shape"], np.float32)})
assert [o["name"] for o in model.outputs] == list(out), out.keys()
print("installed package at", tunefarm.__file__, "built and ran", report["output"])
PY
rm -rf "$scratch"
