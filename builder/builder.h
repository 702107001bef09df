// The builder daemon (tunefarm-builder): dials the tracker like a board, registers as a builder,
// and compiles the candidates the tracker sends down the stream, `jobs` at a time, sending each
// library (or compile error) back up it. When the tracker goes away it dials again with
// exponential backoff; on SIGTERM it takes no more, finishes and sends what it holds, and exits.
#pragma once

#include <string>

#include "proto/tunefarm.pb.h"

namespace tf::builder {

namespace v1 = ::tunefarm::v1;

struct BuilderOptions {
  std::string tracker = "127.0.0.1:9190";
  std::string token;   // bearer token (empty: none)
  std::string tls_ca;  // CA certificate file: TLS to the tracker
  int jobs = 0;        // builds at once (0: one per CPU)
  // Held shared by every build, so that boards on this host (which hold it while timing) never time
  // beside a build; empty: none.
  std::string timing_lock = "/tmp/tunefarm-timing.lock";
  int max_backoff_ms = 5000;
  // Test mode for the tracker's capacity benchmark: open this many builder connections and answer
  // every build at once with a stand-in library, compiling nothing. Never for real boards.
  int load_test_builders = 0;
};

// This process as a builder: host name, pid, builds at once, compiler version, the triples its LLVM
// emits code for.
v1::BuilderInfo describe_builder(int jobs);

// Holds SIGTERM and SIGINT back (main's first step) until run_builder has its drain handler in place.
void block_stop_signals();

// Runs until SIGTERM/SIGINT (then drains) or until the tracker refuses the builder for good (bad
// token, wrong role, another compiler version): returns the process exit code.
int run_builder(const BuilderOptions& opts);

}  // namespace tf::builder
