#include "tracker/builder_service.h"

#include <cstdio>

#include "proto/utf8.h"
#include "tracker/request_checks.h"

namespace tf::tracker {

// A builder is sent at most two builds per slot it announced (check_builder_info bounds those).
constexpr size_t kMaxUnreadPerBuilder = 4096;

class BuilderService::Session final : public StreamSession<v1::BuilderMessage, v1::BuilderWork> {
 public:
  Session(BuilderService& service, grpc::CallbackServerContext* ctx)
      : StreamSession(ctx, kMaxUnreadPerBuilder), service_(service) {}

 private:
  grpc::Status on_message(const v1::BuilderMessage& msg) override {
    if (builder_id_.empty()) {
      if (!msg.has_register_()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a builder's first message must be Register");
      }
      return service_.join(context(), msg.register_().info(), writer(), &builder_id_);
    }
    if (msg.has_heartbeat()) {
      service_.pool_.on_heartbeat(builder_id_, msg.heartbeat());
    } else if (msg.has_result()) {
      if (std::string dropped = service_.pool_.on_result(builder_id_, msg.result()); !dropped.empty())
        std::fprintf(stderr, "tracker: builder %s: answer dropped: %s\n", builder_id_.c_str(),
                     fleet::printable(dropped).c_str());
    } else {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "sent a second Register");
    }
    return grpc::Status::OK;
  }
  void on_end(const std::string& why) override {
    if (builder_id_.empty()) return;
    service_.pool_.remove_builder(builder_id_, why);
    std::fprintf(stderr, "tracker: builder %s left: %s\n", builder_id_.c_str(), why.c_str());
  }

  BuilderService& service_;
  std::string builder_id_;  // empty until registered
};

BuilderService::BuilderService(BuildPool& pool, const Authenticator& auth, int heartbeat_interval_ms)
    : pool_(pool), auth_(auth), heartbeat_interval_ms_(heartbeat_interval_ms) {}

grpc::ServerBidiReactor<v1::BuilderMessage, v1::BuilderWork>* BuilderService::Connect(
    grpc::CallbackServerContext* ctx) {
  auto* session = new Session(*this, ctx);
  Principal who;
  session->start(auth_.check(*ctx, {fleet::Role::Builder, fleet::Role::Admin}, "Connect (builder registration)", &who));
  return session;
}

grpc::Status BuilderService::join(grpc::CallbackServerContext* ctx, const v1::BuilderInfo& info,
                                  const std::shared_ptr<StreamWriter<v1::BuilderWork>>& writer,
                                  std::string* builder_id) {
  if (auto s = check_builder_info(info); !s.ok()) return s;
  if (info.compiler_version() != pool_.compiler_version()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the builder's compiler is '" + fleet::printable(info.compiler_version()) +
                            "', the tracker's '" + pool_.compiler_version() +
                            "': a config index would name another kernel; run the same version");
  }
  const std::string id = info.hostname() + ":" + std::to_string(info.pid()) + "#" + std::to_string(++connections_);
  v1::BuilderWork hello;
  hello.mutable_registered()->set_builder_id(id);
  hello.mutable_registered()->set_heartbeat_interval_ms(heartbeat_interval_ms_);
  hello.mutable_registered()->set_tracker_version(TUNEFARM_VERSION);
  if (!writer->send(hello)) return grpc::Status(grpc::StatusCode::CANCELLED, "the builder left while registering");
  BuilderLink link;
  link.send = [writer](const v1::BuilderWork& m) { return writer->send(m); };
  link.disconnect = [writer] {
    writer->end(grpc::Status(grpc::StatusCode::CANCELLED, "disconnected by the tracker"), true);
  };
  pool_.add_builder(id, info, ctx->peer(), std::move(link));
  std::string triples;
  for (const auto& t : info.triples()) triples += (triples.empty() ? "" : ",") + t;
  std::fprintf(stderr, "tracker: builder %s connected (%d builds at once, %s, from %s)\n", id.c_str(), info.jobs(),
               triples.c_str(), ctx->peer().c_str());
  *builder_id = id;
  return grpc::Status::OK;
}

}  // namespace tf::tracker
