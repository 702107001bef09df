// The Compare call: kernels a client built (a CI run's current compiler beside a baseline's stored
// binary) measured in turn on one board, round after round. Every item after the first is bound to
// the board that measured the first, so the kernels see the same machine, and interleaving them
// spreads any drift of its speed over all of them alike.
#pragma once

#include <functional>

#include <grpcpp/grpcpp.h>

#include "proto/tunefarm.pb.h"
#include "tracker/dispatcher.h"

namespace tf::tracker {

// Validates the request (INVALID_ARGUMENT naming the field), waits for the rounds, and answers
// UNAVAILABLE when no board of the key is connected or the board leaves midway, CANCELLED when
// `cancelled` turns true. A kernel that fails (crash, wrong answer, ...) is reported with its
// status and measured no further; the others go on. The libraries are the caller's: each item is
// measured in a worker of its own, and with `needs_sandbox` (a client, not an admin, sent them)
// only by boards that confine kernels, whichever board of the key it reaches.
grpc::Status compare_kernels(Dispatcher& dispatcher, const v1::CompareRequest& req, bool needs_sandbox,
                             v1::CompareResponse* out, const std::function<bool()>& cancelled);

}  // namespace tf::tracker
