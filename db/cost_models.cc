// Trained cost models, the newest per op, target and feature version.
#include "db/database.h"

namespace tf::db {

void Database::save_model(const std::string& op, const std::string& target, const std::string& device_key,
                          const CostModel& m) {
  Transaction t(conn_);
  int64_t tg = target_id(target, device_key);
  Statement s(conn_,
              "INSERT INTO cost_models (op, target_id, feature_version, training_size, model, created_ms) "
              "VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, op).bind(2, tg).bind(3, m.feature_version).bind(4, m.training_size).bind_blob(5, m.bytes).bind(6, now_ms());
  s.run();
  t.commit();
}

std::optional<CostModel> Database::load_model(const std::string& op, const std::string& target,
                                              const std::string& device_key, int64_t feature_version) {
  std::vector<std::string> args = {op};
  const std::string filed_as = target_aliases_.condition("t.target", target, &args);
  args.push_back(device_key);
  Statement q(
      conn_,
      "SELECT c.feature_version, c.training_size, c.model FROM cost_models c JOIN targets t ON t.id = c.target_id "
      "WHERE c.op = ? AND " +
          filed_as + " AND t.device_key = ? AND c.feature_version = ? ORDER BY c.created_ms DESC, c.id DESC LIMIT 1");
  int i = 1;
  for (const std::string& a : args) q.bind(i++, a);
  q.bind(i, feature_version);
  if (!q.step()) return std::nullopt;
  return CostModel{q.column_int(0), q.column_int(1), q.column_blob(2)};
}

}  // namespace tf::db
