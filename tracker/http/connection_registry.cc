#include "tracker/http/connection_registry.h"

namespace tf::tracker::http {

ConnectionRegistry::ConnectionRegistry(int max_connections, int max_per_address)
    : max_connections_(max_connections), max_per_address_(max_per_address) {}

std::map<uint64_t, ConnectionRegistry::Entry>::iterator ConnectionRegistry::longest_waiting(
    const std::string& address) {
  auto best = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (!it->second.waiting || (!address.empty() && it->second.address != address)) continue;
    if (best == entries_.end() || it->second.waiting_since < best->second.waiting_since) best = it;
  }
  return best;
}

void ConnectionRegistry::erase(std::map<uint64_t, Entry>::iterator it) {
  if (--per_address_[it->second.address] == 0) per_address_.erase(it->second.address);
  entries_.erase(it);
}

uint64_t ConnectionRegistry::admit(const std::string& address, Close close, std::vector<Close>* evicted) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return 0;
  auto make_room = [&](const std::string& among) {
    const auto victim = longest_waiting(among);
    if (victim == entries_.end()) return false;
    evicted->push_back(std::move(victim->second.close));
    erase(victim);
    return true;
  };
  const auto same = per_address_.find(address);
  if (same != per_address_.end() && same->second >= max_per_address_ && !make_room(address)) return 0;
  if (static_cast<int>(entries_.size()) >= max_connections_ && !make_room("")) return 0;
  const uint64_t id = next_id_++;
  entries_[id] = Entry{address, std::move(close), true, ++clock_};
  ++per_address_[address];
  return id;
}

bool ConnectionRegistry::waiting(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return false;
  it->second.waiting = true;
  it->second.waiting_since = ++clock_;
  return true;
}

bool ConnectionRegistry::busy(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return false;
  it->second.waiting = false;
  return true;
}

void ConnectionRegistry::remove(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it != entries_.end()) erase(it);
}

std::vector<ConnectionRegistry::Close> ConnectionRegistry::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  std::vector<Close> all;
  for (auto& [id, entry] : entries_) all.push_back(std::move(entry.close));
  entries_.clear();
  per_address_.clear();
  return all;
}

int ConnectionRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(entries_.size());
}

}  // namespace tf::tracker::http
