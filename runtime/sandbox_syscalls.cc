// The system-call layer of the measure worker's sandbox (runtime/sandbox.h): a seccomp allowlist
// written as a classic BPF program, and the SIGSYS handler that reports a trapped call.
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "runtime/sandbox.h"
#include "runtime/sandbox_parts.h"
#include "runtime/worker_protocol.h"

#if defined(__x86_64__)
#define TF_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TF_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the sandbox knows the system calls of x86_64 and aarch64"
#endif

namespace tf::runtime::sandbox {
namespace {

// The calls loading and timing a kernel make (the loader, the allocator, the thread pool, the
// timing lock, the pipes to the parent), and the harmless queries the C library and sanitizers
// make on the way. Everything else traps.
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

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kTrap = SECCOMP_RET_TRAP;

// What an open may not ask for: writing, creating or truncating.
constexpr uint32_t kWriteOpenFlags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY);

constexpr uint32_t arg_lo(int i) { return offsetof(seccomp_data, args) + 8 * i; }
constexpr uint32_t arg_hi(int i) { return arg_lo(i) + 4; }

class Filter {
 public:
  Filter() {
    load(offsetof(seccomp_data, arch));
    jump(BPF_JEQ, TF_AUDIT_ARCH, 1, 0);
    ret(SECCOMP_RET_KILL_PROCESS);
    load(offsetof(seccomp_data, nr));
  }
  void allow(long nr) { when(nr, {stmt(BPF_RET | BPF_K, kAllow)}); }
  void fail_with(long nr, int err) { when(nr, {stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | static_cast<uint32_t>(err))}); }
  // Allowed when argument `arg` has none of `bits`.
  void allow_without_bits(long nr, int arg, uint32_t bits) {
    when(nr, {stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg)), cond(BPF_JSET, bits, 0, 1), stmt(BPF_RET | BPF_K, kTrap),
              stmt(BPF_RET | BPF_K, kAllow)});
  }
  // Allowed when argument `arg` has all of `bits`.
  void allow_with_bits(long nr, int arg, uint32_t bits) {
    when(nr, {stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg)), stmt(BPF_ALU | BPF_AND | BPF_K, bits), cond(BPF_JEQ, bits, 0, 1),
              stmt(BPF_RET | BPF_K, kAllow), stmt(BPF_RET | BPF_K, kTrap)});
  }
  // Allowed when the 64-bit argument `arg` equals `value`.
  void allow_if_equal(long nr, int arg, uint64_t value) {
    when(nr, {stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg)), cond(BPF_JEQ, static_cast<uint32_t>(value), 0, 3),
              stmt(BPF_LD | BPF_W | BPF_ABS, arg_hi(arg)), cond(BPF_JEQ, static_cast<uint32_t>(value >> 32), 0, 1),
              stmt(BPF_RET | BPF_K, kAllow), stmt(BPF_RET | BPF_K, kTrap)});
  }
  std::vector<sock_filter> finish() {
    ret(kTrap);
    return prog_;
  }

 private:
  static sock_filter stmt(uint16_t code, uint32_t k) { return BPF_STMT(code, k); }
  static sock_filter cond(uint16_t op, uint32_t k, uint8_t jt, uint8_t jf) { return BPF_JUMP(BPF_JMP | op | BPF_K, k, jt, jf); }
  void load(uint32_t offset) { prog_.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void jump(uint16_t op, uint32_t k, uint8_t jt, uint8_t jf) { prog_.push_back(cond(op, k, jt, jf)); }
  void ret(uint32_t action) { prog_.push_back(stmt(BPF_RET | BPF_K, action)); }
  // `block` runs when the call number is `nr` and ends in a return on every path, so the
  // accumulator still holds the number for the next test when the block is skipped.
  void when(long nr, std::vector<sock_filter> block) {
    jump(BPF_JEQ, static_cast<uint32_t>(nr), 0, static_cast<uint8_t>(block.size()));
    prog_.insert(prog_.end(), block.begin(), block.end());
  }
  std::vector<sock_filter> prog_;
};

std::vector<sock_filter> worker_filter() {
  Filter f;
  for (long nr : kAllowed) f.allow(nr);
  f.allow_without_bits(SYS_openat, 2, kWriteOpenFlags);
#ifdef SYS_open
  f.allow_without_bits(SYS_open, 1, kWriteOpenFlags);
#endif
  // Threads for the kernel's pool, never a process.
  f.allow_with_bits(SYS_clone, 0, CLONE_THREAD | CLONE_VM);
  // The C library falls back to clone when clone3 is missing; clone3's flags sit in memory a
  // filter cannot read.
  f.fail_with(SYS_clone3, ENOSYS);
  // isatty() and nothing else: TIOCSTI on an inherited terminal would type into the operator's shell.
  f.allow_if_equal(SYS_ioctl, 1, TCGETS);
  // Reading limits (sanitizers, the C library) but never raising them.
  f.allow_if_equal(SYS_prlimit64, 2, 0);
  // Signals to itself only (abort, a thread pool's wake-ups): never to the board or its group.
  const auto self = static_cast<uint64_t>(::getpid());
  f.allow_if_equal(SYS_kill, 0, self);
  f.allow_if_equal(SYS_tgkill, 0, self);
  return f.finish();
}

struct NamedCall {
  long nr;
  const char* name;
};
const NamedCall kNames[] = {
    {SYS_socket, "socket"}, {SYS_socketpair, "socketpair"}, {SYS_connect, "connect"}, {SYS_bind, "bind"},
    {SYS_listen, "listen"}, {SYS_accept4, "accept4"}, {SYS_sendto, "sendto"}, {SYS_sendmsg, "sendmsg"},
#ifdef SYS_fork
    {SYS_fork, "fork"}, {SYS_vfork, "vfork"}, {SYS_open, "open"}, {SYS_creat, "creat"}, {SYS_unlink, "unlink"},
    {SYS_rename, "rename"}, {SYS_mkdir, "mkdir"}, {SYS_chmod, "chmod"}, {SYS_accept, "accept"},
#endif
    {SYS_clone, "clone"}, {SYS_clone3, "clone3"}, {SYS_execve, "execve"}, {SYS_execveat, "execveat"},
    {SYS_openat, "openat"}, {SYS_unlinkat, "unlinkat"}, {SYS_renameat2, "renameat2"}, {SYS_mkdirat, "mkdirat"},
    {SYS_fchmodat, "fchmodat"}, {SYS_truncate, "truncate"}, {SYS_ftruncate, "ftruncate"}, {SYS_ptrace, "ptrace"},
    {SYS_kill, "kill"}, {SYS_tkill, "tkill"}, {SYS_tgkill, "tgkill"}, {SYS_prlimit64, "prlimit64"},
    {SYS_setrlimit, "setrlimit"}, {SYS_mount, "mount"}, {SYS_setuid, "setuid"}, {SYS_setgid, "setgid"},
    {SYS_prctl, "prctl"}, {SYS_seccomp, "seccomp"}, {SYS_bpf, "bpf"}, {SYS_io_uring_setup, "io_uring_setup"},
    {SYS_process_vm_writev, "process_vm_writev"}, {SYS_pipe2, "pipe2"}, {SYS_dup3, "dup3"},
    {SYS_perf_event_open, "perf_event_open"}, {SYS_ioctl, "ioctl"},
};

const char* known_name(uint32_t nr) {
  for (const NamedCall& c : kNames) {
    if (static_cast<uint32_t>(c.nr) == nr) return c.name;
  }
  return nullptr;
}

// Async-signal-safe: a fixed-size frame built on the stack, two writes and _exit.
void on_forbidden_call(int, siginfo_t* info, void*) {
  const uint32_t nr = static_cast<uint32_t>(info->si_syscall);
  uint8_t frame[sizeof(uint32_t) + sizeof(uint64_t) + sizeof(uint32_t) + 32] = {};
  const uint32_t kind = worker_protocol::kSandboxViolation;
  const char* name = known_name(nr);
  const size_t name_len = name ? std::min<size_t>(std::strlen(name), 32) : 0;
  const uint64_t payload = sizeof nr + name_len;
  std::memcpy(frame, &kind, sizeof kind);
  std::memcpy(frame + 4, &payload, sizeof payload);
  std::memcpy(frame + 12, &nr, sizeof nr);
  if (name_len) std::memcpy(frame + 16, name, name_len);
  ssize_t ignored = ::write(STDOUT_FILENO, frame, 16 + name_len);
  (void)ignored;
  ::_exit(4);  // not kWorkerCannotSandbox: the parent has read the frame and knows why
}

}  // namespace

bool open_flags_allowed(int flags) { return (static_cast<uint32_t>(flags) & kWriteOpenFlags) == 0; }

std::string syscall_name(uint32_t nr) {
  if (const char* name = known_name(nr)) return name;
  return "system call " + std::to_string(nr);
}

std::string install_syscall_filter() {
  struct sigaction sa {};
  sa.sa_sigaction = on_forbidden_call;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction(SIGSYS): ") + std::strerror(errno);
  std::vector<sock_filter> prog = worker_filter();
  sock_fprog fprog{static_cast<unsigned short>(prog.size()), prog.data()};
  // TSYNC: the thread pool may already run; every thread gets the same filter.
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog) != 0) {
    return std::string("seccomp(SECCOMP_SET_MODE_FILTER): ") + std::strerror(errno);
  }
  return "";
}

}  // namespace tf::runtime::sandbox
