// The board-facing gRPC service: one stream per board. The board registers (its key and what it
// detected about itself), then sends heartbeats and results while the dispatcher writes work
// items down the same stream. The stream ending, for any reason, is the board leaving.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "proto/tunefarm.grpc.pb.h"
#include "tracker/auth.h"
#include "tracker/dispatcher.h"

namespace tf::db {
class Database;
}

namespace tf::tracker {

class BoardService final : public v1::Boards::Service {
 public:
  BoardService(Dispatcher& dispatcher, const Authenticator& auth, std::string db_path, int heartbeat_interval_ms);
  grpc::Status Connect(grpc::ServerContext* ctx,
                       grpc::ServerReaderWriter<v1::TrackerMessage, v1::BoardMessage>* stream) override;

 private:
  Dispatcher& dispatcher_;
  const Authenticator& auth_;
  std::string db_path_;
  int heartbeat_interval_ms_;
  std::atomic<int64_t> connections_{0};
  std::mutex join_mu_;  // a board's kind checked against its key's, and the board added, as one step
};

}  // namespace tf::tracker
