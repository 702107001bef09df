#include "tracker/http/sessions.h"

#include "proto/secrets.h"

namespace tf::tracker::http {
namespace {

constexpr size_t kSelectorHex = 32;  // 16 random bytes
constexpr size_t kVerifierHex = 64;  // 32 random bytes

}  // namespace

Sessions::Sessions(std::chrono::seconds lifetime, SessionCaps caps) : lifetime_(lifetime), caps_(caps) {}

void Sessions::drop_expired(std::chrono::steady_clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->second.expires < now ? sessions_.erase(it) : std::next(it);
  }
}

void Sessions::drop_oldest(const std::string* name) {
  auto oldest = sessions_.end();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (name && it->second.session.who.name != *name) continue;
    if (oldest == sessions_.end() || it->second.opened < oldest->second.opened) oldest = it;
  }
  if (oldest != sessions_.end()) sessions_.erase(oldest);
}

size_t Sessions::count(const std::string& name) const {
  size_t n = 0;
  for (const auto& [selector, entry] : sessions_) n += entry.session.who.name == name;
  return n;
}

std::string Sessions::open(const Principal& who) {
  const std::string selector = fleet::random_hex(kSelectorHex / 2);
  Entry entry{fleet::random_hex(kVerifierHex / 2), Session{who, fleet::random_hex(32)}, {}, 0};
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  drop_expired(now);
  while (!sessions_.empty() && count(who.name) >= caps_.per_principal) drop_oldest(&who.name);
  while (!sessions_.empty() && sessions_.size() >= caps_.total) drop_oldest(nullptr);
  entry.expires = now + lifetime_;
  entry.opened = ++opened_;
  std::string id = selector + entry.verifier;
  sessions_[selector] = std::move(entry);
  return id;
}

std::optional<Sessions::Session> Sessions::find(const std::string& id) {
  if (id.size() != kSelectorHex + kVerifierHex) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id.substr(0, kSelectorHex));
  if (it == sessions_.end() || !fleet::same_secret(id.substr(kSelectorHex), it->second.verifier)) return std::nullopt;
  if (it->second.expires < std::chrono::steady_clock::now()) {
    sessions_.erase(it);
    return std::nullopt;
  }
  return it->second.session;
}

size_t Sessions::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

std::string cookie_value(const std::string& header, const std::string& name) {
  size_t start = 0;
  while (start < header.size()) {
    size_t end = header.find(';', start);
    if (end == std::string::npos) end = header.size();
    std::string part = header.substr(start, end - start);
    const auto b = part.find_first_not_of(' ');
    part = b == std::string::npos ? "" : part.substr(b);
    if (part.compare(0, name.size() + 1, name + "=") == 0) return part.substr(name.size() + 1);
    start = end + 1;
  }
  return "";
}

}  // namespace tf::tracker::http
