// The dashboard server's open connections, counted per client address and in all. A cap reached
// makes room rather than turning the newcomer away: the connection that has waited longest for a
// request (of that address, else of any) is closed. So idle sockets, however many and from
// whichever address, cannot keep out a client that sends a request; only connections busy with a
// request are never closed to make room.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tf::tracker::http {

class ConnectionRegistry {
 public:
  using Close = std::function<void()>;  // closes the connection; callable from any thread

  ConnectionRegistry(int max_connections, int max_per_address);

  // Registers a connection from `address`, waiting for its first request; its id. 0 when it must
  // be turned away: the server stops, or every connection that could make room is busy. `evicted`
  // gets the closers of the connections it replaces, to call once the registry's lock is released.
  uint64_t admit(const std::string& address, Close close, std::vector<Close>* evicted);
  // The connection waits for (the rest of) a request, so it may be closed to make room. False when
  // it is no longer registered (evicted, or the server stops).
  bool waiting(uint64_t id);
  // The connection has a whole request to answer; false when it is no longer registered.
  bool busy(uint64_t id);
  void remove(uint64_t id);
  // Admits nothing more; the closers of every connection, to call.
  std::vector<Close> stop();
  int size() const;

 private:
  struct Entry {
    std::string address;
    Close close;
    bool waiting = true;
    uint64_t waiting_since = 0;  // a sequence number: smaller waited longer
  };
  // The connection (of `address`, or of any when empty) waiting longest; end() when none waits.
  std::map<uint64_t, Entry>::iterator longest_waiting(const std::string& address);
  void erase(std::map<uint64_t, Entry>::iterator it);

  const int max_connections_;
  const int max_per_address_;
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> entries_;
  std::map<std::string, int> per_address_;
  uint64_t next_id_ = 1;
  uint64_t clock_ = 0;
  bool stopped_ = false;
};

}  // namespace tf::tracker::http
