"""tunefarm.Client and tunefarm.tune_model(key=...) against a real tracker and board (processes this
test starts, tokens on): a job is submitted, followed to its end, cancelled; the fleet's best and
devices read back; refused tokens raise PermissionError, bad requests ValueError, each with the
message the CLI prints.

Run by ctest with PYTHONPATH=build/python and TF_CLI, TF_TRACKER, TF_RPC_SERVER, TF_MODELS_DIR set."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import tunefarm

CLI = os.environ["TF_CLI"]
TRACKER = os.environ["TF_TRACKER"]
BOARD = os.environ["TF_RPC_SERVER"]
MODELS = os.environ["TF_MODELS_DIR"]
KEY = "py-client"


def new_token(role, name):
    return subprocess.run([CLI, "token", "new", "--role", role, "--name", name], check=True, capture_output=True,
                          text=True).stdout.strip()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return path


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tunefarm-client-")
        client_line, board_line, other_line = new_token("client", "alice"), new_token("board", "b0"), new_token(
            "client", "bob")
        write(os.path.join(cls.dir, "tokens"), "\n".join([client_line, board_line, other_line]))
        cls.client_token = write(os.path.join(cls.dir, "alice.token"), client_line)
        cls.board_token = write(os.path.join(cls.dir, "board.token"), board_line)
        port_file = os.path.join(cls.dir, "port")
        cls.logs = []
        cls.tracker = cls.start([TRACKER, "--listen", "127.0.0.1:0", "--db", os.path.join(cls.dir, "tracker.db"),
                                 "--port-file", port_file, "--token-file", os.path.join(cls.dir, "tokens"),
                                 "--build-threads", "1"], "tracker.log")
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) and cls.tracker.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not os.path.exists(port_file):
            raise RuntimeError("the tracker did not start: " + cls.log("tracker.log"))
        with open(port_file, encoding="utf-8") as f:
            cls.address = "127.0.0.1:" + f.read().strip()
        cls.board = cls.start([BOARD, "--tracker", cls.address, "--key", KEY, "--token-file", cls.board_token,
                               "--cpus", "0", "--threads", "1", "--max-backoff-ms", "500"], "board.log")
        cls.client = tunefarm.Client(cls.address, token_file=cls.client_token)
        deadline = time.monotonic() + 30
        while not cls.client.devices(KEY) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not cls.client.devices(KEY):
            raise RuntimeError("the board did not register: " + cls.log("board.log"))

    @classmethod
    def start(cls, argv, log_name):
        log = open(os.path.join(cls.dir, log_name), "wb")
        cls.logs.append(log)
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)

    @classmethod
    def log(cls, name):
        with open(os.path.join(cls.dir, name), encoding="utf-8", errors="replace") as f:
            return f.read()

    @classmethod
    def tearDownClass(cls):
        for p in (cls.board, cls.tracker):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in cls.logs:
            log.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_a_job_is_submitted_and_followed_to_its_end(self):
        job = self.client.submit([{"op": "dense", "shape": [64, 64, 64]}], key=KEY, trials=6, tuner="random",
                                 measure={"min_repeat_ms": 1, "repeat": 1})
        self.assertIn(job["state"], ("queued", "running"))
        self.assertEqual(job["spec"]["trials"], 6)
        snapshots = list(self.client.follow(job["id"]))
        self.assertGreater(len(snapshots), 0)
        last = snapshots[-1]
        self.assertEqual(last["state"], "done", last)
        self.assertEqual(last["workloads"][0]["trials_done"], 6)
        done = [s["workloads"][0]["trials_done"] for s in snapshots]
        self.assertEqual(done, sorted(done))  # progress never goes back
        self.assertEqual(self.client.status(job["id"])["state"], "done")
        self.assertIn(job["id"], [j["id"] for j in self.client.jobs()])
        self.assertNotIn(job["id"], [j["id"] for j in self.client.jobs(active=True)])
        best = self.client.best(KEY, "dense", [64, 64, 64])
        self.assertIsNotNone(best)
        self.assertGreater(best["gflops"], 0)
        self.assertIsInstance(best["config"], dict)
        self.assertEqual(best["workload"], "dense[64,64,64]")
        self.assertIsNone(self.client.best(KEY, "dense", [64, 64, 96]))
        # The record is the one `tunefarm status --json` prints.
        cli = subprocess.run([CLI, "status", str(job["id"]), "--tracker", self.address, "--token-file",
                              self.client_token, "--json"], check=True, capture_output=True, text=True)
        self.assertEqual(json.loads(cli.stdout)["workloads"], last["workloads"])

    def test_a_job_is_cancelled_and_its_watch_ends(self):
        job = self.client.submit(job={"workloads": [{"op": "dense", "shape": [128, 128, 128]}], "trials": 5000},
                                 key=KEY, tuner="random")
        watch = self.client.follow(job["id"])
        first = next(watch)
        self.assertIn(first["state"], ("queued", "running"))
        cancelled = self.client.cancel(job["id"])
        self.assertEqual(cancelled["id"], job["id"])
        rest = list(watch)
        self.assertEqual((rest or [cancelled])[-1]["state"], "cancelled")
        self.assertEqual(self.client.status(job["id"])["state"], "cancelled")
        with self.assertRaisesRegex(ValueError, "job %d" % job["id"]):
            self.client.cancel(job["id"])  # it has ended

    def test_ctrl_c_ends_a_follow(self):
        job = self.client.submit([{"op": "dense", "shape": [128, 128, 128]}], key=KEY, trials=5000, tuner="random")
        script = ("import sys, tunefarm\n"
                  "c = tunefarm.Client(sys.argv[1], token_file=sys.argv[2])\n"
                  "for s in c.follow(int(sys.argv[3])):\n"
                  "    print(s['state'], flush=True)\n")
        follower = subprocess.Popen(["/usr/bin/python3", "-c", script, self.address, self.client_token,
                                     str(job["id"])], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn(follower.stdout.readline().strip(), ("queued", "running"))
            time.sleep(0.3)
            follower.send_signal(signal.SIGINT)
            _, err = follower.communicate(timeout=10)
        finally:
            follower.kill()
        self.assertNotEqual(follower.returncode, 0)
        self.assertIn("KeyboardInterrupt", err)
        self.assertEqual(self.client.cancel(job["id"])["state"], "cancelled")

    def test_the_devices_are_the_boards_connected(self):
        devices = self.client.devices(KEY)
        self.assertEqual(len(devices), 1)
        self.assertEqual(devices[0]["key"], KEY)
        self.assertTrue(devices[0]["target"])
        self.assertEqual(self.client.devices("no-such-key"), [])

    def test_a_refused_token_raises_permission_error(self):
        stranger = write(os.path.join(self.dir, "stranger.token"), new_token("client", "eve"))
        with self.assertRaisesRegex(PermissionError, "refused"):
            tunefarm.Client(self.address, token_file=stranger).jobs()
        # A board's token is not a client's.
        with self.assertRaisesRegex(PermissionError, "refused"):
            tunefarm.Client(self.address, token_file=self.board_token).submit(
                [{"op": "dense", "shape": [64, 64, 64]}], key=KEY, trials=1)

    def test_bad_requests_raise_value_error_naming_what_is_wrong(self):
        with self.assertRaisesRegex(ValueError, "999999"):
            self.client.status(999999)
        with self.assertRaisesRegex(ValueError, "no_such_op"):
            self.client.submit([{"op": "no_such_op", "shape": [1]}], key=KEY, trials=1)
        with self.assertRaisesRegex(ValueError, "trials: given as an argument and in the job"):
            self.client.submit(job={"workloads": [], "trials": 3}, trials=4)
        with self.assertRaisesRegex(ValueError, "key"):
            self.client.submit([{"op": "dense", "shape": [64, 64, 64]}], key="bad\r\nkey", trials=1)
        with self.assertRaisesRegex(ValueError, "token_file"):
            tunefarm.Client(self.address, token_file=os.path.join(self.dir, "missing.token"))
        with self.assertRaisesRegex(ValueError, "address"):
            tunefarm.Client("host\n:1")
        with self.assertRaisesRegex(ConnectionError, "cannot reach the tracker"):
            tunefarm.Client("127.0.0.1:1", token_file=self.client_token).jobs()

    def test_a_model_is_tuned_on_the_fleet(self):
        seen = []
        result = tunefarm.tune_model(os.path.join(MODELS, "small_cnn.onnx"), key=KEY, client=self.client, trials=10,
                                     tuner="random", progress=seen.append)
        self.assertEqual(result["state"], "done", result)
        self.assertEqual(sum(w["trials_done"] for w in result["workloads"]), 10)
        self.assertEqual(result["spec"]["model"], "small_cnn.onnx")
        self.assertEqual(result["input_shapes"], {"input": [1, 3, 32, 32]})
        self.assertGreater(result["estimated_ms"], 0)
        self.assertTrue(seen)
        self.assertEqual(seen[-1]["id"], result["id"])
        with self.assertRaisesRegex(ValueError, "key="):
            tunefarm.tune_model(os.path.join(MODELS, "small_cnn.onnx"), client=self.client)


if __name__ == "__main__":
    unittest.main()
