// The builder-facing gRPC service: one stream per builder (tunefarm-builder). The builder registers
// (its compiler, the triples it builds for, how many builds it runs at once), then sends heartbeats
// and build results while the build pool writes build requests down the same stream. The stream
// ending, for any reason, is the builder leaving: what it held goes to another. Streams are served
// by callbacks (tracker/stream_session.h): no thread is held per builder.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "proto/tunefarm.grpc.pb.h"
#include "tracker/auth.h"
#include "tracker/build_pool.h"
#include "tracker/stream_session.h"

namespace tf::tracker {

class BuilderService final : public v1::Builders::CallbackService {
 public:
  BuilderService(BuildPool& pool, const Authenticator& auth, int heartbeat_interval_ms);
  grpc::ServerBidiReactor<v1::BuilderMessage, v1::BuilderWork>* Connect(grpc::CallbackServerContext* ctx) override;

 private:
  class Session;
  // Checks a builder's registration and adds it to the pool; the builder's id, or the refusal.
  // `writer` is the builder's stream: Registered goes down it before any build can.
  grpc::Status join(grpc::CallbackServerContext* ctx, const v1::BuilderInfo& info,
                    const std::shared_ptr<StreamWriter<v1::BuilderWork>>& writer, std::string* builder_id);

  BuildPool& pool_;
  const Authenticator& auth_;
  int heartbeat_interval_ms_;
  std::atomic<int64_t> connections_{0};
};

}  // namespace tf::tracker
