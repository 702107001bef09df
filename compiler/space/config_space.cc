#include "compiler/space/config_space.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/error.h"

namespace tf::space {

const Json& Config::get(const std::string& knob) const {
  const auto& knobs = space_->knobs();
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (knobs[i].name == knob) return knobs[i].choices[choices_[i]];
  }
  throw CompileError("config: the space has no knob '" + knob + "'");
}

namespace {
const Json& of_kind(const Json& v, bool ok, const std::string& knob, const char* want) {
  if (!ok) throw CompileError("config: knob '" + knob + "' is " + json_kind(v) + ", not " + want);
  return v;
}
}  // namespace

int64_t Config::get_int(const std::string& knob) const {
  const Json& v = get(knob);
  return of_kind(v, v.is_number_integer(), knob, "an integer").get<int64_t>();
}

bool Config::get_bool(const std::string& knob) const {
  const Json& v = get(knob);
  return of_kind(v, v.is_boolean(), knob, "a boolean").get<bool>();
}

const std::string& Config::get_string(const std::string& knob) const {
  const Json& v = get(knob);
  return of_kind(v, v.is_string(), knob, "a string").get_ref<const std::string&>();
}

Json Config::to_json() const {
  Json v = Json::object();
  const auto& knobs = space_->knobs();
  for (size_t i = 0; i < knobs.size(); ++i) v[knobs[i].name] = knobs[i].choices[choices_[i]];
  return v;
}

void ConfigSpace::add_knob(const std::string& name, std::vector<Json> choices, size_t default_choice,
                           const std::string& help) {
  add_knob(name, std::move(choices), default_choice, default_choice, help);
}

void ConfigSpace::add_knob(const std::string& name, std::vector<Json> choices, size_t default_choice,
                           size_t absent_choice, const std::string& help) {
  if (choices.empty()) throw CompileError("config space: knob '" + name + "' has no choices");
  for (const auto& k : knobs_) {
    if (k.name == name) throw CompileError("config space: knob '" + name + "' declared twice");
  }
  if (default_choice >= choices.size()) default_choice = 0;
  if (absent_choice >= choices.size()) absent_choice = default_choice;
  knobs_.push_back({name, std::move(choices), default_choice, help, absent_choice});
}

const Knob& ConfigSpace::knob(const std::string& name) const {
  for (const auto& k : knobs_) {
    if (k.name == name) return k;
  }
  throw CompileError("config space: no knob '" + name + "'");
}

int64_t ConfigSpace::size() const {
  int64_t n = 1;
  for (const auto& k : knobs_) n *= static_cast<int64_t>(k.choices.size());
  return n;
}

size_t ConfigSpace::knob_index(const std::string& name, const char* what) const {
  size_t i = 0;
  while (i < knobs_.size() && knobs_[i].name != name) ++i;
  if (i == knobs_.size())
    throw CompileError(std::string("config space: ") + what + " names knob '" + name + "', which is not declared");
  return i;
}

void ConfigSpace::limit_product(const std::vector<std::string>& knobs, int64_t scale, int64_t max,
                                const std::string& why) {
  Limit l{{}, scale, max, why, {}};
  for (const std::string& name : knobs) {
    const size_t i = knob_index(name, "a limit");
    for (const Json& c : knobs_[i].choices) {
      if (!c.is_number_integer())
        throw CompileError("config space: a limit names knob '" + name + "', whose choices are not all integers");
    }
    l.knobs.push_back(i);
  }
  if (!within(l, default_config().choices())) {
    throw CompileError("config space: the limit '" + why + "' leaves out the default config " + default_config().str());
  }
  limits_.push_back(std::move(l));
}

void ConfigSpace::search_only(const std::string& knob, const std::vector<Json>& searched, const std::string& why) {
  const size_t k = knob_index(knob, "a search limit");
  Limit l{{k}, 1, 0, why, std::vector<bool>(knobs_[k].choices.size(), false)};
  for (const Json& value : searched) {
    const auto& choices = knobs_[k].choices;
    const auto it = std::find(choices.begin(), choices.end(), value);
    if (it == choices.end())
      throw CompileError("config space: knob '" + knob + "' has no choice " + value.dump() + " to search");
    l.searched[static_cast<size_t>(it - choices.begin())] = true;
  }
  if (!within(l, default_config().choices())) {
    throw CompileError("config space: the limit '" + why + "' leaves out the default config " + default_config().str());
  }
  limits_.push_back(std::move(l));
}

bool ConfigSpace::within(const Limit& l, const std::vector<size_t>& choices) const {
  if (!l.searched.empty()) return l.searched[choices[l.knobs.front()]];
  int64_t product = l.scale;
  for (size_t k : l.knobs) {
    product *= knobs_[k].choices[choices[k]].get<int64_t>();
    if (product > l.max) return false;
  }
  return true;
}

bool ConfigSpace::searchable(int64_t index) const {
  if (limits_.empty()) return index >= 0 && index < size();
  const Config c = at(index);
  const std::vector<size_t>& choices = c.choices();
  for (const auto& l : limits_) {
    if (!within(l, choices)) return false;
  }
  return true;
}

int64_t ConfigSpace::searchable_size() const {
  if (limits_.empty()) return size();
  // Count over the limited knobs' choices alone; every other knob multiplies the count.
  std::vector<size_t> limited;
  for (const auto& l : limits_) limited.insert(limited.end(), l.knobs.begin(), l.knobs.end());
  std::sort(limited.begin(), limited.end());
  limited.erase(std::unique(limited.begin(), limited.end()), limited.end());
  int64_t others = 1;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (!std::binary_search(limited.begin(), limited.end(), k))
      others *= static_cast<int64_t>(knobs_[k].choices.size());
  }
  std::vector<size_t> choices(knobs_.size(), 0);
  int64_t count = 0;
  for (;;) {
    bool ok = true;
    for (const auto& l : limits_) ok = ok && within(l, choices);
    count += ok ? 1 : 0;
    size_t d = 0;
    while (d < limited.size() && ++choices[limited[d]] == knobs_[limited[d]].choices.size()) choices[limited[d++]] = 0;
    if (d == limited.size()) break;
  }
  return count * others;
}

Config ConfigSpace::from_choices(const std::vector<size_t>& choices) const {
  if (choices.size() != knobs_.size()) throw CompileError("config: wrong number of knob choices");
  Config c;
  c.space_ = this;
  c.choices_ = choices;
  int64_t index = 0;
  for (size_t i = 0; i < knobs_.size(); ++i) {
    if (choices[i] >= knobs_[i].choices.size()) {
      throw CompileError("config: choice " + std::to_string(choices[i]) + " out of range for knob '" + knobs_[i].name +
                         "'");
    }
    index = index * static_cast<int64_t>(knobs_[i].choices.size()) + static_cast<int64_t>(choices[i]);
  }
  c.index_ = index;
  return c;
}

Config ConfigSpace::at(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw CompileError("config index " + std::to_string(index) + " is outside the space [0, " + std::to_string(size()) +
                       ")");
  }
  std::vector<size_t> choices(knobs_.size());
  for (size_t i = knobs_.size(); i-- > 0;) {
    int64_t n = static_cast<int64_t>(knobs_[i].choices.size());
    choices[i] = static_cast<size_t>(index % n);
    index /= n;
  }
  return from_choices(choices);
}

Config ConfigSpace::default_config() const {
  std::vector<size_t> choices;
  for (const auto& k : knobs_) choices.push_back(k.default_choice);
  return from_choices(choices);
}

Config ConfigSpace::nearest(const Json& v) const {
  std::vector<size_t> choices;
  for (const auto& k : knobs_) {
    size_t pick = k.default_choice;
    const auto it = v.is_object() ? v.find(k.name) : v.end();
    if (v.is_object() && it != v.end()) {
      double best_distance = std::numeric_limits<double>::infinity();
      for (size_t c = 0; c < k.choices.size(); ++c) {
        const Json& choice = k.choices[c];
        double distance = std::numeric_limits<double>::infinity();
        if (choice == *it) {
          distance = -1;
        } else if (choice.is_number_integer() && it->is_number_integer() && choice.get<int64_t>() > 0 &&
                   it->get<int64_t>() > 0) {
          distance =
              std::abs(std::log(static_cast<double>(choice.get<int64_t>()) / static_cast<double>(it->get<int64_t>())));
        }
        if (distance < best_distance) {
          best_distance = distance;
          pick = c;
        }
      }
    }
    choices.push_back(pick);
  }
  return from_choices(choices);
}

Config ConfigSpace::from_json(const Json& v) const {
  if (!v.is_object())
    throw CompileError("config: expected a JSON object of knob values, got " + std::string(json_kind(v)));
  std::vector<size_t> choices;
  for (const auto& k : knobs_) choices.push_back(k.absent_choice);
  for (const auto& [name, value] : v.items()) {
    size_t ki = knobs_.size();
    for (size_t i = 0; i < knobs_.size(); ++i) {
      if (knobs_[i].name == name) ki = i;
    }
    if (ki == knobs_.size()) {
      std::string names;
      for (const auto& k : knobs_) names += (names.empty() ? "" : ", ") + k.name;
      throw CompileError("config: unknown knob '" + name + "' (knobs: " + names + ")");
    }
    const Knob& k = knobs_[ki];
    size_t ci = k.choices.size();
    for (size_t c = 0; c < k.choices.size(); ++c) {
      if (k.choices[c] == value) ci = c;
    }
    if (ci == k.choices.size()) {
      throw CompileError("config: knob '" + name + "' cannot be " + value.dump() +
                         " (choices: " + Json(k.choices).dump() + ")");
    }
    choices[ki] = ci;
  }
  return from_choices(choices);
}

Json ConfigSpace::to_json() const {
  Json knobs = Json::array();
  for (const auto& k : knobs_) {
    knobs.push_back(
        {{"name", k.name}, {"choices", k.choices}, {"default", k.choices[k.default_choice]}, {"help", k.help}});
  }
  Json out = {{"knobs", std::move(knobs)}, {"size", size()}};
  if (!limits_.empty()) {
    Json limits = Json::array();
    for (const auto& l : limits_) {
      if (!l.searched.empty()) {
        const Knob& knob = knobs_[l.knobs.front()];
        Json searched = Json::array();
        for (size_t c = 0; c < knob.choices.size(); ++c) {
          if (l.searched[c]) searched.push_back(knob.choices[c]);
        }
        limits.push_back({{"knob", knob.name}, {"searched", searched}, {"why", l.why}});
        continue;
      }
      Json names = Json::array();
      for (size_t k : l.knobs) names.push_back(knobs_[k].name);
      limits.push_back({{"product_of", names}, {"scale", l.scale}, {"max", l.max}, {"why", l.why}});
    }
    out["limits"] = std::move(limits);
    out["searchable_size"] = searchable_size();
  }
  return out;
}

}  // namespace tf::space
