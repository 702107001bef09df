// The measure worker's confinement. A board runs kernels it receives over the network, so the
// worker that loads them gives up, before the first dlopen (a library's constructors run inside
// dlopen), everything a kernel never needs:
// - files: it may read the system's libraries and its own /proc entry, nothing of its user's
//   (the board's token file, the board's memory through /proc, other users' work), by Landlock
//   rules; started as root it also becomes "nobody";
// - system calls: a seccomp filter allows what loading and timing a kernel needs and traps every
//   other one (the network, new processes, writing files, raising limits, signalling other
//   processes); the trap handler reports the call to the parent as a kSandboxViolation frame and
//   ends the worker, so the trial fails with the call's name and the board starts a fresh worker
//   (a call of another ABI, x32 on x86_64, ends it at once: the list is of this ABI's numbers);
// - resources: address space, open files, no core files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tf::runtime::sandbox {

struct Limits {
  uint64_t memory_bytes = 0;  // address-space limit; 0: none
  // Files beyond the system's libraries the worker must open read-only (the timing lock). One
  // missing at enter() stays out of reach: opening it later fails, naming it.
  std::vector<std::string> readable_files;
  // Without file rules (a kernel older than Linux 5.13, or Landlock turned off) a worker not
  // started as root could read every file its user can: refuse to enter rather than run so.
  // Off, such a worker runs with the system-call filter alone (local tuning of one's own kernels).
  bool require_file_rules = false;
};

// Drops root for the unprivileged "nobody" user when run as root, sets the resource limits,
// restricts file access and installs the filter. Returns "" when confined, otherwise why not
// (nothing half-applied matters: the caller refuses to measure). Irreversible, and applies to every
// thread started afterwards.
std::string enter(const Limits& limits);

// Whether this process has entered the sandbox: what it may no longer do, it should not try.
bool active();

// The name of a system call of this architecture ("socket"), or "system call N".
std::string syscall_name(uint32_t nr);

// Whether the filter would trap this open(2) flag combination: what a kernel may open is read-only.
bool open_flags_allowed(int flags);

}  // namespace tf::runtime::sandbox
