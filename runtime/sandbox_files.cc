// File access of the measure worker, by Landlock (Linux 5.13+): the one confinement that holds
// whatever user the board runs as. Without it, a worker of a board run by an ordinary user could
// read that user's files (the board's token file) and, through /proc, the board's memory and
// environment. seccomp cannot tell one path from another; Landlock can.
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/sandbox_parts.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

namespace tf::runtime::sandbox {
namespace {

constexpr uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE;
constexpr uint64_t kReadTree = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;

// What loading a kernel reads: the loader's cache and the libraries (a kernel's own dependencies
// come from there too), the CPU topology the thread pool asks for, the usual device files, and
// the process's own /proc entry (the allocator and sanitizers read /proc/self/maps; a kernel
// library is loaded from /proc/self/fd/N). "/proc/self" is resolved when the rule is made: it
// grants this process's entry, never another's.
struct Rule {
  const char* path;
  uint64_t access;
};
const Rule kSystemRules[] = {
    {"/usr", kReadTree},       {"/lib", kReadTree},
    {"/lib64", kReadTree},     {"/lib32", kReadTree},
    {"/libx32", kReadTree},    {"/etc/ld.so.cache", kRead},
    {"/etc/localtime", kRead}, {"/sys/devices/system/cpu", kRead | LANDLOCK_ACCESS_FS_READ_DIR},
    {"/dev/null", kRead},      {"/dev/zero", kRead},
    {"/dev/urandom", kRead},   {"/proc/self", kRead | LANDLOCK_ACCESS_FS_READ_DIR},
};

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// Every right the running kernel's Landlock knows, so that each is denied unless a rule grants it.
uint64_t handled_rights(long abi) {
  uint64_t all = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                 LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                 LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) all |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return all;
}

// Adds a rule for `path`; a missing path is "" when `optional`, an error otherwise.
std::string add_rule(int ruleset, const std::string& path, uint64_t access, bool optional) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return optional && errno == ENOENT ? "" : errno_text("cannot open " + path + " for a file rule");
  landlock_path_beneath_attr rule{};
  rule.allowed_access = access;
  rule.parent_fd = fd;
  const long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  const int err = errno;
  ::close(fd);
  errno = err;
  return rc == 0 ? "" : errno_text("landlock_add_rule(" + path + ")");
}

}  // namespace

std::string restrict_file_access(const std::vector<std::string>& readable_files, bool* unsupported) {
  *unsupported = false;
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) {
    *unsupported = errno == ENOSYS || errno == EOPNOTSUPP;
    return errno_text("Landlock is not available (Linux 5.13 or later with Landlock enabled is needed)");
  }
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled_rights(abi);
  const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) return errno_text("landlock_create_ruleset");
  std::string bad;
  for (const Rule& r : kSystemRules) {
    if (bad.empty()) bad = add_rule(ruleset, r.path, r.access, true);
  }
  for (const std::string& f : readable_files) {
    if (bad.empty()) bad = add_rule(ruleset, f, kRead, true);
  }
  if (bad.empty() && ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) bad = errno_text("landlock_restrict_self");
  ::close(ruleset);
  return bad;
}

}  // namespace tf::runtime::sandbox
