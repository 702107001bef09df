#include "tuner/xgb_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tf::tuner {
namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost ") + what + ": " + XGBGetLastError());
}

// Owns a DMatrix for the duration of a call.
struct Matrix {
  DMatrixHandle h = nullptr;
  Matrix(const std::vector<float>& rows, int num_features) {
    const bst_ulong n = num_features > 0 ? rows.size() / static_cast<size_t>(num_features) : 0;
    check(XGDMatrixCreateFromMat(rows.data(), n, static_cast<bst_ulong>(num_features), -1e30f, &h), "DMatrix");
  }
  ~Matrix() {
    if (h) XGDMatrixFree(h);
  }
};

bool is_ranking(const XgbParams& p) { return p.objective.rfind("rank:", 0) == 0; }

BoosterHandle make_booster(DMatrixHandle train, uint64_t seed, const XgbParams& p) {
  BoosterHandle b = nullptr;
  check(XGBoosterCreate(train ? &train : nullptr, train ? 1 : 0, &b), "booster");
  const std::pair<const char*, std::string> params[] = {{"objective", p.objective},
                                                        {"max_depth", std::to_string(p.max_depth)},
                                                        {"eta", std::to_string(p.eta)},
                                                        {"gamma", "0.0001"},
                                                        {"min_child_weight", "1"},
                                                        {"subsample", "1"},
                                                        {"tree_method", "hist"},
                                                        {"nthread", "1"},
                                                        {"verbosity", "0"},
                                                        {"seed", std::to_string(seed % 1000000)}};
  for (const auto& [k, v] : params) check(XGBoosterSetParam(b, k, v.c_str()), k);
  return b;
}

}  // namespace

std::string describe(const XgbParams& params) {
  if (is_ranking(params)) return params.objective;
  char power[32];
  std::snprintf(power, sizeof power, "%g", params.label_power);
  return params.objective + " on speed^" + power;
}

XgbModel::XgbModel(XgbParams params) : params_(std::move(params)) {}

XgbModel::~XgbModel() {
  if (booster_) XGBoosterFree(booster_);
}

void XgbModel::train(const std::vector<float>& rows, int num_features, const std::vector<float>& labels, uint64_t seed,
                     const std::vector<unsigned>& group_sizes, const std::vector<float>& group_weights) {
  Matrix m(rows, num_features);
  std::vector<float> target = labels;
  if (!is_ranking(params_) && params_.label_power != 1)
    for (float& t : target) t = static_cast<float>(std::pow(std::max(0.0f, t), params_.label_power));
  check(XGDMatrixSetFloatInfo(m.h, "label", target.data(), target.size()), "labels");
  const std::vector<unsigned> groups =
      group_sizes.empty() ? std::vector<unsigned>{static_cast<unsigned>(labels.size())} : group_sizes;
  // Groups are what a ranking objective compares within; a regression's labels are relative to
  // their group's best already, and its weights are per row.
  if (is_ranking(params_)) check(XGDMatrixSetUIntInfo(m.h, "group", groups.data(), groups.size()), "group");
  if (!group_weights.empty() && is_ranking(params_)) {
    // For ranking objectives XGBoost takes one weight per group, for the others one per row.
    check(XGDMatrixSetFloatInfo(m.h, "weight", group_weights.data(), group_weights.size()), "weights");
  } else if (!group_weights.empty()) {
    std::vector<float> per_row;
    for (size_t g = 0; g < groups.size() && g < group_weights.size(); ++g)
      per_row.insert(per_row.end(), groups[g], group_weights[g]);
    per_row.resize(labels.size(), 1.0f);
    check(XGDMatrixSetFloatInfo(m.h, "weight", per_row.data(), per_row.size()), "weights");
  }
  BoosterHandle b = make_booster(m.h, seed, params_);
  for (int i = 0; i < params_.rounds; ++i) {
    if (XGBoosterUpdateOneIter(b, i, m.h) != 0) {
      std::string err = XGBGetLastError();
      XGBoosterFree(b);
      throw std::runtime_error("xgboost training: " + err);
    }
  }
  if (booster_) XGBoosterFree(booster_);
  booster_ = b;
}

std::vector<float> XgbModel::predict(const std::vector<float>& rows, int num_features) const {
  if (!booster_) return std::vector<float>(rows.size() / static_cast<size_t>(std::max(1, num_features)), 0.0f);
  Matrix m(rows, num_features);
  bst_ulong n = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster_, m.h, 0, 0, 0, &n, &out), "predict");
  return std::vector<float>(out, out + n);
}

std::vector<uint8_t> XgbModel::save() const {
  if (!booster_) return {};
  bst_ulong n = 0;
  const char* data = nullptr;
  check(XGBoosterSaveModelToBuffer(booster_, R"({"format": "json"})", &n, &data), "save");
  return std::vector<uint8_t>(data, data + n);
}

int XgbModel::num_features() const {
  if (!booster_) return 0;
  bst_ulong n = 0;
  check(XGBoosterGetNumFeature(booster_, &n), "number of features");
  return static_cast<int>(n);
}

void XgbModel::load(const std::vector<uint8_t>& bytes, int expected_features) {
  BoosterHandle b = make_booster(nullptr, 0, params_);
  if (XGBoosterLoadModelFromBuffer(b, bytes.data(), bytes.size()) != 0) {
    std::string err = XGBGetLastError();
    XGBoosterFree(b);
    throw std::runtime_error("xgboost load: " + err);
  }
  bst_ulong n = 0;
  if (expected_features >= 0 && (XGBoosterGetNumFeature(b, &n) != 0 || static_cast<int>(n) != expected_features)) {
    XGBoosterFree(b);
    throw std::runtime_error("xgboost load: the model reads " + std::to_string(n) + " features, this workload has " +
                             std::to_string(expected_features));
  }
  if (booster_) XGBoosterFree(booster_);
  booster_ = b;
}

}  // namespace tf::tuner
