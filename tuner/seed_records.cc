#include "tuner/seed_records.h"

#include <map>
#include <sstream>

#include "support/json.h"

namespace tf::tuner {

std::vector<db::Measurement> seed_records(const std::string& op, const codegen::Target& target) {
  std::vector<db::Measurement> out;
  std::map<std::string, bool> same_kind;  // by target string: parsing one asks LLVM
  for (const SeedFile& file : shipped_seed_files()) {
    std::istringstream in(file.text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        db::Measurement m = db::Measurement::from_json(parse_json(line, kRecordLineJsonLimits));
        if (m.op != op || m.outcome != db::Outcome::Ok || m.mean_s() <= 0) continue;
        auto kind = same_kind.find(m.target);
        if (kind == same_kind.end()) {
          bool same = false;
          try {
            same = codegen::same_kind(codegen::parse_target(m.target), target);
          } catch (const std::exception&) {
            // A CPU this LLVM does not know is not this target's kind.
          }
          kind = same_kind.emplace(m.target, same).first;
        }
        if (kind->second) out.push_back(std::move(m));
      } catch (const std::exception&) {
        // A record an older or newer tunefarm wrote in another form does not transfer.
      }
    }
  }
  return out;
}

}  // namespace tf::tuner
