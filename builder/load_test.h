// The builders' side of the tracker's capacity benchmark (bench/fleet_bench.cc): many builder
// connections from one process, each answering every build at once with a stand-in library (an ELF
// header for the target's machine and the kernel's entry symbol), compiling nothing. Boards of the
// load test (tunefarm-rpc-server --load-test-boards) never load what they are sent, so the tracker's
// path is exercised whole without the cost of compiling. Never for real boards.
#pragma once

#include "builder/builder.h"

namespace tf::builder {

// Runs until SIGTERM/SIGINT, then prints one JSON line: builders, builds answered, seconds.
int run_load_test(const BuilderOptions& opts);

}  // namespace tf::builder
