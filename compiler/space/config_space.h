// The config space an operator template declares: named knobs, each with a list of choices. A
// config picks one choice per knob; every config of the space compiles and computes the right
// answer, so a tuner may try any of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/json.h"

namespace tf::space {

struct Knob {
  std::string name;
  std::vector<Json> choices;  // integers, booleans or strings
  size_t default_choice = 0;
  std::string help;
  // The choice a config written before the knob existed meant (from_json of a record without it);
  // the default unless the knob's default is not what the kernel did then.
  size_t absent_choice = 0;
};

class ConfigSpace;

class Config {
 public:
  int64_t index() const { return index_; }
  const std::vector<size_t>& choices() const { return choices_; }
  const Json& get(const std::string& knob) const;
  // The knob's value as its declared kind; asking for another kind is a CompileError naming the knob.
  int64_t get_int(const std::string& knob) const;
  bool get_bool(const std::string& knob) const;
  const std::string& get_string(const std::string& knob) const;
  // {"knob": value, ...}: the form `tunefarm run --config` accepts.
  Json to_json() const;
  std::string str() const { return to_json().dump(); }

 private:
  friend class ConfigSpace;
  const ConfigSpace* space_ = nullptr;
  std::vector<size_t> choices_;
  int64_t index_ = 0;
};

class ConfigSpace {
 public:
  // Throws tf::CompileError on an empty choice list or a repeated name.
  void add_knob(const std::string& name, std::vector<Json> choices, size_t default_choice, const std::string& help);
  // A knob added after records of the op were written: a config without it means `absent_choice`.
  void add_knob(const std::string& name, std::vector<Json> choices, size_t default_choice, size_t absent_choice,
                const std::string& help);
  const std::vector<Knob>& knobs() const { return knobs_; }
  const Knob& knob(const std::string& name) const;

  // Every config, searchable or not: indices run over [0, size()).
  int64_t size() const;
  // Leaves out of the search the configs whose product of these integer knobs' values, times
  // `scale`, exceeds `max` (a register tile far larger than the register file: it compiles, for
  // seconds, and spills on every step). They still build and run when asked for by name or index;
  // tuners never propose them. The knobs must be declared first; a limit that leaves out the
  // default config is a CompileError (the default is what an untuned build runs).
  void limit_product(const std::vector<std::string>& knobs, int64_t scale, int64_t max, const std::string& why);
  // Leaves out of the search the configs whose `knob` takes a value other than `searched`: they too
  // still build when named (an old record's config stays valid), but tuners never propose them.
  // Every value must be one of the knob's choices, the default among them.
  void search_only(const std::string& knob, const std::vector<Json>& searched, const std::string& why);
  bool searchable(int64_t index) const;
  // The configs a tuner may propose.
  int64_t searchable_size() const;
  // Mixed radix, first knob varying slowest. Throws CompileError when index is outside [0, size).
  Config at(int64_t index) const;
  Config from_choices(const std::vector<size_t>& choices) const;
  Config default_config() const;
  // From {"knob": value}: knobs left out take their absent choice (the default, but for a knob added
  // after records were written: what those records' kernels did); an unknown knob or a value that is not
  // one of the knob's choices is a CompileError naming the knob and listing what is allowed.
  Config from_json(const Json& v) const;
  // The config of this space closest to `v`, a config of another space of the same template (another
  // shape, whose knobs offer other choices): each knob takes the choice equal to v's value or, for
  // integers, the nearest on a log scale (a tile of 48 maps to 32 or 64, not to 4); knobs v lacks or
  // whose value fits no choice take their default. Never throws on a JSON object.
  Config nearest(const Json& v) const;
  Json to_json() const;  // the knobs and their choices, "size", and the limits with "searchable_size"

 private:
  // A product limit (scale x the knobs' values <= max) or, where `searched` is not empty, a choice
  // limit on its one knob (searched[choice]).
  struct Limit {
    std::vector<size_t> knobs;
    int64_t scale = 1, max = 0;
    std::string why;
    std::vector<bool> searched;
  };
  size_t knob_index(const std::string& name, const char* what) const;
  bool within(const Limit& l, const std::vector<size_t>& choices) const;
  std::vector<Knob> knobs_;
  std::vector<Limit> limits_;
};

}  // namespace tf::space
