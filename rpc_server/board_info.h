// What a board knows about itself without LLVM: host name, its CPU (runtime/host_cpu.h: triple,
// model, flags, whether it runs emulated), the CPUs it may use, memory. The tracker turns the
// triple and flags into a target, as local commands do for their host.
#pragma once

#include <string>
#include <vector>

#include "proto/tunefarm.pb.h"

namespace tf::board {

namespace v1 = ::tunefarm::v1;

// `cpus`: the CPUs the board's kernels are pinned to (empty: every CPU the process may use).
v1::BoardInfo detect_board(const std::string& key, const std::vector<int>& cpus, int threads);

// "0,2-3" -> {0, 2, 3}; throws std::invalid_argument naming the bad part.
std::vector<int> parse_cpu_list(const std::string& s);

}  // namespace tf::board
