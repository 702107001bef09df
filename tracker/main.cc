// tunefarm-tracker: the tuning service. Developers submit jobs to it, boards dial in to it; it
// runs each job's tuner, builds candidates and dispatches them to the boards of the job's key.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "support/args.h"
#include "tracker/tracker.h"

int main(int argc, char** argv) {
  tf::Args args("tunefarm-tracker", "The tunefarm tracker: tuning jobs as a service, measured on a fleet of boards.");
  args.option("listen", "HOST:PORT", "address to serve on (port 0: any free port)", "127.0.0.1:9190")
      .option("db", "PATH", "the SQLite database", "tunefarm.db")
      .option("token-file", "FILE", "accepted tokens, one '<token> <role> [name]' per line (tunefarm token new)")
      .option("tls-cert", "PEM", "serve TLS with this certificate chain (with --tls-key)")
      .option("tls-key", "PEM", "the certificate's private key")
      .option("build-threads", "N", "candidates built at once (0: one per core)", "0")
      .option("build-lock", "PATH|none", "host-wide timing lock builds hold shared when boards on this host use "
              "every CPU, so a build never overlaps their timing", "/tmp/tunefarm-timing.lock")
      .option("heartbeat-timeout-ms", "MS", "a board silent this long is lost; its work goes to another", "5000")
      .option("slots-per-board", "N", "work items in flight per board", "2")
      .option("item-grace-ms", "MS", "a board holding an item this long past the item's time limit is dropped; "
              "the item goes to another", "10000")
      .option("port-file", "FILE", "write the port served on here once listening (for scripts and tests)");
  tf::tracker::TrackerOptions opts;
  try {
    std::vector<std::string> argv_s(argv + 1, argv + argc);
    if (!args.parse(argv_s)) return 0;
    opts.listen = args.get("listen");
    opts.db_path = args.get("db");
    opts.token_file = args.get("token-file");
    opts.tls_cert = args.get("tls-cert");
    opts.tls_key = args.get("tls-key");
    opts.build_threads = static_cast<int>(args.get_int("build-threads"));
    opts.build_lock = args.get("build-lock") == "none" ? "" : args.get("build-lock");
    opts.heartbeat_timeout_ms = static_cast<int>(args.get_int("heartbeat-timeout-ms"));
    opts.slots_per_board = static_cast<int>(args.get_int("slots-per-board"));
    const int64_t grace_ms = args.get_int("item-grace-ms");
    if (grace_ms < 100 || grace_ms > 3600000) throw tf::UsageError("--item-grace-ms: 100 to 3600000");
    opts.item_grace_ms = static_cast<int>(grace_ms);
    if (opts.heartbeat_timeout_ms < 100) throw tf::UsageError("--heartbeat-timeout-ms: at least 100");
    if (opts.slots_per_board < 1 || opts.slots_per_board > 64) throw tf::UsageError("--slots-per-board: 1 to 64");
    if (opts.build_threads < 0) throw tf::UsageError("--build-threads: must not be negative");
  } catch (const tf::UsageError& e) {
    std::fprintf(stderr, "tunefarm-tracker: %s\n%s", e.what(), args.help().c_str());
    return 2;
  }

  // SIGTERM and SIGINT stop the tracker cleanly: jobs stop after their candidates in flight and
  // resume when it starts again. A thread waits for the signal, so no work happens in a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<tf::tracker::Tracker> tracker;
  try {
    tracker = std::make_unique<tf::tracker::Tracker>(opts);
  } catch (const tf::tracker::OptionError& e) {
    std::fprintf(stderr, "tunefarm-tracker: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tunefarm-tracker: %s\n", e.what());
    return 1;
  }
  const std::string host = opts.listen.substr(0, opts.listen.rfind(':'));
  std::printf("tunefarm-tracker: listening on %s:%d, db %s\n", host.c_str(), tracker->port(), opts.db_path.c_str());
  std::printf("tunefarm-tracker: auth: %s\n", tracker->auth_summary().c_str());
  std::printf("tunefarm-tracker: builds run on CPUs that boards on this host leave free; when they leave none, %s\n",
              opts.build_lock.empty() ? "anywhere (--build-lock none)"
                                      : ("builds hold the timing lock " + opts.build_lock + " shared and wait while a board times").c_str());
  if (tracker->resumed_jobs() > 0) std::printf("tunefarm-tracker: resumed %d unfinished job(s) from the db\n", tracker->resumed_jobs());
  std::fflush(stdout);
  if (args.has("port-file")) {
    const std::string path = args.get("port-file"), tmp = path + ".tmp";
    std::ofstream(tmp) << tracker->port() << "\n";
    std::rename(tmp.c_str(), path.c_str());  // appears whole: a reader never sees a partial number
  }
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::printf("tunefarm-tracker: %s: stopping (unfinished jobs resume at the next start)\n", strsignal(sig));
    std::fflush(stdout);
    tracker->shutdown();
  });
  tracker->wait();
  waiter.join();
  return 0;
}
