// The builder-facing gRPC service: one stream per builder (tunefarm-builder). The builder registers
// (its compiler, the triples it builds for, how many builds it runs at once), then sends heartbeats
// and build results while the build pool writes build requests down the same stream. The stream
// ending, for any reason, is the builder leaving: what it held goes to another.
#pragma once

#include <atomic>
#include <string>

#include "proto/tunefarm.grpc.pb.h"
#include "tracker/auth.h"
#include "tracker/build_pool.h"

namespace tf::tracker {

class BuilderService final : public v1::Builders::Service {
 public:
  BuilderService(BuildPool& pool, const Authenticator& auth, int heartbeat_interval_ms);
  grpc::Status Connect(grpc::ServerContext* ctx,
                       grpc::ServerReaderWriter<v1::BuilderWork, v1::BuilderMessage>* stream) override;

 private:
  BuildPool& pool_;
  const Authenticator& auth_;
  int heartbeat_interval_ms_;
  std::atomic<int64_t> connections_{0};
};

}  // namespace tf::tracker
