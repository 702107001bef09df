// The system-call layer of the measure worker's sandbox (runtime/sandbox.h): a seccomp allowlist
// built with libseccomp, which writes and checks the BPF program, and the SIGSYS handler that
// reports a trapped call.
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>

#include "runtime/sandbox.h"
#include "runtime/sandbox_parts.h"
#include "runtime/worker_protocol.h"

namespace tf::runtime::sandbox {
namespace {

// The calls loading and timing a kernel make (the loader, the allocator, the thread pool, the
// timing lock, the pipes to the parent), and the harmless queries the C library and sanitizers
// make on the way. Everything else traps.
// clang-format off
const long kAllowed[] = {
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_lseek, SYS_close, SYS_fstat, SYS_newfstatat,
#ifdef SYS_statx
    SYS_statx,
#endif
#ifdef SYS_stat
    SYS_stat, SYS_lstat, SYS_access, SYS_readlink,
#endif
    SYS_faccessat, SYS_readlinkat, SYS_getcwd, SYS_fcntl, SYS_flock,
    SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise, SYS_brk, SYS_mincore, SYS_memfd_create,
    SYS_futex, SYS_set_robust_list, SYS_get_robust_list, SYS_set_tid_address,
#ifdef SYS_rseq
    SYS_rseq,
#endif
#ifdef SYS_membarrier
    SYS_membarrier,
#endif
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_sigaltstack, SYS_restart_syscall,
    SYS_exit, SYS_exit_group, SYS_getpid, SYS_gettid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid,
    SYS_sched_yield, SYS_sched_getaffinity, SYS_sched_setaffinity, SYS_sched_getparam, SYS_sched_getscheduler,
    SYS_nanosleep, SYS_clock_nanosleep, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday,
    SYS_getrandom, SYS_uname, SYS_sysinfo, SYS_getrusage, SYS_times,
#ifdef SYS_arch_prctl
    SYS_arch_prctl,
#endif
};
// clang-format on

// What an open may not ask for: writing, creating or truncating.
constexpr uint32_t kWriteOpenFlags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY);

struct FilterRelease {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using FilterContext = std::unique_ptr<void, FilterRelease>;

// libseccomp's name of a call of this architecture (null for a number it does not know), which
// the caller frees.
using OwnedName = std::unique_ptr<char, decltype(&std::free)>;
OwnedName resolved_name(uint32_t nr) {
  return OwnedName(seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(nr)), &std::free);
}

// libseccomp returns -errno; with SCMP_FLTATR_API_SYSRAWRC, seccomp_load passes on the kernel's.
std::string libseccomp_error(const std::string& call, int rc) { return call + ": " + std::strerror(-rc); }

// Each rule in order; the first failure names the call, the system call and why.
class Rules {
 public:
  explicit Rules(scmp_filter_ctx ctx) : ctx_(ctx) {}
  void add(uint32_t action, long nr, std::initializer_list<scmp_arg_cmp> when = {}) {
    if (!error_.empty()) return;
    const int rc =
        seccomp_rule_add_array(ctx_, action, static_cast<int>(nr), static_cast<unsigned>(when.size()), when.begin());
    if (rc != 0) error_ = libseccomp_error("seccomp_rule_add(" + syscall_name(static_cast<uint32_t>(nr)) + ")", rc);
  }
  const std::string& error() const { return error_; }

 private:
  scmp_filter_ctx ctx_;
  std::string error_;
};

std::string add_worker_rules(scmp_filter_ctx ctx) {
  Rules r(ctx);
  for (long nr : kAllowed) r.add(SCMP_ACT_ALLOW, nr);
  // Open flags are an int: only the low half of the register is the kernel's to read.
  r.add(SCMP_ACT_ALLOW, SYS_openat, {SCMP_A2_32(SCMP_CMP_MASKED_EQ, kWriteOpenFlags, 0)});
#ifdef SYS_open
  r.add(SCMP_ACT_ALLOW, SYS_open, {SCMP_A1_32(SCMP_CMP_MASKED_EQ, kWriteOpenFlags, 0)});
#endif
  // Threads for the kernel's pool, never a process.
  r.add(SCMP_ACT_ALLOW, SYS_clone, {SCMP_A0_32(SCMP_CMP_MASKED_EQ, CLONE_THREAD | CLONE_VM, CLONE_THREAD | CLONE_VM)});
  // The C library falls back to clone when clone3 is missing; clone3's flags sit in memory a
  // filter cannot read.
  r.add(SCMP_ACT_ERRNO(ENOSYS), SYS_clone3);
  // isatty() and nothing else: TIOCSTI on an inherited terminal would type into the operator's shell.
  r.add(SCMP_ACT_ALLOW, SYS_ioctl, {SCMP_A1_64(SCMP_CMP_EQ, TCGETS)});
  // Reading limits (sanitizers, the C library) but never raising them.
  r.add(SCMP_ACT_ALLOW, SYS_prlimit64, {SCMP_A2_64(SCMP_CMP_EQ, 0)});
  // Signals to itself only (abort, a thread pool's wake-ups): never to the board or its group.
  // All 64 bits compared: a pid with high bits set is not this process's, whatever the kernel truncates.
  const auto self = static_cast<uint64_t>(::getpid());
  r.add(SCMP_ACT_ALLOW, SYS_kill, {SCMP_A0_64(SCMP_CMP_EQ, self)});
  r.add(SCMP_ACT_ALLOW, SYS_tgkill, {SCMP_A0_64(SCMP_CMP_EQ, self)});
  return r.error();
}

std::string set_attribute(scmp_filter_ctx ctx, scmp_filter_attr attr, const char* name, uint32_t value) {
  const int rc = seccomp_attr_set(ctx, attr, value);
  return rc == 0 ? "" : libseccomp_error(std::string("seccomp_attr_set(") + name + ")", rc);
}

// Level 3 brings SCMP_ACT_KILL_PROCESS (Linux 4.14) on top of TSYNC: asked first, so that a host
// without them (an old kernel, qemu-user, which filters nothing) is told so in words.
constexpr unsigned kSeccompApiNeeded = 3;

// The worker's filter, not yet loaded; null with *why when libseccomp refused part of it.
FilterContext worker_filter(std::string* why) {
  if (const unsigned api = seccomp_api_get(); api < kSeccompApiNeeded) {
    *why = "seccomp_api_get: seccomp here offers API level " + std::to_string(api) + ", the filter needs " +
           std::to_string(kSeccompApiNeeded) + " (threads synchronised, whole processes killed: Linux 4.14 or later)";
    return nullptr;
  }
  errno = 0;
  FilterContext ctx(seccomp_init(SCMP_ACT_TRAP));
  if (!ctx) {
    *why = std::string("seccomp_init(SCMP_ACT_TRAP): ") +
           (errno ? std::strerror(errno) : "libseccomp supports neither this architecture nor the trap action here");
    return nullptr;
  }
  // A call of another ABI (x32 on x86_64, 32-bit ARM on aarch64) is not one the list speaks of:
  // the process ends at once, unreported, rather than the list being read with the wrong numbers.
  *why = set_attribute(ctx.get(), SCMP_FLTATR_ACT_BADARCH, "SCMP_FLTATR_ACT_BADARCH", SCMP_ACT_KILL_PROCESS);
  // The thread pool may already run: every thread gets the same filter, or none does.
  if (why->empty()) *why = set_attribute(ctx.get(), SCMP_FLTATR_CTL_TSYNC, "SCMP_FLTATR_CTL_TSYNC", 1);
  // The kernel's own reason when loading fails, not libseccomp's ECANCELED.
  if (why->empty()) *why = set_attribute(ctx.get(), SCMP_FLTATR_API_SYSRAWRC, "SCMP_FLTATR_API_SYSRAWRC", 1);
  if (why->empty()) *why = add_worker_rules(ctx.get());
  if (!why->empty()) return nullptr;
  return ctx;
}

// Names of this architecture's calls, resolved before the filter is loaded: the SIGSYS handler
// may not allocate, and libseccomp's lookup does. A longer name would not fit the violation frame.
constexpr uint32_t kNamedCalls = 512;
constexpr size_t kNameBytes = 32;
char call_names[kNamedCalls][kNameBytes];

void resolve_call_names() {
  for (uint32_t nr = 0; nr < kNamedCalls; ++nr) {
    const OwnedName name = resolved_name(nr);
    if (name) std::memcpy(call_names[nr], name.get(), std::min(std::strlen(name.get()), kNameBytes));
  }
}

// Async-signal-safe: a fixed-size frame built on the stack, two writes and _exit.
void on_forbidden_call(int, siginfo_t* info, void*) {
  const uint32_t nr = static_cast<uint32_t>(info->si_syscall);
  uint8_t frame[sizeof(uint32_t) + sizeof(uint64_t) + sizeof(uint32_t) + kNameBytes] = {};
  const uint32_t kind = worker_protocol::kSandboxViolation;
  const char* name = nr < kNamedCalls ? call_names[nr] : "";
  const size_t name_len = strnlen(name, kNameBytes);
  const uint64_t payload = sizeof nr + name_len;
  std::memcpy(frame, &kind, sizeof kind);
  std::memcpy(frame + 4, &payload, sizeof payload);
  std::memcpy(frame + 12, &nr, sizeof nr);
  std::memcpy(frame + 16, name, name_len);
  ssize_t ignored = ::write(STDOUT_FILENO, frame, 16 + name_len);
  (void)ignored;
  ::_exit(4);  // not kWorkerCannotSandbox: the parent has read the frame and knows why
}

}  // namespace

bool open_flags_allowed(int flags) { return (static_cast<uint32_t>(flags) & kWriteOpenFlags) == 0; }

std::string syscall_name(uint32_t nr) {
  const OwnedName name = resolved_name(nr);
  return name ? std::string(name.get()) : "system call " + std::to_string(nr);
}

std::string install_syscall_filter() {
  std::string why;
  const FilterContext filter = worker_filter(&why);
  if (!filter) return why;
  resolve_call_names();
  struct sigaction sa {};
  sa.sa_sigaction = on_forbidden_call;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction(SIGSYS): ") + std::strerror(errno);
  if (const int rc = seccomp_load(filter.get()); rc != 0) return libseccomp_error("seccomp_load", rc);
  return "";
}

}  // namespace tf::runtime::sandbox
