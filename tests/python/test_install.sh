#!/bin/sh
# The package installed without a package index, both ways docs/python.md gives, imports from where
# it was installed alone (outside the build tree) and builds, tunes and runs a model there:
#   cmake --install BUILD --component python --prefix DIR
#   pip install --no-deps --no-build-isolation --target DIR SOURCE   (pyproject.toml drives CMake)
# Usage: test_install.sh SOURCE_DIR BUILD_DIR SITE_SUBDIR MODELS_DIR SCRATCH_DIR
set -eu
source=$1 build=$2 site=$3 models=$4 scratch=$5
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --component python --prefix "$scratch/prefix" > /dev/null
TUNEFARM_BUILD_DIR="$build" /usr/bin/python3 -m pip install --quiet --no-deps --no-build-isolation --no-index \
  --target "$scratch/pip" "$source" > "$scratch/pip.log" 2>&1 || { cat "$scratch/pip.log" >&2; exit 1; }
cd "$scratch"
for where in "$scratch/prefix/$site" "$scratch/pip"; do
  PYTHONPATH="$where" /usr/bin/python3 - "$where" "$scratch" "$models" <<'PY'
import os
import sys

import numpy as np
import tunefarm

where, scratch, models = sys.argv[1], sys.argv[2], sys.argv[3]
assert tunefarm.__file__.startswith(where + "/"), tunefarm.__file__
db = os.path.join(scratch, "tune.db")
tuned = tunefarm.tune_model(models + "/small_cnn.onnx", db=db, trials=2, tuner="random")
assert tuned["state"] == "done", tuned
report = tunefarm.build(models + "/small_cnn.onnx", scratch + "/small_cnn.tfm", db=db)
model = tunefarm.Model(report["output"])
spec = model.inputs[0]
out = model.run({spec["name"]: np.zeros(spec["shape"], np.float32)})
assert [o["name"] for o in model.outputs] == list(out), out.keys()
print("installed package at", tunefarm.__file__, "tuned, built and ran", report["output"])
PY
  rm -f "$scratch/tune.db"
done
rm -rf "$scratch"
