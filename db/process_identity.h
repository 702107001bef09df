// Who runs a local job: host, pid and the process's start (boot id and start time, since pids are
// reused), so that another process can tell the job's process has died.
#pragma once

#include <cstdint>
#include <string>

namespace tf::db {

struct ProcessIdentity {
  std::string host;
  int64_t pid = 0;
  std::string start;  // "<boot id>:<start ticks>", empty when /proc does not say

  static ProcessIdentity self();
  // False only when the process is known to be gone: on this host, and no process with that pid
  // and start is running. A process on another host is assumed alive.
  bool alive() const;
};

}  // namespace tf::db
