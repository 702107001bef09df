// Named baselines for CI regression runs: one row per (name, workload, target and device key).
#include "db/connection.h"
#include "db/database.h"

namespace tf::db {
namespace {

constexpr const char* kBaselineColumns =
    "b.name, w.op, w.shape, w.dtype, t.target, t.device_key, b.config, b.compiler_version, b.costs, b.entry_symbol, "
    "b.device, b.measure, b.created_ms";

Baseline read_baseline(Statement& q, bool with_library) {
  Baseline b;
  b.name = q.column_text(0);
  b.op = q.column_text(1);
  b.shape = parse_json(q.column_text(2)).get<std::vector<int64_t>>();
  b.dtype = q.column_text(3);
  b.target = q.column_text(4);
  b.device_key = q.column_text(5);
  b.config = parse_json(q.column_text(6));
  b.compiler_version = q.column_text(7);
  b.costs = parse_json(q.column_text(8)).get<std::vector<double>>();
  b.entry_symbol = q.column_text(9);
  b.device = q.column_text(10);
  b.measure = parse_json(q.column_text(11));
  b.created_ms = q.column_int(12);
  if (with_library) b.library = q.column_blob(13);
  return b;
}

}  // namespace

std::string Baseline::workload_key() const {
  Measurement m;
  m.op = op;
  m.shape = shape;
  m.dtype = dtype;
  return m.workload_key();
}

void Database::save_baseline(const std::string& name, const std::vector<Baseline>& entries, bool replace) {
  if (name.empty()) throw DbError("a baseline needs a name");
  Transaction t(conn_);
  Statement exists(conn_, "SELECT COUNT(*) FROM baselines WHERE name = ?");
  exists.bind(1, name);
  if (exists.step() && exists.column_int(0) > 0) {
    if (!replace)
      throw DbError("baseline '" + name + "' exists (" + std::to_string(exists.column_int(0)) +
                    " workloads); replace it or choose another name");
    Statement del(conn_, "DELETE FROM baselines WHERE name = ?");
    del.bind(1, name).run();
  }
  for (const Baseline& b : entries) {
    Measurement key;
    key.op = b.op;
    key.shape = b.shape;
    key.dtype = b.dtype;
    const int64_t w = workload_id(key), tg = target_id(b.target, b.device_key);
    Statement ins(
        conn_,
        "INSERT INTO baselines (name, workload_id, target_id, config, compiler_version, costs, library, entry_symbol, "
        "device, measure, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    ins.bind(1, name)
        .bind(2, w)
        .bind(3, tg)
        .bind(4, b.config.dump())
        .bind(5, b.compiler_version)
        .bind(6, Json(b.costs).dump());
    ins.bind_blob(7, b.library).bind(8, b.entry_symbol).bind(9, b.device).bind(10, b.measure.dump());
    ins.bind(11, b.created_ms > 0 ? b.created_ms : now_ms());
    ins.run();
  }
  t.commit();
}

std::vector<Baseline> Database::baseline(const std::string& name) {
  Statement q(conn_, std::string("SELECT ") + kBaselineColumns +
                         ", b.library FROM baselines b JOIN workloads w ON w.id = b.workload_id "
                         "JOIN targets t ON t.id = b.target_id WHERE b.name = ? ORDER BY b.id");
  q.bind(1, name);
  std::vector<Baseline> out;
  while (q.step()) out.push_back(read_baseline(q, true));
  return out;
}

std::vector<Baseline> Database::baselines() {
  Statement q(conn_, std::string("SELECT ") + kBaselineColumns +
                         " FROM baselines b JOIN workloads w ON w.id = b.workload_id "
                         "JOIN targets t ON t.id = b.target_id ORDER BY b.name, b.id");
  std::vector<Baseline> out;
  while (q.step()) out.push_back(read_baseline(q, false));
  return out;
}

bool Database::delete_baseline(const std::string& name) {
  Transaction t(conn_);
  Statement del(conn_, "DELETE FROM baselines WHERE name = ?");
  del.bind(1, name).run();
  const bool any = del.changes() > 0;
  t.commit();
  return any;
}

}  // namespace tf::db
