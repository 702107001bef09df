// The board-facing gRPC service: one stream per board. The board registers (its key and what it
// detected about itself), then sends heartbeats and results while the dispatcher writes work
// items down the same stream. The stream ending, for any reason, is the board leaving. Streams are
// served by callbacks (tracker/stream_session.h): no thread is held per board.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "proto/tunefarm.grpc.pb.h"
#include "tracker/auth.h"
#include "tracker/dispatcher.h"
#include "tracker/stream_session.h"

namespace tf::db {
class Database;
}

namespace tf::tracker {

class BoardService final : public v1::Boards::CallbackService {
 public:
  BoardService(Dispatcher& dispatcher, const Authenticator& auth, std::string db_path, int heartbeat_interval_ms);
  grpc::ServerBidiReactor<v1::BoardMessage, v1::TrackerMessage>* Connect(grpc::CallbackServerContext* ctx) override;

 private:
  class Session;
  // Checks a board's registration and adds it to the dispatcher; the board's id, or the refusal.
  // `writer` is the board's stream: Registered goes down it before any work can.
  grpc::Status join(grpc::CallbackServerContext* ctx, const v1::BoardInfo& info,
                    const std::shared_ptr<StreamWriter<v1::TrackerMessage>>& writer, std::string* board_id);

  Dispatcher& dispatcher_;
  const Authenticator& auth_;
  std::string db_path_;
  int heartbeat_interval_ms_;
  std::atomic<int64_t> connections_{0};
  std::mutex join_mu_;  // a board's kind checked against its key's, and the board added, as one step
};

}  // namespace tf::tracker
