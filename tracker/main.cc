// tunefarm-tracker: the tuning service. Developers submit jobs to it, boards dial in to it; it
// runs each job's tuner, builds candidates and dispatches them to the boards of the job's key.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "db/connection.h"
#include "support/args.h"
#include "tracker/tracker.h"

int main(int argc, char** argv) {
  auto app = tf::make_app("tunefarm-tracker",
                          "The tunefarm tracker: tuning jobs as a service, measured on a fleet of boards.");
  tf::tracker::TrackerOptions opts;
  std::string port_file;
  app->add_option("--listen", opts.listen, "address to serve on (port 0: any free port)")->type_name("HOST:PORT");
  app->add_option("--db", opts.db_path, "the tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
      ->type_name("PATH|URL");
  app->add_option("--token-file", opts.token_file,
                  "accepted tokens, one '<token> <role> [name]' per line (tunefarm token new)")
      ->type_name("FILE");
  app->add_option("--tls-cert", opts.tls_cert, "serve TLS with this certificate chain (with --tls-key)")
      ->type_name("PEM");
  app->add_option("--tls-key", opts.tls_key, "the certificate's private key")->type_name("PEM");
  app->add_option("--build-threads", opts.build_threads, "candidates built at once (0: one per core)")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  app->add_flag("--build-here-too", opts.build_here_too,
                "with builders connected (tunefarm-builder), build candidates on this host's threads too "
                "(without it they build only when no builder can)");
  app->add_option("--build-lock", opts.build_lock,
                  "host-wide timing lock builds hold shared when boards on this host use every CPU, "
                  "so a build never overlaps their timing; none: no lock")
      ->type_name("PATH|none");
  app->add_option("--heartbeat-timeout-ms", opts.heartbeat_timeout_ms,
                  "a board or builder silent this long is lost; its work goes to another")
      ->type_name("MS")
      ->check(CLI::Range(100, 3600000));
  app->add_option("--slots-per-board", opts.slots_per_board, "work items in flight per board")
      ->type_name("N")
      ->check(CLI::Range(1, 64));
  app->add_option("--item-grace-ms", opts.item_grace_ms,
                  "a board holding an item this long past the item's time limit is dropped; "
                  "the item goes to another")
      ->type_name("MS")
      ->check(CLI::Range(100, 3600000));
  app->add_option("--http", opts.http_listen,
                  "serve the dashboard and Prometheus /metrics here, behind the same tokens "
                  "(and TLS) as gRPC")
      ->type_name("HOST:PORT");
  app->add_option("--build-cache-mb", opts.build_cache_mb, "built candidate libraries kept for boards to fetch again")
      ->type_name("MB")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app->add_option("--max-jobs-per-client", opts.max_jobs_per_client, "unfinished jobs one token may have at once")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  app->add_option("--max-message-mb", opts.max_message_mb, "largest gRPC message the tracker takes or sends")
      ->type_name("MB")
      ->check(CLI::Range(1, 2047));
  app->add_option("--port-file", port_file, "write the port served on here once listening (for scripts and tests)")
      ->type_name("FILE");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  if (opts.build_lock == "none") opts.build_lock.clear();

  // SIGTERM and SIGINT stop the tracker cleanly: jobs stop after their candidates in flight and
  // resume when it starts again. A thread waits for the signal, so no work happens in a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  // A file-size limit reached while writing the db is an error the write reports (a failed job
  // naming the db, a refused request), not a reason to end the process.
  ::signal(SIGXFSZ, SIG_IGN);

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
  std::printf("tunefarm-tracker: listening on %s:%d, db %s\n", host.c_str(), tracker->port(),
              tf::db::shown_location(opts.db_path).c_str());
  std::printf("tunefarm-tracker: auth: %s\n", tracker->auth_summary().c_str());
  std::printf(
      "tunefarm-tracker: builds run on CPUs that boards on this host leave free; when they leave none, %s\n",
      opts.build_lock.empty()
          ? "anywhere (--build-lock none)"
          : ("builds hold the timing lock " + opts.build_lock + " shared and wait while a board times").c_str());
  if (!tracker->dashboard_url().empty())
    std::printf("tunefarm-tracker: dashboard on %s (metrics: %smetrics)\n", tracker->dashboard_url().c_str(),
                tracker->dashboard_url().c_str());
  if (tracker->resumed_jobs() > 0)
    std::printf("tunefarm-tracker: resumed %d unfinished job(s) from the db\n", tracker->resumed_jobs());
  std::fflush(stdout);
  if (!port_file.empty()) {
    const std::string& path = port_file;
    const std::string tmp = path + ".tmp";
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
