// The measure worker's confinement. A board runs kernels it receives over the network, so the
// worker that loads them gives up, before the first dlopen (a library's constructors run inside
// dlopen), everything a kernel never needs: the network, new processes, writing or creating
// files, raising its own limits, signalling other processes. A seccomp filter allows the system
// calls loading and timing a kernel make and traps every other one; the trap handler reports the
// call to the parent as a kSandboxViolation frame and ends the worker, so the trial fails with the
// call's name and the board starts a fresh worker.
#pragma once

#include <cstdint>
#include <string>

namespace tf::runtime::sandbox {

struct Limits {
  uint64_t memory_bytes = 0;  // address-space limit; 0: none
};

// Drops root for the unprivileged "nobody" user when run as root, sets the resource limits and
// installs the filter. Returns "" when confined, otherwise why not (nothing half-applied matters:
// the caller refuses to measure). Irreversible, and applies to every thread started afterwards.
std::string enter(const Limits& limits);

// Whether this process has entered the sandbox: what it may no longer do, it should not try.
bool active();

// The name of a system call of this architecture ("socket"), or "system call N".
std::string syscall_name(uint32_t nr);

// Whether the filter would trap this open(2) flag combination: what a kernel may open is read-only.
bool open_flags_allowed(int flags);

}  // namespace tf::runtime::sandbox
