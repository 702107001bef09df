// The other strings a target was filed under (Database::alias_target), as the reads look them up:
// a stored target reads as its alias's target. Resolved here, in the query's arguments, so the
// SQL stays the same on every backend and a read-only database needs nothing stored. Internal to
// db/.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tf::db {

class TargetAliases {
 public:
  void add(const std::string& alias, const std::string& target);
  // The target a stored target string reads as.
  const std::string& target_of(const std::string& stored) const;
  // "<column> IN (?, ...)": true of every stored string that reads as `target`; the strings are
  // appended to `args` in the order of the placeholders.
  std::string condition(const std::string& column, const std::string& target, std::vector<std::string>* args) const;

 private:
  std::map<std::string, std::string> to_target_;  // alias -> target
};

}  // namespace tf::db
