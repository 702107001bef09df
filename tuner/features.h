// What the cost model sees of a candidate: its knob values, and a summary of its lowered loop nest
// that means the same thing on any shape (so a model trained on one workload helps on another).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"

namespace tf::tuner {

// The feature sets a cost model can read, numbered by version: stored models are keyed by the
// version, so a model never reads rows of another set. Older sets stay so that benchmarks measure
// what each one adds (bench/costmodel_bench) rather than guess it.
enum class FeatureSet : int64_t {
  Knobs = 1,     // the knob values alone
  LoopNest = 2,  // + loop-nest summary and per-level memory footprint and reuse (access_features.h)
  // The lowered program alone (v2 without the knobs, with the work done against the work needed):
  // rows of every shape of an op have one length and one meaning, so any layer's history trains a
  // model for any other.
  Program = 3,
};
constexpr FeatureSet kFeatureSet = FeatureSet::Program;  // what tuners use
constexpr int64_t kFeatureVersion = static_cast<int64_t>(kFeatureSet);
std::string feature_set_name(FeatureSet set);
std::vector<FeatureSet> all_feature_sets();

// log2-scaled knob values: integers as log2(1+v), booleans 0/1, strings their choice index.
std::vector<float> knob_features(const space::Config& cfg);

// Loop-nest summary of the rolled nest (lower::LowerStage::Rolled) (all log2-scaled where a count): work done by vector
// and by scalar stores, vector width, loads per store, guards executed, register-tile (stack) bytes, heap bytes,
// parallel extent, innermost loop extents, nest depth, statement count.
std::vector<float> loop_nest_features(const ir::LoweredFunc& f);

// The features of `set` for a config of a task. Lowers the config (all but Knobs). Never throws: a
// config that fails to lower gets zeros past its knobs.
std::vector<float> candidate_features(const compiler::Task& task, const space::Config& cfg,
                                      FeatureSet set = kFeatureSet);

}  // namespace tf::tuner
