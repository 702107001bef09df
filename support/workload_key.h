// The stable text of a workload, a key in the db, the tracker and reports: "dense[512,512,512]",
// with its dtype "dense[512,512,512]:float32".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tf {

std::string workload_key(const std::string& op, const std::vector<int64_t>& shape, const std::string& dtype = "");

}  // namespace tf
