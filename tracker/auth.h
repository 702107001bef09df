// Who may call what. With a token file every call must carry a known bearer token, and the
// token's role must allow the call: boards connect, clients submit and read, admins do both and
// may cancel anyone's job. Without a token file the tracker listens on loopback only and every
// caller is an anonymous admin.
#pragma once

#include <grpcpp/grpcpp.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "proto/tokens.h"

namespace tf::tracker {

struct Principal {
  std::string name = "anonymous";
  fleet::Role role = fleet::Role::Admin;
};

class Authenticator {
 public:
  Authenticator() = default;  // open: no tokens required
  explicit Authenticator(std::vector<fleet::TokenEntry> tokens);
  bool enabled() const { return enabled_; }

  // OK and the caller; UNAUTHENTICATED for a missing or unknown token; PERMISSION_DENIED when the
  // token's role is not one of `allowed` (the message names the role and the call).
  grpc::Status check(const grpc::ServerContextBase& ctx, std::initializer_list<fleet::Role> allowed,
                     const std::string& call, Principal* who) const;
  // The same check for a token that came another way (the HTTP dashboard's header, cookie or URL);
  // `token` null when none came.
  grpc::Status check_token(const std::string* token, std::initializer_list<fleet::Role> allowed,
                           const std::string& call, Principal* who) const;

 private:
  bool enabled_ = false;
  std::vector<fleet::TokenEntry> tokens_;
};

}  // namespace tf::tracker
