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

grpc::Status BoardService::Connect(grpc::ServerContext* ctx,
                                   grpc::ServerReaderWriter<v1::TrackerMessage, v1::BoardMessage>* stream) {
  Principal who;
  if (auto s = auth_.check(*ctx, {fleet::Role::Board, fleet::Role::Admin}, "Connect (board registration)", &who);
      !s.ok()) {
    return s;
  }
  v1::BoardMessage first;
  if (!stream->Read(&first)) return grpc::Status(grpc::StatusCode::CANCELLED, "the board left before registering");
  if (!first.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a board's first message must be Register");
  }
  const v1::BoardInfo& info = first.register_().info();
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
  const std::string board_id =
      info.hostname() + ":" + std::to_string(info.pid()) + "#" + std::to_string(++connections_);
  v1::TrackerMessage hello;
  hello.mutable_registered()->set_board_id(board_id);
  hello.mutable_registered()->set_heartbeat_interval_ms(heartbeat_interval_ms_);
  hello.mutable_registered()->set_tracker_version(TUNEFARM_VERSION);
  if (!stream->Write(hello)) return grpc::Status(grpc::StatusCode::CANCELLED, "the board left while registering");

  std::fprintf(stderr, "tracker: board %s connected (key %s, %d threads, target %s%s, from %s)\n", board_id.c_str(),
               info.device_key().c_str(), info.threads(), target.c_str(), info.emulated() ? ", EMULATED" : "",
               ctx->peer().c_str());
  BoardLink link;
  link.send = [stream](const v1::TrackerMessage& m) { return stream->Write(m); };
  link.disconnect = [ctx] { ctx->TryCancel(); };
  dispatcher_.add_board(board_id, info, target, ctx->peer(), std::move(link));
  joining.unlock();

  v1::BoardMessage msg;
  std::string why = "stream closed";
  while (stream->Read(&msg)) {
    if (msg.has_heartbeat()) {
      dispatcher_.on_heartbeat(board_id, msg.heartbeat());
    } else if (msg.has_result()) {
      dispatcher_.on_result(board_id, msg.result());
    } else {
      why = "sent a second Register";
      break;
    }
  }
  if (ctx->IsCancelled()) why = "disconnected (missed heartbeats or tracker stopping)";
  dispatcher_.remove_board(board_id, why);
  std::fprintf(stderr, "tracker: board %s left: %s\n", board_id.c_str(), why.c_str());
  return grpc::Status::OK;
}

}  // namespace tf::tracker
