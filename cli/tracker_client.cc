#include "cli/tracker_client.h"

#include <cstdio>

#include "proto/channel.h"
#include "proto/tokens.h"

namespace tf::cli {
namespace {

std::string token_of(const TrackerArgs& args) {
  try {
    return fleet::caller_token(args.token_file);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--token-file: ") + e.what());
  }
}

std::shared_ptr<grpc::Channel> channel_of(const TrackerArgs& args) {
  try {
    return fleet::open_channel(args.address, args.tls_ca);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--tls-ca: ") + e.what());
  }
}

}  // namespace

void add_tracker_options(CLI::App& app, TrackerArgs& out) {
  out.address_option = app.add_option("--tracker", out.address, "the tracker")->type_name("HOST:PORT");
  app.add_option("--token-file", out.token_file, "your token line (or set TUNEFARM_TOKEN)")->type_name("FILE");
  app.add_option("--tls-ca", out.tls_ca, "talk TLS, trusting this CA certificate")->type_name("PEM");
}

TrackerClient::TrackerClient(const TrackerArgs& args)
    : fleet::TrackerClient(args.address, token_of(args), channel_of(args)) {}

int TrackerClient::fail(const std::string& cmd, const grpc::Status& s) const {
  const fleet::CallFailure f = fleet::describe_failure(address(), s);
  std::fprintf(stderr, "%s: %s\n", cmd.c_str(), f.message.c_str());
  return f.kind == fleet::CallFailure::kBadRequest || f.kind == fleet::CallFailure::kRefused ? 2 : 1;
}

grpc::Status watch_job(TrackerClient& client, int64_t id, const std::function<void(const v1::Job&)>& on_update,
                       const std::string& who) {
  return fleet::watch_job(client, id, on_update, [&](const std::string& reason) {
    if (!who.empty()) std::fprintf(stderr, "%s: lost the tracker (%s); waiting for it\n", who.c_str(), reason.c_str());
  });
}

}  // namespace tf::cli
