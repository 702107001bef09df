// Browser sessions of the dashboard: a token proven once (login form, or ?token= in a URL) becomes
// a random session id in an HttpOnly cookie, so the token itself is not kept in the browser. Each
// session has its own CSRF token, which the dashboard's pages send with every change. Sessions are
// capped per principal and in all, the oldest going first, so signing in over and over grows
// nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "tracker/auth.h"

namespace tf::tracker::http {

struct SessionCaps {
  size_t per_principal = 16;
  size_t total = 1024;
};

class Sessions {
 public:
  struct Session {
    Principal who;
    std::string csrf_token;
  };

  explicit Sessions(std::chrono::seconds lifetime = std::chrono::hours(12), SessionCaps caps = SessionCaps{});
  // A new session for `who`; its id.
  std::string open(const Principal& who);
  // The session, when the id is known and not expired.
  std::optional<Session> find(const std::string& id);
  size_t size();

  static constexpr const char* kCookie = "tf_session";

 private:
  // An id is a selector, which finds the session, and a verifier, compared in constant time.
  struct Entry {
    std::string verifier;
    Session session;
    std::chrono::steady_clock::time_point expires;
    uint64_t opened = 0;  // a sequence number: smaller is older
  };
  void drop_expired(std::chrono::steady_clock::time_point now);
  // Closes the oldest session (of `name`, or of anyone when null).
  void drop_oldest(const std::string* name);
  size_t count(const std::string& name) const;

  std::chrono::seconds lifetime_;
  SessionCaps caps_;
  std::mutex mu_;
  std::map<std::string, Entry> sessions_;  // by selector
  uint64_t opened_ = 0;
};

// The value of cookie `name` in a Cookie header ("a=1; tf_session=xyz"), empty when absent.
std::string cookie_value(const std::string& cookie_header, const std::string& name);

}  // namespace tf::tracker::http
