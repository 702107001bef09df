#include "tracker/http/sessions.h"

#include <random>

namespace tf::tracker::http {
namespace {

std::string random_id() {
  std::random_device rd;  // the kernel's CSPRNG on Linux
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i) id += hex[rd() % 16];
  return id;
}

}  // namespace

std::string Sessions::open(const Principal& who) {
  const std::string id = random_id();
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->second.expires < now ? sessions_.erase(it) : std::next(it);
  }
  sessions_[id] = Session{who, now + lifetime_};
  return id;
}

std::optional<Principal> Sessions::find(const std::string& id) {
  if (id.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  if (it->second.expires < std::chrono::steady_clock::now()) {
    sessions_.erase(it);
    return std::nullopt;
  }
  return it->second.who;
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
