#include "runtime/sandbox.h"

#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/sandbox_parts.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// A sanitizer's shadow memory is terabytes of reserved address space: an address-space limit
// would stop the process before main.
#define TF_SANITIZED 1
#endif

namespace tf::runtime::sandbox {
namespace {

bool entered = false;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string drop_root() {
  if (::geteuid() != 0) return "";
  // nobody/nogroup: whatever root-only files the board keeps (its token) are out of reach.
  constexpr uid_t kNobody = 65534;
  constexpr gid_t kNogroup = 65534;
  if (::setgroups(0, nullptr) != 0) return errno_text("setgroups");
  if (::setresgid(kNogroup, kNogroup, kNogroup) != 0) return errno_text("setresgid");
  if (::setresuid(kNobody, kNobody, kNobody) != 0) return errno_text("setresuid");
  return "";
}

std::string set_limits(const Limits& limits) {
  const rlimit no_core{0, 0};
  if (::setrlimit(RLIMIT_CORE, &no_core) != 0) return errno_text("setrlimit(RLIMIT_CORE)");
  const rlimit few_files{256, 256};
  if (::setrlimit(RLIMIT_NOFILE, &few_files) != 0) return errno_text("setrlimit(RLIMIT_NOFILE)");
#ifndef TF_SANITIZED
  if (limits.memory_bytes > 0) {
    const rlimit memory{limits.memory_bytes, limits.memory_bytes};
    if (::setrlimit(RLIMIT_AS, &memory) != 0) return errno_text("setrlimit(RLIMIT_AS)");
  }
#endif
  return "";
}

// File rules where the kernel has them. Without them a worker that dropped root still keeps the
// root-only files out of reach; one that runs as an ordinary user does not, which a board refuses.
std::string confine_files(const Limits& limits, bool was_root) {
  bool unsupported = false;
  const std::string why = restrict_file_access(limits.readable_files, &unsupported);
  if (why.empty() || (unsupported && (was_root || !limits.require_file_rules))) return "";
  if (unsupported) {
    return "cannot keep kernels from this user's files: " + why +
           "; run the board as root (its worker then runs kernels as nobody) or on a newer kernel";
  }
  return "cannot restrict file access: " + why;
}

}  // namespace

bool active() { return entered; }

std::string enter(const Limits& limits) {
  const bool was_root = ::geteuid() == 0;
  if (std::string bad = drop_root(); !bad.empty()) return "cannot drop root: " + bad;
  if (std::string bad = set_limits(limits); !bad.empty()) return bad;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno_text("prctl(PR_SET_NO_NEW_PRIVS)");
  if (std::string bad = confine_files(limits, was_root); !bad.empty()) return bad;
  if (std::string bad = install_syscall_filter(); !bad.empty()) return bad;
  entered = true;
  return "";
}

}  // namespace tf::runtime::sandbox
