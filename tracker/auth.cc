#include "tracker/auth.h"

#include "proto/secrets.h"

namespace tf::tracker {

Authenticator::Authenticator(std::vector<fleet::TokenEntry> tokens) : enabled_(true), tokens_(std::move(tokens)) {}

grpc::Status Authenticator::check(const grpc::ServerContextBase& ctx, std::initializer_list<fleet::Role> allowed,
                                  const std::string& call, Principal* who) const {
  if (!enabled_) {
    *who = Principal{};
    return grpc::Status::OK;
  }
  const auto& md = ctx.client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return check_token(nullptr, allowed, call, who);
  const std::string header(it->second.data(), it->second.size());
  const std::string prefix = "Bearer ";
  if (header.compare(0, prefix.size(), prefix) != 0) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, call + ": the authorization header is not 'Bearer <token>'");
  }
  const std::string token = header.substr(prefix.size());
  return check_token(&token, allowed, call, who);
}

grpc::Status Authenticator::check_token(const std::string* token, std::initializer_list<fleet::Role> allowed,
                                        const std::string& call, Principal* who) const {
  if (!enabled_) {
    *who = Principal{};
    return grpc::Status::OK;
  }
  if (!token) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        call + ": no token; this tracker needs one (--token-file FILE or TUNEFARM_TOKEN)");
  }
  const fleet::TokenEntry* found = nullptr;
  for (const auto& e : tokens_) {
    if (fleet::same_secret(*token, e.token)) found = &e;
  }
  if (!found) return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, call + ": unknown token");
  bool ok = false;
  std::string allowed_names;
  for (fleet::Role r : allowed) {
    ok |= r == found->role;
    allowed_names += (allowed_names.empty() ? "" : " or ") + std::string(fleet::role_name(r));
  }
  if (!ok) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, call + ": token '" + found->name + "' has role " +
                                                                 fleet::role_name(found->role) + "; this needs " +
                                                                 allowed_names);
  }
  who->name = found->name;
  who->role = found->role;
  return grpc::Status::OK;
}

}  // namespace tf::tracker
