#include "tracker/board_service.h"

#include <cstdio>
#include <mutex>

#include "db/database.h"
#include "tracker/request_checks.h"

namespace tf::tracker {

BoardService::BoardService(Dispatcher& dispatcher, const Authenticator& auth, std::string db_path,
                           int heartbeat_interval_ms)
    : dispatcher_(dispatcher),
      auth_(auth),
      db_path_(std::move(db_path)),
      heartbeat_interval_ms_(heartbeat_interval_ms) {}

// A board's messages fit in a few: its slots' work items, a reference each, a cancel.
constexpr size_t kMaxUnreadPerBoard = 256;

class BoardService::Session final : public StreamSession<v1::BoardMessage, v1::TrackerMessage> {
 public:
  Session(BoardService& service, grpc::CallbackServerContext* ctx)
      : StreamSession(ctx, kMaxUnreadPerBoard), service_(service) {}

 private:
  grpc::Status on_message(const v1::BoardMessage& msg) override {
    if (board_id_.empty()) {
      if (!msg.has_register_()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a board's first message must be Register");
      }
      return service_.join(context(), msg.register_().info(), writer(), &board_id_);
    }
    if (msg.has_heartbeat()) {
      service_.dispatcher_.on_heartbeat(board_id_, msg.heartbeat());
    } else if (msg.has_result()) {
      service_.dispatcher_.on_result(board_id_, msg.result());
    } else {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "sent a second Register");
    }
    return grpc::Status::OK;
  }
  void on_end(const std::string& why) override {
    if (board_id_.empty()) return;
    service_.dispatcher_.remove_board(board_id_, why);
    std::fprintf(stderr, "tracker: board %s left: %s\n", board_id_.c_str(), why.c_str());
  }

  BoardService& service_;
  std::string board_id_;  // empty until registered
};

grpc::ServerBidiReactor<v1::BoardMessage, v1::TrackerMessage>* BoardService::Connect(grpc::CallbackServerContext* ctx) {
  auto* session = new Session(*this, ctx);
  Principal who;
  session->start(auth_.check(*ctx, {fleet::Role::Board, fleet::Role::Admin}, "Connect (board registration)", &who));
  return session;
}

grpc::Status BoardService::join(grpc::CallbackServerContext* ctx, const v1::BoardInfo& info,
                                const std::shared_ptr<StreamWriter<v1::TrackerMessage>>& writer,
                                std::string* board_id) {
  std::string target;
  if (auto s = check_board_info(info, &target); !s.ok()) return s;
  // Every board of a key runs the same candidates, so they must be the same kind of machine. The
  // check and the board's joining are one step: two boards of different kinds registering at once
  // must not both pass the check of an empty key.
  std::unique_lock<std::mutex> joining(join_mu_);
  const std::string key_target = dispatcher_.target_of_key(info.device_key());
  if (!key_target.empty() && key_target != target) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "key '" + info.device_key() + "' has boards with target '" + key_target + "', this board is '" +
                            target + "'; give it a key of its own");
  }
  // An emulator's timings say nothing about the real board: the two never share a key, so their
  // records, models and bests never meet.
  const std::optional<v1::BoardInfo> peer = dispatcher_.board_of_key(info.device_key());
  if (peer && peer->emulated() != info.emulated()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "key '" + info.device_key() + "' has " + (peer->emulated() ? "emulated" : "native") +
                            " boards, this board is " + (info.emulated() ? "emulated (qemu-user)" : "native") +
                            "; give it a key of its own");
  }
  // Whether a client may send the key its own libraries (Compare) is a property of the key.
  if (peer && peer->sandboxed() != info.sandboxed()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "key '" + info.device_key() + "' has " + (peer->sandboxed() ? "sandboxed" : "unsandboxed") +
                            " boards, this board " + (info.sandboxed() ? "is sandboxed" : "runs --no-sandbox") +
                            "; give it a key of its own");
  }
  try {
    db::Database db(db_path_);
    db::DeviceRecord rec;
    rec.device_key = info.device_key();
    rec.hostname = info.hostname();
    rec.target = target;
    rec.info = {{"cpu", info.cpu_name()},
                {"cores", info.cores()},
                {"threads", info.threads()},
                {"memory_bytes", info.memory_bytes()},
                {"runtime_version", info.runtime_version()},
                {"emulated", info.emulated()},
                {"sandboxed", info.sandboxed()}};
    db.record_device(rec);
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string("recording the board: ") + e.what());
  }
  const std::string id = info.hostname() + ":" + std::to_string(info.pid()) + "#" + std::to_string(++connections_);
  v1::TrackerMessage hello;
  hello.mutable_registered()->set_board_id(id);
  hello.mutable_registered()->set_heartbeat_interval_ms(heartbeat_interval_ms_);
  hello.mutable_registered()->set_tracker_version(TUNEFARM_VERSION);
  if (!writer->send(hello)) return grpc::Status(grpc::StatusCode::CANCELLED, "the board left while registering");

  std::fprintf(stderr, "tracker: board %s connected (key %s, %d threads, target %s%s, from %s)\n", id.c_str(),
               info.device_key().c_str(), info.threads(), target.c_str(), info.emulated() ? ", EMULATED" : "",
               ctx->peer().c_str());
  BoardLink link;
  link.send = [writer](const v1::TrackerMessage& m) { return writer->send(m); };
  link.disconnect = [writer] {
    writer->end(grpc::Status(grpc::StatusCode::CANCELLED, "disconnected by the tracker"), true);
  };
  dispatcher_.add_board(id, info, target, ctx->peer(), std::move(link));
  *board_id = id;
  return grpc::Status::OK;
}

}  // namespace tf::tracker
