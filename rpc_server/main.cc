// tunefarm-rpc-server: the board daemon. Runs on each target board, dials out to the tracker,
// registers its device key and measures the kernels it is sent. Links the small runtime, not LLVM.
#include <sys/prctl.h>
#include <unistd.h>  // environ

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "proto/tokens.h"
#include "proto/utf8.h"
#include "rpc_server/board.h"
#include "rpc_server/board_info.h"
#include "support/args.h"

namespace {

// The board's measure workers run as its user unless it is root; their file rules keep kernels out
// of /proc (runtime/sandbox.h), and this is the second wall: a process that is not dumpable has
// its /proc memory, environment and ptrace closed to other processes of the same user. The token's
// variable, once read, is wiped where the environment block keeps it.
void keep_secrets_from_kernels() {
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "TUNEFARM_TOKEN=", 15) == 0) std::memset(*e + 15, 0, std::strlen(*e + 15));
  }
  ::unsetenv("TUNEFARM_TOKEN");
}

}  // namespace

int main(int argc, char** argv) {
  tf::board::block_stop_signals();
  auto app = tf::make_app("tunefarm-rpc-server", "A tunefarm board: measures kernels for the tracker it dials.");
  tf::board::BoardOptions opts;
  std::string token_file;
  app->add_option("--tracker", opts.tracker, "the tracker to dial")->type_name("HOST:PORT");
  app->add_option("--key", opts.key, "device key: which jobs this board measures (boards of one key are alike)")
      ->type_name("KEY")
      ->required();
  app->add_option("--token-file", token_file, "this board's token line (or set TUNEFARM_TOKEN)")->type_name("FILE");
  app->add_option("--tls-ca", opts.tls_ca, "dial with TLS, trusting this CA certificate")->type_name("PEM");
  app->add_option_function<std::string>(
         "--cpus",
         [&opts](const std::string& list) {
           try {
             opts.cpus = tf::board::parse_cpu_list(list);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError("--cpus", e.what());
           }
         },
         "pin kernels to these CPUs, e.g. 1 or 0,2-3 (default: not pinned)")
      ->type_name("LIST");
  app->add_option("--threads", opts.threads, "threads per kernel (0: one per CPU of --cpus, or of the machine)")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  app->add_option("--timing-lock", opts.timing_lock,
                  "host-wide lock held while timing, so boards sharing a host never time at once; "
                  "none: no lock")
      ->type_name("PATH|none");
  app->add_option("--worker", opts.worker_path, "the measuring worker executable (default: next to this one)")
      ->type_name("PATH");
  app->add_option_function<std::string>(
         "--worker-launcher",
         [&opts](const std::string& command) {
           std::istringstream words(command);
           opts.worker_launcher.assign(std::istream_iterator<std::string>(words), std::istream_iterator<std::string>());
         },
         "start the worker under this command, for an emulated board on a host without binfmt "
         "(e.g. 'qemu-aarch64-static')")
      ->type_name("COMMAND");
  app->add_flag(
      "--no-sandbox", [&opts](int64_t) { opts.sandbox = false; },
      "run kernels without the measure worker's sandbox: only for a board under an emulator that cannot "
      "filter system calls (qemu-user); the tracker then takes libraries for it from admins only");
  app->add_option("--worker-memory-mb", opts.worker_memory_mb, "address-space limit of the measure worker")
      ->type_name("MB")
      ->check(CLI::Range(64, 1 << 24));
  app->add_option("--max-backoff-ms", opts.max_backoff_ms, "longest wait between dials when the tracker is away")
      ->type_name("MS")
      ->check(CLI::Range(100, 600000));
  app->add_option("--load-test-boards", opts.load_test_boards,
                  "TEST MODE for the tracker's capacity benchmark: N connections "
                  "answering every item with a synthetic timing; runs no code")
      ->type_name("N")
      ->check(CLI::Range(0, 4096));
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  if (opts.timing_lock == "none") opts.timing_lock.clear();
  if (std::string bad = tf::fleet::utf8_error(opts.key); !bad.empty()) {
    std::fprintf(stderr, "tunefarm-rpc-server: --key '%s' is not valid UTF-8: %s\n",
                 tf::fleet::printable(opts.key).c_str(), bad.c_str());
    return 2;
  }
  try {
    opts.token = tf::fleet::caller_token(token_file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tunefarm-rpc-server: %s\n", e.what());
    return 2;
  }
  keep_secrets_from_kernels();
  return tf::board::run_board(opts);
}
