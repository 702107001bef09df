// The tuners by name, as `tune --tuner NAME` and jobs choose them: random, grid, ga, xgb.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tuner/tuner.h"

namespace tf::tuner {

// Throws tf::CompileError naming the tuner when the name is unknown (random, grid, ga, xgb). `features`
// is what the xgb tuner's model sees; without it, the knob values alone.
std::unique_ptr<Tuner> make_tuner(const std::string& name, const space::ConfigSpace& space, int64_t budget,
                                  uint64_t seed, FeatureFn features = {});

}  // namespace tf::tuner
