// The measure worker's system-call filter (runtime/sandbox.h), one call at a time: a child process
// enters the sandbox and makes the call; how the child ended, and the kSandboxViolation frame its
// SIGSYS handler wrote, tell what the filter did. sandbox_test.cc sees the filter through kernels
// a worker runs; these reach the argument conditions and the filter's attributes (threads that
// ran before it, calls of another ABI), which no ordinary kernel exercises.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/sandbox.h"
#include "runtime/wire.h"
#include "runtime/worker_protocol.h"

namespace tf {
namespace {

using Call = std::function<long()>;

// Which thread of the confined child makes the call.
enum class Caller { MainThread, ThreadStartedBeforeTheFilter, ThreadStartedAfterTheFilter };

// Exit codes of the child beyond the errno values it exits with.
constexpr int kCannotEnter = 200;
constexpr int kCallerVanished = 201;

int errno_of(long rc) { return rc >= 0 ? 0 : errno; }

int enter_sandbox() {
  const std::string why = runtime::sandbox::enter(runtime::sandbox::Limits{});
  if (why.empty()) return 0;
  std::fprintf(stderr, "the probe could not enter the sandbox: %s\n", why.c_str());
  return kCannotEnter;
}

// The child's exit code: 0 when the call returned, its errno when it failed.
int confined_child(const Call& call, Caller caller) {
  if (caller == Caller::MainThread) {
    if (const int bad = enter_sandbox()) return bad;
    return errno_of(call());
  }
  std::atomic<bool> go{false};
  std::atomic<int> result{kCallerVanished};
  auto run = [&] {
    while (!go) ::sched_yield();
    result = errno_of(call());
  };
  if (caller == Caller::ThreadStartedBeforeTheFilter) {
    std::thread earlier(run);
    const int bad = enter_sandbox();
    go = true;
    earlier.join();
    return bad ? bad : result.load();
  }
  if (const int bad = enter_sandbox()) return bad;
  go = true;
  std::thread later(run);
  later.join();  // returns also when the filter ended that thread alone
  return result;
}

// "ok", "failed: <strerror>", "trapped <call>" (the handler's frame), or how else the child ended.
std::string confined(const Call& call, Caller caller = Caller::MainThread) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return std::string("pipe2: ") + std::strerror(errno);
  std::fflush(nullptr);  // nothing buffered here may be written twice by the child
  const pid_t pid = ::fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    // The SIGSYS handler reports on stdout, the worker's pipe to its parent.
    if (::dup2(out[1], STDOUT_FILENO) < 0) ::_exit(kCannotEnter);
    ::_exit(confined_child(call, caller));
  }
  ::close(out[1]);
  uint32_t kind = 0;
  std::vector<uint8_t> payload;
  const bool framed = runtime::wire::read_frame(out[0], &kind, &payload);
  ::close(out[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return std::string("waitpid: ") + std::strerror(errno);
  if (framed && kind == runtime::worker_protocol::kSandboxViolation && payload.size() > sizeof(uint32_t)) {
    return "trapped " + std::string(payload.begin() + sizeof(uint32_t), payload.end());
  }
  if (framed) return "a frame of kind " + std::to_string(kind) + " and " + std::to_string(payload.size()) + " bytes";
  if (WIFSIGNALED(status)) return "killed by " + std::string(strsignal(WTERMSIG(status)));
  const int code = WEXITSTATUS(status);
  if (code == 0) return "ok";
  if (code == kCannotEnter) return "could not enter the sandbox (its reason is on stderr)";
  if (code == kCallerVanished) return "the calling thread ended without returning";
  return "failed: " + std::string(std::strerror(code));
}

long open_dev_null(int flags) { return ::open("/dev/null", flags | O_CLOEXEC); }

TEST(SandboxFilter, AllowsTheCallsLoadingAndTimingAKernelMake) {
  EXPECT_EQ(confined([] { return ::syscall(SYS_getpid); }), "ok");
  EXPECT_EQ(confined([] { return open_dev_null(O_RDONLY); }), "ok");
  EXPECT_EQ(confined([] { return ::kill(::getpid(), 0); }), "ok") << "a signal to itself";
  EXPECT_EQ(confined([] { return ::syscall(SYS_tgkill, ::getpid(), ::gettid(), 0); }), "ok");
  EXPECT_EQ(confined([] {
              rlimit now{};
              return ::syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, &now);
            }),
            "ok")
      << "reading a limit";
  // isatty(): the call reaches the kernel, which answers that the pipe is no terminal (a pipe:
  // Landlock keeps ioctls on device files for itself).
  EXPECT_EQ(confined([] {
              termios t{};
              return ::ioctl(STDOUT_FILENO, TCGETS, &t);
            }),
            "failed: " + std::string(std::strerror(ENOTTY)));
  // A thread for the kernel's pool: clone3 answers ENOSYS, the C library falls back to clone.
  EXPECT_EQ(confined([] {
              std::thread([] {}).join();
              return 0L;
            }),
            "ok");
}

TEST(SandboxFilter, TrapsEveryOtherCallNamingIt) {
  EXPECT_EQ(confined([] { return ::socket(AF_INET, SOCK_STREAM, 0); }), "trapped socket");
  EXPECT_EQ(confined([] { return open_dev_null(O_WRONLY); }), "trapped openat");
  EXPECT_EQ(confined([] { return open_dev_null(O_RDONLY | O_CREAT); }), "trapped openat");
  EXPECT_EQ(confined([] { return open_dev_null(O_RDONLY | O_TRUNC); }), "trapped openat");
  // fork(): clone without CLONE_THREAD. Trapped before the kernel copies anything.
  EXPECT_EQ(confined([] { return ::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); }), "trapped clone");
  EXPECT_EQ(confined([] { return ::kill(::getppid(), 0); }), "trapped kill") << "a signal to the parent";
  EXPECT_EQ(confined([] { return ::kill(0, 0); }), "trapped kill") << "a signal to the process group";
  EXPECT_EQ(confined([] { return ::syscall(SYS_tgkill, ::getppid(), ::getppid(), 0); }), "trapped tgkill");
  EXPECT_EQ(confined([] {
              rlimit now{};
              ::getrlimit(RLIMIT_NOFILE, &now);
              return ::syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &now, nullptr);
            }),
            "trapped prlimit64")
      << "setting a limit, even to its value";
  EXPECT_EQ(confined([] {
              char c = 'x';
              return ::ioctl(STDOUT_FILENO, TIOCSTI, &c);
            }),
            "trapped ioctl");
  // A call no list of this project names: its name comes from libseccomp's table.
  EXPECT_EQ(confined([] { return ::syscall(SYS_setpriority, PRIO_PROCESS, 0, 19); }), "trapped setpriority");
}

TEST(SandboxFilter, Clone3FailsAsMissingSoTheCLibraryFallsBackToClone) {
  // Allowed, the kernel would refuse the empty arguments with EINVAL.
  EXPECT_EQ(confined([] { return ::syscall(SYS_clone3, nullptr, 0); }),
            "failed: " + std::string(std::strerror(ENOSYS)));
}

TEST(SandboxFilter, BindsThreadsThatRanBeforeIt) {
  EXPECT_EQ(confined([] { return ::socket(AF_INET, SOCK_STREAM, 0); }, Caller::ThreadStartedBeforeTheFilter),
            "trapped socket");
}

#if defined(__x86_64__)
// An x32 call (the x86_64 ABI with 32-bit pointers) is numbered apart from the list: the whole
// worker ends, not just the calling thread, and no handler runs that could misname the call.
TEST(SandboxFilter, ACallOfAnotherAbiEndsTheWholeProcess) {
  constexpr long kX32Bit = 0x40000000;
  EXPECT_EQ(confined([] { return ::syscall(kX32Bit | SYS_getpid); }, Caller::ThreadStartedAfterTheFilter),
            "killed by " + std::string(strsignal(SIGSYS)));
}
#endif

TEST(SandboxFilter, NamesCallsByThisArchitecturesNumbers) {
  EXPECT_EQ(runtime::sandbox::syscall_name(SYS_openat), "openat");
  EXPECT_EQ(runtime::sandbox::syscall_name(SYS_clone3), "clone3");
  EXPECT_EQ(runtime::sandbox::syscall_name(99999), "system call 99999");
}

}  // namespace
}  // namespace tf
