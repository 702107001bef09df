// tunefarm-rpc-server: the board daemon. Runs on each target board, dials out to the tracker,
// registers its device key and measures the kernels it is sent. Links the small runtime, not LLVM.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "proto/tokens.h"
#include "proto/utf8.h"
#include "rpc_server/board.h"
#include "rpc_server/board_info.h"
#include "support/args.h"

int main(int argc, char** argv) {
  tf::Args args("tunefarm-rpc-server", "A tunefarm board: measures kernels for the tracker it dials.");
  args.option("tracker", "HOST:PORT", "the tracker to dial", "127.0.0.1:9190")
      .option("key", "KEY", "device key: which jobs this board measures (boards of one key are alike)")
      .option("token-file", "FILE", "this board's token line (or set TUNEFARM_TOKEN)")
      .option("tls-ca", "PEM", "dial with TLS, trusting this CA certificate")
      .option("cpus", "LIST", "pin kernels to these CPUs, e.g. 1 or 0,2-3 (default: not pinned)")
      .option("threads", "N", "threads per kernel (0: one per CPU of --cpus, or of the machine)", "0")
      .option("timing-lock", "PATH|none", "host-wide lock held while timing, so boards sharing a host never time at once",
              "/tmp/tunefarm-timing.lock")
      .option("worker", "PATH", "the measuring worker executable (default: next to this one)")
      .option("max-backoff-ms", "MS", "longest wait between dials when the tracker is away", "5000")
      .option("load-test-boards", "N", "TEST MODE for the tracker's capacity benchmark: N connections answering "
              "every item with a synthetic timing; runs no code", "0");
  tf::board::BoardOptions opts;
  try {
    std::vector<std::string> argv_s(argv + 1, argv + argc);
    if (!args.parse(argv_s)) return 0;
    opts.tracker = args.get("tracker");
    opts.key = args.get("key");
    if (opts.key.empty()) throw tf::UsageError("--key is required: the device key jobs name to reach this board");
    if (std::string bad = tf::fleet::utf8_error(opts.key); !bad.empty()) {
      throw tf::UsageError("--key '" + tf::fleet::printable(opts.key) + "' is not valid UTF-8: " + bad);
    }
    opts.tls_ca = args.get("tls-ca");
    if (args.has("cpus")) opts.cpus = tf::board::parse_cpu_list(args.get("cpus"));
    opts.threads = static_cast<int>(args.get_int("threads"));
    if (opts.threads < 0 || opts.threads > 1024) throw tf::UsageError("--threads: 0 to 1024");
    opts.timing_lock = args.get("timing-lock") == "none" ? "" : args.get("timing-lock");
    opts.worker_path = args.get("worker");
    opts.max_backoff_ms = static_cast<int>(args.get_int("max-backoff-ms"));
    if (opts.max_backoff_ms < 100 || opts.max_backoff_ms > 600000) throw tf::UsageError("--max-backoff-ms: 100 to 600000");
    opts.load_test_boards = static_cast<int>(args.get_int("load-test-boards"));
    if (opts.load_test_boards < 0 || opts.load_test_boards > 4096) throw tf::UsageError("--load-test-boards: 0 to 4096");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tunefarm-rpc-server: --cpus: %s\n", e.what());
    return 2;
  } catch (const tf::UsageError& e) {
    std::fprintf(stderr, "tunefarm-rpc-server: %s\n%s", e.what(), args.help().c_str());
    return 2;
  }
  try {
    opts.token = tf::fleet::caller_token(args.get("token-file"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tunefarm-rpc-server: %s\n", e.what());
    return 2;
  }
  return tf::board::run_board(opts);
}
