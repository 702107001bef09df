"""tunefarm.Model and tunefarm.build against the command line: a model built by `tunefarm model
build` (or tunefarm.build), run from Python and by `tunefarm model run` on the same .npy inputs,
gives the same bytes; bad inputs raise ValueError naming the input; running a model loads no
compiler (LLVM) into the process.

Run by ctest with PYTHONPATH=build/python, TF_CLI (the tunefarm binary) and TF_MODELS_DIR set."""
import os
import subprocess
import tempfile
import unittest

import numpy as np

import tunefarm

CLI = os.environ["TF_CLI"]
MODELS = os.environ["TF_MODELS_DIR"]


class ModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tunefarm-python-")
        cls.tfm = os.path.join(cls.dir, "small_cnn.tfm")
        subprocess.run([CLI, "model", "build", os.path.join(MODELS, "small_cnn.onnx"), "-o", cls.tfm, "--quiet"],
                       check=True, capture_output=True)

    def setUp(self):
        self.model = tunefarm.Model(self.tfm, threads=2)
        self.spec = self.model.inputs[0]
        rng = np.random.default_rng(7)
        self.x = rng.standard_normal(self.spec["shape"]).astype(np.float32)

    def test_outputs_equal_the_command_lines_bit_for_bit(self):
        npy = os.path.join(self.dir, "x.npy")
        np.save(npy, self.x)
        out = os.path.join(self.dir, "out")
        subprocess.run([CLI, "model", "run", self.tfm, "--threads", "2", "--input", f"{self.spec['name']}={npy}",
                        "-o", out], check=True, capture_output=True)
        ours = self.model.run({self.spec["name"]: self.x})
        self.assertEqual(set(ours), {o["name"] for o in self.model.outputs})
        for name, value in ours.items():
            theirs = np.load(os.path.join(out, name + ".npy"))
            self.assertEqual(value.dtype, theirs.dtype)
            self.assertEqual(value.shape, theirs.shape)
            self.assertEqual(value.tobytes(), theirs.tobytes(), name)

    def test_a_non_contiguous_input_gives_what_its_contiguous_copy_gives(self):
        wide = np.repeat(self.x, 2, axis=-1)[..., ::2]
        self.assertFalse(wide.flags["C_CONTIGUOUS"])
        a = self.model.run({self.spec["name"]: wide})
        b = self.model.run({self.spec["name"]: np.ascontiguousarray(wide)})
        for name in a:
            self.assertEqual(a[name].tobytes(), b[name].tobytes())

    def test_bad_inputs_raise_naming_the_input(self):
        name = self.spec["name"]
        with self.assertRaisesRegex(ValueError, "no input named 'nope'"):
            self.model.run({name: self.x, "nope": self.x})
        with self.assertRaisesRegex(ValueError, f"'{name}' is not given"):
            self.model.run({})
        with self.assertRaisesRegex(ValueError, f"'{name}' is float64; the model takes float32"):
            self.model.run({name: self.x.astype(np.float64)})
        with self.assertRaisesRegex(ValueError, f"'{name}' has shape"):
            self.model.run({name: self.x[..., :1]})
        with self.assertRaisesRegex(ValueError, f"'{name}' is a list"):
            self.model.run({name: self.x.tolist()})

    def test_a_file_that_is_not_a_model_raises_naming_it(self):
        bad = os.path.join(self.dir, "bad.tfm")
        with open(bad, "wb") as f:
            f.write(b"TFMODEL\0" + b"\xff" * 100)
        with self.assertRaisesRegex(ValueError, "bad.tfm"):
            tunefarm.Model(bad)
        with self.assertRaisesRegex(ValueError, "threads"):
            tunefarm.Model(self.tfm, threads=0)

    def test_bench_times_whole_runs(self):
        r = self.model.bench(runs=3)
        self.assertEqual(r["runs"], 3)
        self.assertGreater(r["median_ms"], 0)
        self.assertLessEqual(r["min_ms"], r["median_ms"])

    def test_running_a_model_loads_no_compiler(self):
        # In a process of its own: a build elsewhere in this one loads the compiler.
        script = ("import numpy as np, tunefarm\n"
                  f"m = tunefarm.Model({self.tfm!r})\n"
                  "i = m.inputs[0]\n"
                  "m.run({i['name']: np.zeros(i['shape'], np.float32)})\n"
                  "print('libLLVM' in open('/proc/self/maps').read())\n")
        done = subprocess.run(["/usr/bin/python3", "-c", script], check=True, capture_output=True, text=True)
        self.assertEqual(done.stdout.strip(), "False")


class BuildTest(unittest.TestCase):
    """tunefarm.build against `tunefarm model build`: the same model, the same outputs."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tunefarm-python-build-")
        self.onnx = os.path.join(MODELS, "small_cnn.onnx")

    def test_a_built_model_runs_as_the_command_lines_build(self):
        ours = os.path.join(self.dir, "ours.tfm")
        report = tunefarm.build(self.onnx, ours, threads=2)
        self.assertEqual(report["output"], ours)
        self.assertGreater(report["kernels"], 0)
        self.assertEqual(report["tuned_kernels"], 0)  # no db: every kernel takes its default config
        theirs = os.path.join(self.dir, "theirs.tfm")
        subprocess.run([CLI, "model", "build", self.onnx, "-o", theirs, "--threads", "2", "--quiet"], check=True,
                       capture_output=True)
        a, b = tunefarm.Model(ours, threads=2), tunefarm.Model(theirs, threads=2)
        spec = a.inputs[0]
        x = np.random.default_rng(3).standard_normal(spec["shape"]).astype(np.float32)
        ra, rb = a.run({spec["name"]: x}), b.run({spec["name"]: x})
        for name in rb:
            self.assertEqual(ra[name].tobytes(), rb[name].tobytes(), name)

    def test_bad_arguments_raise_naming_what_is_wrong(self):
        out = os.path.join(self.dir, "m.tfm")
        with self.assertRaisesRegex(ValueError, "missing.onnx: no such file"):
            tunefarm.build(os.path.join(self.dir, "missing.onnx"), out)
        with self.assertRaisesRegex(ValueError, "db: .*no such file"):
            tunefarm.build(self.onnx, out, db=os.path.join(self.dir, "none.db"))
        with self.assertRaisesRegex(ValueError, "timing: 'lukewarm'"):
            tunefarm.build(self.onnx, out, timing="lukewarm")
        with self.assertRaisesRegex(ValueError, "nope"):
            tunefarm.build(self.onnx, out, input_shapes={"nope": [1, 3, 32, 32]})
        with self.assertRaisesRegex(ValueError, "threads"):
            tunefarm.build(self.onnx, out, threads=0)
        not_onnx = os.path.join(self.dir, "not.onnx")
        with open(not_onnx, "wb") as f:
            f.write(b"\x00\x01 not a model")
        with self.assertRaisesRegex(ValueError, "not.onnx"):
            tunefarm.build(not_onnx, out)


if __name__ == "__main__":
    unittest.main()
