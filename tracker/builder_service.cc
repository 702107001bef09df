#include "tracker/builder_service.h"

#include <cstdio>

#include "proto/utf8.h"
#include "tracker/request_checks.h"

namespace tf::tracker {

BuilderService::BuilderService(BuildPool& pool, const Authenticator& auth, int heartbeat_interval_ms)
    : pool_(pool), auth_(auth), heartbeat_interval_ms_(heartbeat_interval_ms) {}

grpc::Status BuilderService::Connect(grpc::ServerContext* ctx,
                                     grpc::ServerReaderWriter<v1::BuilderWork, v1::BuilderMessage>* stream) {
  Principal who;
  if (auto s = auth_.check(*ctx, {fleet::Role::Builder, fleet::Role::Admin}, "Connect (builder registration)", &who);
      !s.ok()) {
    return s;
  }
  v1::BuilderMessage first;
  if (!stream->Read(&first)) return grpc::Status(grpc::StatusCode::CANCELLED, "the builder left before registering");
  if (!first.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a builder's first message must be Register");
  }
  const v1::BuilderInfo& info = first.register_().info();
  if (auto s = check_builder_info(info); !s.ok()) return s;
  if (info.compiler_version() != pool_.compiler_version()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the builder's compiler is '" + fleet::printable(info.compiler_version()) +
                            "', the tracker's '" + pool_.compiler_version() +
                            "': a config index would name another kernel; run the same version");
  }
  const std::string builder_id =
      info.hostname() + ":" + std::to_string(info.pid()) + "#" + std::to_string(++connections_);
  v1::BuilderWork hello;
  hello.mutable_registered()->set_builder_id(builder_id);
  hello.mutable_registered()->set_heartbeat_interval_ms(heartbeat_interval_ms_);
  hello.mutable_registered()->set_tracker_version(TUNEFARM_VERSION);
  BuilderLink link;
  link.send = [stream](const v1::BuilderWork& m) { return stream->Write(m); };
  link.disconnect = [ctx] { ctx->TryCancel(); };
  // Registered goes out before any build: the pool writes to the stream from the moment it knows it.
  if (!stream->Write(hello)) return grpc::Status(grpc::StatusCode::CANCELLED, "the builder left while registering");
  pool_.add_builder(builder_id, info, ctx->peer(), std::move(link));
  std::string triples;
  for (const auto& t : info.triples()) triples += (triples.empty() ? "" : ",") + t;
  std::fprintf(stderr, "tracker: builder %s connected (%d builds at once, %s, from %s)\n", builder_id.c_str(),
               info.jobs(), triples.c_str(), ctx->peer().c_str());

  v1::BuilderMessage msg;
  std::string why = "stream closed";
  while (stream->Read(&msg)) {
    if (msg.has_heartbeat()) {
      pool_.on_heartbeat(builder_id, msg.heartbeat());
    } else if (msg.has_result()) {
      if (std::string dropped = pool_.on_result(builder_id, msg.result()); !dropped.empty())
        std::fprintf(stderr, "tracker: builder %s: answer dropped: %s\n", builder_id.c_str(),
                     fleet::printable(dropped).c_str());
    } else {
      why = "sent a second Register";
      break;
    }
  }
  if (ctx->IsCancelled()) why = "disconnected (missed heartbeats, bad answers or tracker stopping)";
  pool_.remove_builder(builder_id, why);
  std::fprintf(stderr, "tracker: builder %s left: %s\n", builder_id.c_str(), why.c_str());
  return grpc::Status::OK;
}

}  // namespace tf::tracker
