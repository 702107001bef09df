#include "db/target_aliases.h"

namespace tf::db {

void TargetAliases::add(const std::string& alias, const std::string& target) {
  if (!alias.empty() && alias != target) to_target_[alias] = target;
}

const std::string& TargetAliases::target_of(const std::string& stored) const {
  const auto it = to_target_.find(stored);
  return it == to_target_.end() ? stored : it->second;
}

std::string TargetAliases::condition(const std::string& column, const std::string& target,
                                     std::vector<std::string>* args) const {
  std::vector<std::string> filed_as;
  // The target itself, unless it is an alias of another: then its rows read as that one.
  if (to_target_.count(target) == 0) filed_as.push_back(target);
  for (const auto& [alias, to] : to_target_) {
    if (to == target) filed_as.push_back(alias);
  }
  if (filed_as.empty()) return "1 = 0";
  std::string in = column + " IN (";
  for (size_t i = 0; i < filed_as.size(); ++i) in += i ? ", ?" : "?";
  args->insert(args->end(), filed_as.begin(), filed_as.end());
  return in + ")";
}

}  // namespace tf::db
