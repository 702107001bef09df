// Browser sessions of the dashboard: a token proven once (login form, or ?token= in a URL) becomes
// a random session id in an HttpOnly cookie, so the token itself is not kept in the browser.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "tracker/auth.h"

namespace tf::tracker::http {

class Sessions {
 public:
  explicit Sessions(std::chrono::seconds lifetime = std::chrono::hours(12)) : lifetime_(lifetime) {}
  // A new session for `who`; its id.
  std::string open(const Principal& who);
  // The session's principal, when the id is known and not expired.
  std::optional<Principal> find(const std::string& id);

  static constexpr const char* kCookie = "tf_session";

 private:
  struct Session {
    Principal who;
    std::chrono::steady_clock::time_point expires;
  };
  std::chrono::seconds lifetime_;
  std::mutex mu_;
  std::map<std::string, Session> sessions_;
};

// The value of cookie `name` in a Cookie header ("a=1; tf_session=xyz"), empty when absent.
std::string cookie_value(const std::string& cookie_header, const std::string& name);

}  // namespace tf::tracker::http
