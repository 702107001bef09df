// The shape of an op on tensors of rank <= 6 whose extents come per axis: a few leading extents
// (rank first, then e.g. a mode), then groups of six numbered ones, one per axis (d0..d5 the
// input's extents, r0..r5 the reduced axes, s0..s5 the starts...). Positions past the rank hold a
// fixed value (1 for an extent), so the positional key of a rank-2 workload is stable. Named, only
// the axes below the rank are typed: `rank=2,d0=8,d1=5,r1=1`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"

namespace tf::ops {

constexpr int kMaxRank = 6;

struct AxisGroup {
  std::string prefix;     // "d": d0..d5
  int64_t past_rank = 1;  // the value past the rank, and the default below it when optional
  bool required = true;   // below the rank, must it be given?
};

class RankedShape {
 public:
  // `leads` name the extents before the groups, "rank" first; their defaults are in `lead_defaults`
  // (a lead without one is required).
  RankedShape(std::vector<std::string> leads, std::map<std::string, int64_t> lead_defaults,
              std::vector<AxisGroup> groups);

  std::vector<std::string> names() const;
  std::vector<int64_t> from_named(const Operator& op, const std::map<std::string, int64_t>& named) const;
  // The rank in [1, 6], and every group's value past the rank; throws naming the extent.
  void check(const Operator& op, const std::vector<int64_t>& shape) const;
  // The leads, then every group below the rank, optional values at their default left out.
  std::string text(const std::vector<int64_t>& shape) const;

  int64_t rank(const std::vector<int64_t>& shape) const { return shape[0]; }
  // Group g's values below the rank.
  std::vector<int64_t> group(const std::vector<int64_t>& shape, int g) const;
  // Group g's value at axis k.
  int64_t at(const std::vector<int64_t>& shape, int g, int k) const { return shape[leads_.size() + g * kMaxRank + k]; }
  std::string field(int g, int k) const { return groups_[g].prefix + std::to_string(k); }

 private:
  std::vector<std::string> leads_;
  std::map<std::string, int64_t> lead_defaults_;
  std::vector<AxisGroup> groups_;
};

// Throws CompileError "op 'NAME': extent FIELD = VALUE WHY".
[[noreturn]] void fail_extent(const Operator& op, const std::string& field, int64_t value, const std::string& why);

}  // namespace tf::ops
