#include "compiler/ops/ranked_shape.h"

#include "compiler/error.h"

namespace tf::ops {

RankedShape::RankedShape(std::vector<std::string> leads, std::map<std::string, int64_t> lead_defaults,
                         std::vector<AxisGroup> groups)
    : leads_(std::move(leads)), lead_defaults_(std::move(lead_defaults)), groups_(std::move(groups)) {}

std::vector<std::string> RankedShape::names() const {
  std::vector<std::string> n = leads_;
  for (const AxisGroup& g : groups_) append_numbered_names(&n, g.prefix, kMaxRank);
  return n;
}

void fail_extent(const Operator& op, const std::string& field, int64_t value, const std::string& why) {
  throw CompileError("op '" + op.name() + "': extent " + field + " = " + std::to_string(value) + " " + why);
}

std::vector<int64_t> RankedShape::from_named(const Operator& op, const std::map<std::string, int64_t>& named) const {
  std::string listing;
  for (const std::string& l : leads_) listing += l + ", ";
  for (size_t g = 0; g < groups_.size(); ++g)
    listing += (g ? ", " : "") + groups_[g].prefix + "0.." + groups_[g].prefix + "5";
  reject_unknown_extents(op, named, listing);
  std::vector<int64_t> shape;
  for (const std::string& l : leads_) {
    auto it = named.find(l);
    auto def = lead_defaults_.find(l);
    if (it == named.end() && def == lead_defaults_.end()) {
      throw CompileError("op '" + op.name() + "': extent " + l + "= is missing (extents: " + listing + ")");
    }
    shape.push_back(it == named.end() ? def->second : it->second);
  }
  const int64_t rank = shape[0];
  if (rank < 1 || rank > kMaxRank) fail_extent(op, "rank", rank, "is outside [1, 6]");
  for (const AxisGroup& g : groups_) {
    for (int k = 0; k < kMaxRank; ++k) {
      const std::string f = g.prefix + std::to_string(k);
      auto it = named.find(f);
      if (k < rank && g.required && it == named.end()) {
        throw CompileError("op '" + op.name() + "': extent " + f + "= is missing (rank " + std::to_string(rank) + ")");
      }
      shape.push_back(it == named.end() ? g.past_rank : it->second);
    }
  }
  return shape;
}

void RankedShape::check(const Operator& op, const std::vector<int64_t>& shape) const {
  const int64_t rank = shape[0];
  if (rank < 1 || rank > kMaxRank) fail_extent(op, "rank", rank, "is outside [1, 6]");
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (int k = static_cast<int>(rank); k < kMaxRank; ++k) {
      const int64_t v = at(shape, static_cast<int>(g), k);
      if (v != groups_[g].past_rank) {
        fail_extent(
            op, field(static_cast<int>(g), k), v,
            "is past the rank " + std::to_string(rank) + " (must be " + std::to_string(groups_[g].past_rank) + ")");
      }
    }
  }
}

std::string RankedShape::text(const std::vector<int64_t>& shape) const {
  std::string t;
  for (size_t l = 0; l < leads_.size(); ++l) t += (l ? "," : "") + leads_[l] + "=" + std::to_string(shape[l]);
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (int k = 0; k < shape[0]; ++k) {
      const int64_t v = at(shape, static_cast<int>(g), k);
      if (groups_[g].required || v != groups_[g].past_rank)
        t += "," + field(static_cast<int>(g), k) + "=" + std::to_string(v);
    }
  }
  return t;
}

std::vector<int64_t> RankedShape::group(const std::vector<int64_t>& shape, int g) const {
  std::vector<int64_t> v;
  v.reserve(shape[0]);
  for (int k = 0; k < shape[0]; ++k) v.push_back(at(shape, g, k));
  return v;
}

}  // namespace tf::ops
