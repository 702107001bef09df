#include "compiler/space/knob_choices.h"

namespace tf::space {

std::vector<Json> capped_choices(const std::vector<int64_t>& options, int64_t extent) {
  std::vector<Json> out;
  for (int64_t o : options) {
    out.emplace_back(o);
    if (o >= extent) break;
  }
  return out;
}

size_t index_of_choice(const std::vector<Json>& choices, int64_t wanted) {
  size_t best = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].get<int64_t>() <= wanted) best = i;
  }
  return best;
}

}  // namespace tf::space
