#include "proto/channel.h"

#include <stdexcept>

#include "support/files.h"

namespace tf::fleet {

std::shared_ptr<grpc::Channel> open_channel(const std::string& address, const std::string& tls_ca_file) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // A board or a client that lost the tracker retries on its own schedule; fail fast meanwhile.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (tls_ca_file.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = read_file(tls_ca_file);
    creds = grpc::SslCredentials(ssl);
  }
  return grpc::CreateCustomChannel(address, creds, args);
}

void add_token(grpc::ClientContext& ctx, const std::string& token) {
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
}

}  // namespace tf::fleet
