"""tunefarm.tune_model on this host: the model's kernels tuned as `tunefarm model tune` tunes them,
recorded in a SQLite file the CLI then builds from; progress reported after each batch; an
exception in the progress callback stops the search, is raised, and leaves the job cancelled with
its measurements kept.

Run by ctest with PYTHONPATH=build/python, TF_CLI and TF_MODELS_DIR set."""
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

import numpy as np

import tunefarm

CLI = os.environ["TF_CLI"]
MODEL = os.path.join(os.environ["TF_MODELS_DIR"], "small_cnn.onnx")


class Stop(Exception):
    pass


class TuneModelTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tunefarm-tune-")
        self.db = os.path.join(self.dir, "tune.db")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_model_is_tuned_and_the_cli_builds_from_its_records(self):
        seen = []
        r = tunefarm.tune_model(MODEL, db=self.db, trials=12, threads=1, tuner="random", progress=seen.append)
        self.assertEqual(r["state"], "done", r)
        self.assertEqual(r["trials"], 12)
        self.assertEqual(sum(t["trials"] for t in r["tasks"]), 12)
        self.assertEqual(r["input_shapes"], {"input": [1, 3, 32, 32]})
        self.assertGreater(r["measured_ms"], 0)
        self.assertGreater(r["estimated_ms"], 0)
        self.assertTrue(any(t["best_gflops"] > 0 for t in r["tasks"]))
        self.assertTrue(seen)
        self.assertEqual([p["trials"] for p in seen], sorted(p["trials"] for p in seen))
        self.assertEqual(seen[-1]["trials"], 12)
        self.assertEqual(seen[-1]["budget"], 12)
        # The job and its measurements are in the db, where `model build --db` finds them.
        with sqlite3.connect(self.db) as db:
            (state,) = db.execute("SELECT state FROM jobs WHERE id = ?", (r["job_id"],)).fetchone()
        self.assertEqual(state, "done")
        tfm = os.path.join(self.dir, "cli.tfm")
        built = subprocess.run([CLI, "model", "build", MODEL, "--db", self.db, "--threads", "1", "-o", tfm, "--json"],
                               check=True, capture_output=True, text=True)
        # Every kernel whose task got a correct config is built with it.
        tuned = {t["workload"] for t in r["tasks"] if t["best_gflops"] > 0}
        kernels = json.loads(built.stdout)["kernels"]
        self.assertTrue(any(k["tuned"] for k in kernels))
        for k in kernels:
            if k["workload"] in tuned:
                self.assertTrue(k["tuned"], k["workload"])
        ours = tunefarm.build(MODEL, os.path.join(self.dir, "py.tfm"), db=self.db, threads=1)
        self.assertEqual(ours["tuned_kernels"], json.loads(built.stdout)["tuned_kernels"])
        self.assertGreater(ours["tuned_kernels"], 0)
        x = np.random.default_rng(3).standard_normal((1, 3, 32, 32)).astype(np.float32)
        a = tunefarm.Model(tfm).run({"input": x})
        b = tunefarm.Model(ours["output"]).run({"input": x})
        for name in a:
            self.assertEqual(a[name].tobytes(), b[name].tobytes(), name)

    def test_an_exception_in_progress_stops_the_job_and_is_raised(self):
        def stop_after_first(p):
            raise Stop(p["trials"])

        with self.assertRaises(Stop):
            tunefarm.tune_model(MODEL, db=self.db, trials=400, tuner="random", progress=stop_after_first)
        with sqlite3.connect(self.db) as db:
            states = [s for (s,) in db.execute("SELECT state FROM jobs")]
            measured = db.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
        self.assertEqual(states, ["cancelled"])
        self.assertGreater(measured, 0)
        self.assertLess(measured, 400)

    def test_bad_arguments_raise_value_error_naming_them(self):
        with self.assertRaisesRegex(ValueError, "no such file"):
            tunefarm.tune_model(os.path.join(self.dir, "missing.onnx"), db=self.db)
        with self.assertRaisesRegex(ValueError, "trials"):
            tunefarm.tune_model(MODEL, db=self.db, trials=0)
        with self.assertRaisesRegex(ValueError, "scheduler: 'fast'"):
            tunefarm.tune_model(MODEL, db=self.db, scheduler="fast")
        with self.assertRaisesRegex(ValueError, "tuner: 'best'"):
            tunefarm.tune_model(MODEL, db=self.db, tuner="best")
        with self.assertRaisesRegex(ValueError, "cold inputs: 'warm'"):
            tunefarm.tune_model(MODEL, db=self.db, cold_inputs="warm", trials=1)
        with self.assertRaisesRegex(ValueError, "nope"):
            tunefarm.tune_model(MODEL, db=self.db, input_shapes={"nope": [1, 3, 32, 32]})
        with self.assertRaisesRegex(ValueError, "client"):
            tunefarm.tune_model(MODEL, db=self.db, client="127.0.0.1:1")
        self.assertFalse(os.path.exists(self.db) and os.path.getsize(self.db) > 0 and self.jobs())

    def jobs(self):
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]


if __name__ == "__main__":
    unittest.main()
