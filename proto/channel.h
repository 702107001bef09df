// Opening a channel to the tracker, the same way for boards and clients: plaintext, or TLS when a CA
// certificate is given; the bearer token goes with every call as "authorization" metadata.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace tf::fleet {

// Throws std::runtime_error when the CA file cannot be read.
std::shared_ptr<grpc::Channel> open_channel(const std::string& address, const std::string& tls_ca_file);

// Adds "authorization: Bearer <token>" (nothing for an empty token).
void add_token(grpc::ClientContext& ctx, const std::string& token);

// Messages can carry kernels and reference outputs of several MB.
constexpr int kMaxMessageBytes = 256 << 20;

}  // namespace tf::fleet
