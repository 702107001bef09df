// Measurement records: writing them once each (their hash is their identity) and reading them
// back, best first, as a history, or as the sample a new job of an op learns from.
#include "db/database.h"

#include <algorithm>
#include <functional>

#include "db/measurement_rows.h"
#include "db/record_hash.h"
#include "runtime/timing_check.h"

namespace tf::db {
namespace {

// " AND <table>.timing = ?" with its argument appended to `args`, or nothing for any timing.
std::string timing_condition(const char* table, const Database::Timing& timing, std::vector<std::string>* args) {
  if (!timing) return "";
  args->push_back(runtime::timing_name(*timing));
  return std::string(" AND ") + table + ".timing = ?";
}

// The records of one workload on one target and device key, of one timing (nullopt: any): the
// WHERE clause, its arguments appended to `args`.
std::string of_workload_on(const std::string& op, const std::vector<int64_t>& shape, const std::string& target,
                           const std::string& device_key, const Database::Timing& timing, const TargetAliases& aliases,
                           std::vector<std::string>* args) {
  Measurement key;
  key.op = op;
  key.shape = shape;
  args->push_back(key.workload_key());
  const std::string filed_as = aliases.condition("t.target", target, args);
  args->push_back(device_key);
  return "WHERE w.key = ? AND " + filed_as + " AND t.device_key = ?" + timing_condition("m", timing, args);
}

}  // namespace

bool Database::record(const Measurement& in) {
  if (in.outcome == Outcome::Ok) {
    const std::string why = runtime::timing_problem(in.costs);
    if (!why.empty()) {
      throw DbError("refusing to store a successful measurement of " + in.workload_key() + " from " +
                    (in.device.empty() ? std::string("an unnamed device") : in.device) + ": " + why);
    }
  }
  Measurement m = in;
  if (m.created_ms == 0) m.created_ms = now_ms();
  Transaction t(conn_);
  int64_t w = workload_id(m), tg = target_id(m.target, m.device_key);
  const Json costs = m.costs;
  Statement s(conn_,
              "INSERT INTO measurements (job_id, workload_id, target_id, config, config_index, costs, mean_s, "
              "outcome, error, build_ms, device, compiler_version, created_ms, record_hash, timing) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  if (m.job_id)
    s.bind(1, *m.job_id);
  else
    s.bind_null(1);
  s.bind(2, w).bind(3, tg).bind(4, m.config.dump()).bind(5, m.config_index).bind(6, costs.dump());
  if (m.outcome == Outcome::Ok && !m.costs.empty())
    s.bind(7, m.mean_s());
  else
    s.bind_null(7);
  s.bind(8, std::string(outcome_name(m.outcome))).bind(9, m.error).bind(10, m.build_ms).bind(11, m.device);
  s.bind(12, m.compiler_version).bind(13, m.created_ms).bind(14, record_hash(m));
  s.bind(15, std::string(runtime::timing_name(m.timing)));
  s.run();
  const bool inserted = s.changes() > 0;
  t.commit();
  return inserted;
}

bool Database::add_repeats(int64_t job_id, const Measurement& key, const std::vector<double>& extra) {
  if (!extra.empty()) {
    const std::string why = runtime::timing_problem(extra);
    if (!why.empty()) {
      throw DbError("refusing to add timings to job " + std::to_string(job_id) + "'s " + key.workload_key() + " from " +
                    (key.device.empty() ? std::string("an unnamed device") : key.device) + ": " + why);
    }
  }
  Transaction t(conn_);
  const std::string where =
      "WHERE m.job_id = " + std::to_string(job_id) +
      " AND w.key = ? AND t.target = ? AND t.device_key = ? AND m.config_index = " + std::to_string(key.config_index) +
      " AND m.outcome = 'ok'";
  auto rows = query(where, {key.workload_key(), key.target, key.device_key});
  if (rows.empty() || extra.empty()) return false;
  Statement id_of(conn_,
                  "SELECT m.id FROM measurements m JOIN workloads w ON w.id = m.workload_id "
                  "JOIN targets t ON t.id = m.target_id " +
                      where);
  id_of.bind(1, key.workload_key()).bind(2, key.target).bind(3, key.device_key);
  if (!id_of.step()) return false;
  const int64_t id = id_of.column_int(0);
  Measurement m = rows.front();
  m.costs.insert(m.costs.end(), extra.begin(), extra.end());
  const Json costs = m.costs;
  Statement up(conn_, "UPDATE measurements SET costs = ?, mean_s = ?, record_hash = ? WHERE id = ?");
  up.bind(1, costs.dump()).bind(2, m.mean_s()).bind(3, record_hash(m)).bind(4, id);
  up.run();
  t.commit();
  return true;
}

bool Database::each_row(const std::string& where, const std::vector<std::string>& args,
                        const std::function<bool(Measurement&)>& visit) {
  Statement q(conn_, kSelectMeasurements + where);
  for (size_t i = 0; i < args.size(); ++i) q.bind(static_cast<int>(i + 1), args[i]);
  while (q.step()) {
    Measurement m;
    bool usable = read_measurement_row(q, &m);
    if (usable && m.outcome == Outcome::Ok) usable = runtime::timing_problem(m.costs).empty();
    if (!usable) {
      ++invalid_rows_skipped_;
      continue;
    }
    if (!visit(m)) return false;
  }
  return true;
}

std::vector<Measurement> Database::query(const std::string& where, const std::vector<std::string>& args) {
  std::vector<Measurement> out;
  each_row(where, args, [&](Measurement& m) {
    out.push_back(std::move(m));
    return true;
  });
  return out;
}

std::optional<Measurement> Database::best(const std::string& op, const std::vector<int64_t>& shape,
                                          const std::string& target, const std::string& device_key, Timing timing) {
  std::vector<std::string> args;
  const std::string where = of_workload_on(op, shape, target, device_key, timing, target_aliases_, &args);
  // No LIMIT: a row with a stored bad timing is skipped and the next fastest taken. NULL means
  // (NaN written by older builds) sort first in SQLite and are excluded here.
  std::optional<Measurement> best;
  each_row(where + " AND m.outcome = 'ok' AND m.mean_s IS NOT NULL ORDER BY m.mean_s ASC, m.id ASC", args,
           [&](Measurement& m) {
             best = std::move(m);
             return false;
           });
  return best;
}

std::vector<Measurement> Database::best_per_target(const std::string& op, const std::vector<int64_t>& shape,
                                                   Timing timing) {
  Measurement key;
  key.op = op;
  key.shape = shape;
  Statement targets(conn_,
                    "SELECT t.target, t.device_key FROM targets t WHERE EXISTS (SELECT 1 FROM measurements m "
                    "JOIN workloads w ON w.id = m.workload_id WHERE m.target_id = t.id AND w.key = ? "
                    "AND m.outcome = 'ok') ORDER BY t.id");
  targets.bind(1, key.workload_key());
  std::vector<std::pair<std::string, std::string>> where;
  while (targets.step()) {
    std::pair<std::string, std::string> on{target_aliases_.target_of(targets.column_text(0)), targets.column_text(1)};
    if (std::find(where.begin(), where.end(), on) == where.end()) where.push_back(std::move(on));
  }
  std::vector<Measurement> out;
  for (const auto& [target, device_key] : where) {
    if (auto b = best(op, shape, target, device_key, timing)) out.push_back(std::move(*b));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Measurement& a, const Measurement& b) { return a.mean_s() < b.mean_s(); });
  return out;
}

std::vector<Measurement> Database::history(const std::string& op, const std::vector<int64_t>& shape,
                                           const std::string& target, const std::string& device_key, Timing timing) {
  std::vector<std::string> args;
  const std::string where = of_workload_on(op, shape, target, device_key, timing, target_aliases_, &args);
  return query(where + " ORDER BY m.id ASC", args);
}

std::vector<Measurement> Database::op_history(const std::string& op, const std::string& target,
                                              const std::string& device_key, int64_t limit, Timing timing) {
  std::vector<std::string> args = {op};
  const std::string filed_as = target_aliases_.condition("t2.target", target, &args);
  args.push_back(device_key);
  const std::string of_op =
      "FROM measurements m2 JOIN workloads w2 ON w2.id = m2.workload_id JOIN targets t2 ON t2.id = m2.target_id "
      "WHERE w2.op = ? AND " +
      filed_as + " AND t2.device_key = ? AND m2.outcome = 'ok' AND m2.mean_s IS NOT NULL" +
      timing_condition("m2", timing, &args);
  Statement count(conn_, "SELECT COUNT(DISTINCT m2.workload_id) " + of_op);
  for (size_t i = 0; i < args.size(); ++i) count.bind(static_cast<int>(i + 1), args[i]);
  count.step();
  const int64_t shapes = count.column_int(0);
  if (shapes == 0 || limit <= 0) return {};
  // Every shape gets its share: its fastest records (where the search will want to be) and an even
  // spread over the rest (so the model also learns what is slow), never the newest job's alone.
  const int64_t per_shape = std::max<int64_t>(limit / shapes, 16);
  const int64_t fast = per_shape / 2, spread = per_shape - fast;
  const std::string f = std::to_string(fast), s = std::to_string(spread);
  const std::string step = "(CASE WHEN (n - " + f + ") / " + s + " > 1 THEN (n - " + f + ") / " + s + " ELSE 1 END)";
  return query(
      "WHERE m.id IN (SELECT id FROM (SELECT m2.id AS id, "
      "ROW_NUMBER() OVER (PARTITION BY m2.workload_id ORDER BY m2.mean_s, m2.id) AS r, "
      "COUNT(*) OVER (PARTITION BY m2.workload_id) AS n " +
          of_op +
          ") AS ranked "
          "WHERE r <= " +
          f + " OR ((r - " + f + ") % " + step + " = 0 AND (r - " + f + ") / " + step +
          " <= " + std::to_string(spread) + ")) ORDER BY m.id",
      args);
}

std::vector<Measurement> Database::all_measurements() { return query("ORDER BY m.id ASC", {}); }

int64_t Database::count_measurements() {
  Statement q(conn_, "SELECT COUNT(*) FROM measurements");
  q.step();
  return q.column_int(0);
}

std::vector<Measurement> Database::job_measurements(int64_t job_id) {
  return query("WHERE m.job_id = " + std::to_string(job_id) + " ORDER BY m.id ASC", {});
}

}  // namespace tf::db
