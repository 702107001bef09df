// The load-test mode of the board daemon (--load-test-boards N), for the tracker's capacity
// benchmark: N board connections from one process that answer every work item at once with a
// synthetic timing and run no code. Each connection reports, per item, the time from sending its
// previous result to receiving the item: the scheduling latency a board sees. Like a real board, each
// connection heartbeats and dials again when its stream ends (the soak restarts the tracker under
// it). On SIGTERM it prints
// one JSON line: {"boards", "items", "seconds", "items_per_s", "latency_ms_p50", "latency_ms_p99"}.
#pragma once

#include "rpc_server/board.h"

namespace tf::board {

int run_load_test(const BoardOptions& opts);

}  // namespace tf::board
