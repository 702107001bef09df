// tunefarm-builder: compiles candidates for a tracker. Dials out to the tracker (no open port
// needed), registers as a builder and builds what it is sent, for any target its LLVM can emit
// code for (x86-64 and AArch64).
#include <cstdio>

#include "builder/builder.h"
#include "proto/tokens.h"
#include "support/args.h"

int main(int argc, char** argv) {
  tf::builder::block_stop_signals();
  auto app = tf::make_app("tunefarm-builder", "A tunefarm builder: compiles candidates for the tracker it dials.");
  tf::builder::BuilderOptions opts;
  std::string token_file;
  app->add_option("--tracker", opts.tracker, "the tracker to dial")->type_name("HOST:PORT");
  app->add_option("--token-file", token_file, "this builder's token line, role builder (or set TUNEFARM_TOKEN)")
      ->type_name("FILE");
  app->add_option("--tls-ca", opts.tls_ca, "dial with TLS, trusting this CA certificate")->type_name("PEM");
  app->add_option("--jobs", opts.jobs, "builds at once (0: one per CPU)")->type_name("N")->check(CLI::Range(0, 256));
  app->add_option("--build-lock", opts.timing_lock,
                  "host-wide timing lock each build holds shared, so boards on this host never time beside "
                  "a build; none: no lock (a host without boards)")
      ->type_name("PATH|none");
  app->add_option("--max-backoff-ms", opts.max_backoff_ms, "longest wait between dials when the tracker is away")
      ->type_name("MS")
      ->check(CLI::Range(100, 600000));
  app->add_option("--load-test-builders", opts.load_test_builders,
                  "TEST MODE for the tracker's capacity benchmark: N connections answering every build "
                  "with a stand-in library; compiles nothing")
      ->type_name("N")
      ->check(CLI::Range(0, 4096));
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  if (opts.timing_lock == "none") opts.timing_lock.clear();
  try {
    opts.token = tf::fleet::caller_token(token_file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tunefarm-builder: %s\n", e.what());
    return 2;
  }
  return tf::builder::run_builder(opts);
}
