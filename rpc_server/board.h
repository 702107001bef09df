// The board daemon: dials out to the tracker (a board behind NAT needs no open port), registers,
// and measures the work items that come down the stream in a worker process (runtime/
// measure_worker.h), reporting every repeat and the outcome. When the tracker goes away it dials
// again with exponential backoff; on SIGTERM it stops taking work, finishes and reports what it
// holds, and exits.
//
// Threads: the main thread reads the stream; a measuring thread runs items one at a time; a
// Boost.Asio event loop owns the signals, the heartbeat timer and the reconnect backoff.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/measure_worker.h"

namespace tf::board {

struct BoardOptions {
  std::string tracker = "127.0.0.1:9190";
  std::string key;
  std::string token;                                      // bearer token (empty: none)
  std::string tls_ca;                                     // CA certificate file: TLS to the tracker
  std::vector<int> cpus;                                  // pin kernels to these CPUs (empty: no pinning)
  int threads = 0;                                        // threads per kernel (0: one per CPU it may use)
  std::string timing_lock = "/tmp/tunefarm-timing.lock";  // empty: none
  std::string worker_path;                                // empty: next to this executable
  std::vector<std::string> worker_launcher;  // runs the worker under this command (an emulator); empty: directly
  bool sandbox = true;  // the worker confines kernels (runtime/sandbox.h); off only under an emulator
  uint64_t worker_memory_mb = runtime::kDefaultWorkerMemoryMb;
  int max_backoff_ms = 5000;
  // Test mode for the tracker's capacity benchmark: open this many board connections and answer
  // every item at once with a synthetic timing, running no code. Never for real measurements.
  int load_test_boards = 0;
};

// Holds SIGTERM and SIGINT back (main's first step) until run_board has its drain handler in place, so
// a board told to stop while it starts up drains instead of dying.
void block_stop_signals();

// Runs until SIGTERM/SIGINT (then drains) or until the tracker refuses the board for good (bad
// token, wrong role, bad key): returns the process exit code.
int run_board(const BoardOptions& opts);

// How this board keeps its timings apart from other measurers on the host, for logs and the tracker.
std::string timing_isolation(const BoardOptions& opts);

}  // namespace tf::board
