#include "tuner/make_tuner.h"

#include "compiler/error.h"
#include "tuner/baseline_tuners.h"
#include "tuner/features.h"
#include "tuner/xgb_tuner.h"

namespace tf::tuner {

std::unique_ptr<Tuner> make_tuner(const std::string& name, const space::ConfigSpace& space, int64_t budget,
                                  uint64_t seed, FeatureFn features) {
  if (name == "xgb") {
    if (!features) features = [](const space::Config& c) { return knob_features(c); };
    return std::make_unique<XgbTuner>(space, budget, seed, std::move(features));
  }
  if (name == "random") return std::make_unique<RandomTuner>(space, budget, seed);
  if (name == "grid") return std::make_unique<GridTuner>(space, budget, seed);
  if (name == "ga") return std::make_unique<GeneticTuner>(space, budget, seed);
  throw CompileError("unknown tuner '" + name + "' (tuners: random, grid, ga, xgb)");
}

}  // namespace tf::tuner
