#include "db/process_identity.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace tf::db {
namespace {

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
std::string start_of(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return "";
  std::istringstream fields(stat.substr(close + 1));
  std::string f;
  if (!(fields >> f) || f == "Z" || f == "X") return "";  // field 3, the state: a zombie has ended
  for (int i = 4; i <= 22 && fields >> f; ++i) {
    if (i == 22) return boot_id() + ":" + f;
  }
  return "";
}

}  // namespace

ProcessIdentity ProcessIdentity::self() {
  ProcessIdentity p;
  p.host = hostname();
  p.pid = static_cast<int64_t>(::getpid());
  p.start = start_of(p.pid);
  return p;
}

bool ProcessIdentity::alive() const {
  if (pid <= 0 || host != hostname()) return true;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  // A pid in use may be another process now: compare starts when we know the job's.
  return start.empty() || start_of(pid) == start;
}

}  // namespace tf::db
