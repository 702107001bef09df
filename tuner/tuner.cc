#include "tuner/tuner.h"

#include <algorithm>

#include "compiler/error.h"

namespace tf::tuner {

Tuner::Tuner(const space::ConfigSpace& space, int64_t budget, uint64_t seed)
    : space_(space), budget_(budget), searchable_(space.searchable_size()), rng_(seed) {
  if (budget <= 0) throw CompileError("tuner: trials must be positive, got " + std::to_string(budget));
}

int64_t Tuner::random_unseen() {
  int64_t size = space_.size();
  // Rejection sampling is fast while most of the space is unseen; fall back to a scan near the end.
  for (int attempt = 0; attempt < 64; ++attempt) {
    int64_t i = static_cast<int64_t>(rng_() % static_cast<uint64_t>(size));
    if (!seen(i)) return i;
  }
  int64_t start = static_cast<int64_t>(rng_() % static_cast<uint64_t>(size));
  for (int64_t k = 0; k < size; ++k) {
    int64_t i = (start + k) % size;
    if (!seen(i)) return i;
  }
  return -1;
}

std::vector<space::Config> Tuner::next_batch(int max_batch) {
  std::vector<space::Config> out;
  int64_t room =
      std::min<int64_t>({static_cast<int64_t>(max_batch), batch_limit(), std::min(budget_, searchable_) - proposed()});
  if (room <= 0) return out;
  for (int64_t idx : propose(static_cast<int>(room))) {
    if (static_cast<int64_t>(out.size()) >= room) break;
    if (idx < 0 || idx >= space_.size() || !space_.searchable(idx) || !seen_.insert(idx).second) continue;
    out.push_back(space_.at(idx));
  }
  // A strategy that came up short (converged, or proposing seen points) is topped up at random.
  while (static_cast<int64_t>(out.size()) < room) {
    int64_t idx = random_unseen();
    if (idx < 0) break;
    seen_.insert(idx);
    out.push_back(space_.at(idx));
  }
  return out;
}

void Tuner::update(const std::vector<TrialResult>& results) { observe(results); }

}  // namespace tf::tuner
