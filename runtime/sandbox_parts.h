// The layers of runtime/sandbox.h, each in a file of its own; only sandbox.cc calls them, in
// order: file rules need system calls the filter then forbids.
#pragma once

#include <string>
#include <vector>

namespace tf::runtime::sandbox {

// Landlock rules (runtime/sandbox_files.cc): reads of the system's libraries, this process's own
// /proc entry and `readable_files`; nothing else, and no writes anywhere. "" when in force;
// otherwise why not, with *unsupported set when the kernel has no Landlock at all.
std::string restrict_file_access(const std::vector<std::string>& readable_files, bool* unsupported);

// The seccomp allowlist (runtime/sandbox_syscalls.cc), on every thread, with its trap handler.
std::string install_syscall_filter();

}  // namespace tf::runtime::sandbox
