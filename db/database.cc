#include "db/database.h"

#include <algorithm>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include <sqlite3.h>

#include "db/measurement_rows.h"
#include "db/process_identity.h"
#include "db/record_hash.h"
#include "db/schema.h"
#include "runtime/timing_check.h"

namespace tf::db {

namespace {

std::string shape_json(const std::vector<int64_t>& shape) {
  return Json(shape).dump();
}

// " AND <table>.timing = ?" with its argument appended to `args`, or nothing for any timing.
std::string timing_condition(const char* table, const Database::Timing& timing, std::vector<std::string>* args) {
  if (!timing) return "";
  args->push_back(runtime::timing_name(*timing));
  return std::string(" AND ") + table + ".timing = ?";
}
}  // namespace

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

Connection::Access access_of(Database::Open open) {
  switch (open) {
    case Database::Open::Create: return Connection::Access::Create;
    case Database::Open::Existing: return Connection::Access::Existing;
    case Database::Open::ReadOnly: return Connection::Access::ReadOnly;
  }
  return Connection::Access::Create;
}

// Runs `check` on a file that may not be SQLite at all, saying so instead of quoting SQLite.
template <typename F>
auto examine(const std::string& path, F check) {
  try {
    return check();
  } catch (const DbError& e) {
    if ((e.code() & 0xff) == SQLITE_NOTADB) {
      throw DbError("'" + path + "' is not a tunefarm database: it is not a SQLite file at all", e.code());
    }
    throw;
  }
}

// tf_target(text): the target a stored target string is looked up as (Database::alias_target).
void target_alias_function(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* aliases = static_cast<const std::map<std::string, std::string>*>(sqlite3_user_data(ctx));
  const unsigned char* text = sqlite3_value_text(argv[0]);
  if (!text) {
    sqlite3_result_null(ctx);
    return;
  }
  const std::string stored(reinterpret_cast<const char*>(text));
  auto it = aliases->find(stored);
  const std::string& as = it == aliases->end() ? stored : it->second;
  sqlite3_result_text(ctx, as.c_str(), static_cast<int>(as.size()), SQLITE_TRANSIENT);
}

}  // namespace

Database::Database(const std::string& path, Open open) : conn_(path, access_of(open)) {
  if (sqlite3_create_function_v2(conn_.handle(), "tf_target", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, &target_aliases_,
                                 target_alias_function, nullptr, nullptr, nullptr) != SQLITE_OK) {
    throw DbError("'" + path + "': cannot register the target alias function: " + sqlite3_errmsg(conn_.handle()));
  }
  bool empty = false;
  // Checked before anything is written: another program's SQLite file is refused unchanged.
  const int version = examine(path, [&] { return check_schema(conn_, &empty); });
  if (open == Open::ReadOnly) {
    if (empty) {
      throw DbError("'" + path + "' is an empty file, not a tunefarm database: nothing was ever recorded in it");
    }
    if (version < latest_schema_version()) {
      // Upgrading is a write, through a connection of its own; a file we may not write stays as
      // it is and says so.
      try {
        Database upgrade(path, Open::Existing);
      } catch (const DbError& e) {
        throw DbError("'" + path + "' has schema version " + std::to_string(version) + ", older than this tunefarm's " +
                          std::to_string(latest_schema_version()) + ", and cannot be upgraded to be read: " + e.what(),
                      e.code());
      }
    }
    conn_.exec("PRAGMA foreign_keys = ON");
    opened_at_version_ = version;
    return;
  }
  conn_.exec("PRAGMA journal_mode = WAL");
  conn_.exec("PRAGMA foreign_keys = ON");
  conn_.exec("PRAGMA synchronous = NORMAL");  // WAL + NORMAL: a committed transaction survives a crash of the process
  opened_at_version_ = migrate(conn_);
  jobs();  // marks local jobs whose process died as failed, so the next tune and every list see it
}

int64_t Database::workload_id(const Measurement& m) {
  Statement ins(conn_.handle(), "INSERT OR IGNORE INTO workloads (key, op, shape, dtype) VALUES (?, ?, ?, ?)");
  ins.bind(1, m.workload_key()).bind(2, m.op).bind(3, shape_json(m.shape)).bind(4, m.dtype).run();
  Statement q(conn_.handle(), "SELECT id FROM workloads WHERE key = ?");
  q.bind(1, m.workload_key());
  if (!q.step()) throw DbError("workload " + m.workload_key() + " vanished");
  return q.column_int(0);
}

void Database::alias_target(const std::string& alias, const std::string& target) {
  if (!alias.empty() && alias != target) target_aliases_[alias] = target;
}

int64_t Database::target_id(const std::string& target, const std::string& device_key) {
  Statement ins(conn_.handle(), "INSERT OR IGNORE INTO targets (target, device_key) VALUES (?, ?)");
  ins.bind(1, target).bind(2, device_key).run();
  Statement q(conn_.handle(), "SELECT id FROM targets WHERE target = ? AND device_key = ?");
  q.bind(1, target).bind(2, device_key);
  if (!q.step()) throw DbError("target " + target + " vanished");
  return q.column_int(0);
}

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
  Statement s(conn_.handle(),
              "INSERT OR IGNORE INTO measurements (job_id, workload_id, target_id, config, config_index, costs, mean_s, "
              "outcome, error, build_ms, device, compiler_version, created_ms, record_hash, timing) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (m.job_id) s.bind(1, *m.job_id); else s.bind_null(1);
  s.bind(2, w).bind(3, tg).bind(4, m.config.dump()).bind(5, m.config_index).bind(6, costs.dump());
  if (m.outcome == Outcome::Ok && !m.costs.empty()) s.bind(7, m.mean_s()); else s.bind_null(7);
  s.bind(8, std::string(outcome_name(m.outcome))).bind(9, m.error).bind(10, m.build_ms).bind(11, m.device);
  s.bind(12, m.compiler_version).bind(13, m.created_ms).bind(14, record_hash(m));
  s.bind(15, std::string(runtime::timing_name(m.timing)));
  s.run();
  bool inserted = conn_.changes() > 0;
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
  const std::string where = "WHERE m.job_id = " + std::to_string(job_id) +
                            " AND w.key = ? AND t.target = ? AND t.device_key = ? AND m.config_index = " +
                            std::to_string(key.config_index) + " AND m.outcome = 'ok'";
  auto rows = query(where, {key.workload_key(), key.target, key.device_key});
  if (rows.empty() || extra.empty()) return false;
  Statement id_of(conn_.handle(), "SELECT m.id FROM measurements m JOIN workloads w ON w.id = m.workload_id "
                                  "JOIN targets t ON t.id = m.target_id " + where);
  id_of.bind(1, key.workload_key()).bind(2, key.target).bind(3, key.device_key);
  if (!id_of.step()) return false;
  const int64_t id = id_of.column_int(0);
  Measurement m = rows.front();
  m.costs.insert(m.costs.end(), extra.begin(), extra.end());
  const Json costs = m.costs;
  Statement up(conn_.handle(), "UPDATE measurements SET costs = ?, mean_s = ?, record_hash = ? WHERE id = ?");
  up.bind(1, costs.dump()).bind(2, m.mean_s()).bind(3, record_hash(m)).bind(4, id);
  up.run();
  t.commit();
  return true;
}

bool Database::each_row(const std::string& where, const std::vector<std::string>& args,
                        const std::function<bool(Measurement&)>& visit) {
  Statement q(conn_.handle(), kSelectMeasurements + where);
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
  Measurement key;
  key.op = op;
  key.shape = shape;
  std::vector<std::string> args = {key.workload_key(), target, device_key};
  const std::string of_timing = timing_condition("m", timing, &args);
  // No LIMIT: a row with a stored bad timing is skipped and the next fastest taken. NULL means
  // (NaN written by older builds) sort first in SQLite and are excluded here.
  std::optional<Measurement> best;
  each_row("WHERE w.key = ? AND tf_target(t.target) = ? AND t.device_key = ? AND m.outcome = 'ok' AND m.mean_s IS NOT NULL" +
               of_timing + " ORDER BY m.mean_s ASC, m.id ASC",
           args, [&](Measurement& m) {
             best = std::move(m);
             return false;
           });
  return best;
}

std::vector<Measurement> Database::best_per_target(const std::string& op, const std::vector<int64_t>& shape, Timing timing) {
  Measurement key;
  key.op = op;
  key.shape = shape;
  Statement targets(conn_.handle(),
                    "SELECT DISTINCT tf_target(t.target), t.device_key FROM measurements m JOIN workloads w ON w.id = m.workload_id "
                    "JOIN targets t ON t.id = m.target_id WHERE w.key = ? AND m.outcome = 'ok' ORDER BY t.id");
  targets.bind(1, key.workload_key());
  std::vector<std::pair<std::string, std::string>> where;
  while (targets.step()) where.emplace_back(targets.column_text(0), targets.column_text(1));
  std::vector<Measurement> out;
  for (const auto& [target, device_key] : where) {
    if (auto b = best(op, shape, target, device_key, timing)) out.push_back(std::move(*b));
  }
  std::stable_sort(out.begin(), out.end(), [](const Measurement& a, const Measurement& b) { return a.mean_s() < b.mean_s(); });
  return out;
}

std::vector<Measurement> Database::history(const std::string& op, const std::vector<int64_t>& shape,
                                           const std::string& target, const std::string& device_key, Timing timing) {
  Measurement key;
  key.op = op;
  key.shape = shape;
  std::vector<std::string> args = {key.workload_key(), target, device_key};
  const std::string of_timing = timing_condition("m", timing, &args);
  return query("WHERE w.key = ? AND tf_target(t.target) = ? AND t.device_key = ?" + of_timing + " ORDER BY m.id ASC", args);
}

std::vector<Measurement> Database::op_history(const std::string& op, const std::string& target, const std::string& device_key,
                                              int64_t limit, Timing timing) {
  std::vector<std::string> args = {op, target, device_key};
  const std::string of_op =
      "FROM measurements m2 JOIN workloads w2 ON w2.id = m2.workload_id JOIN targets t2 ON t2.id = m2.target_id "
      "WHERE w2.op = ? AND tf_target(t2.target) = ? AND t2.device_key = ? AND m2.outcome = 'ok' AND m2.mean_s IS NOT NULL" +
      timing_condition("m2", timing, &args);
  Statement count(conn_.handle(), "SELECT COUNT(DISTINCT m2.workload_id) " + of_op);
  for (size_t i = 0; i < args.size(); ++i) count.bind(static_cast<int>(i + 1), args[i]);
  count.step();
  const int64_t shapes = count.column_int(0);
  if (shapes == 0 || limit <= 0) return {};
  // Every shape gets its share: its fastest records (where the search will want to be) and an even
  // spread over the rest (so the model also learns what is slow), never the newest job's alone.
  const int64_t per_shape = std::max<int64_t>(limit / shapes, 16);
  const int64_t fast = per_shape / 2, spread = per_shape - fast;
  const std::string f = std::to_string(fast), step = "MAX(1, (n - " + f + ") / " + std::to_string(spread) + ")";
  return query("WHERE m.id IN (SELECT id FROM (SELECT m2.id AS id, "
               "ROW_NUMBER() OVER (PARTITION BY m2.workload_id ORDER BY m2.mean_s, m2.id) AS r, "
               "COUNT(*) OVER (PARTITION BY m2.workload_id) AS n " + of_op + ") "
               "WHERE r <= " + f + " OR ((r - " + f + ") % " + step + " = 0 AND (r - " + f + ") / " + step + " <= " +
                   std::to_string(spread) + ")) ORDER BY m.id",
               args);
}

std::vector<Measurement> Database::all_measurements() { return query("ORDER BY m.id ASC", {}); }

int64_t Database::create_job(const Json& spec, const std::string& owner, const std::string& state) {
  Transaction t(conn_);
  Statement s(conn_.handle(),
              "INSERT INTO jobs (spec, state, progress, owner, created_ms, updated_ms, process_host, process_pid, process_start) "
              "VALUES (?, ?, '{}', ?, ?, ?, ?, ?, ?)");
  const int64_t now = now_ms();
  s.bind(1, spec.dump()).bind(2, state).bind(3, owner).bind(4, now).bind(5, now);
  if (state == "running") {
    const ProcessIdentity self = ProcessIdentity::self();
    s.bind(6, self.host).bind(7, self.pid).bind(8, self.start);
  } else {
    s.bind(6, std::string()).bind_null(7).bind(8, std::string());
  }
  s.run();
  const int64_t id = conn_.last_insert_id();
  t.commit();
  return id;
}

void Database::update_job(int64_t id, const std::string& state, const Json& progress) {
  Transaction t(conn_);
  Statement s(conn_.handle(), "UPDATE jobs SET state = ?, progress = ?, updated_ms = ? WHERE id = ?");
  s.bind(1, state).bind(2, progress.dump(-1, ' ', false, Json::error_handler_t::replace)).bind(3, now_ms()).bind(4, id);
  s.run();
  t.commit();
}

bool Database::adopt_job(int64_t id) {
  const auto j = job(id);  // marks it failed first when its process died
  if (!j || j->state != "failed") return false;
  Transaction t(conn_);
  const ProcessIdentity self = ProcessIdentity::self();
  Statement s(conn_.handle(),
              "UPDATE jobs SET state = 'running', updated_ms = ?, process_host = ?, process_pid = ?, process_start = ? "
              "WHERE id = ? AND state = 'failed'");
  s.bind(1, now_ms()).bind(2, self.host).bind(3, self.pid).bind(4, self.start).bind(5, id).run();
  const bool adopted = conn_.changes() == 1;
  t.commit();
  return adopted;
}

std::vector<Job> Database::jobs() { return read_jobs(std::nullopt); }

std::optional<Job> Database::job(int64_t id) {
  std::vector<Job> one = read_jobs(id);
  if (one.empty()) return std::nullopt;
  return std::move(one.front());
}

std::vector<Job> Database::read_jobs(std::optional<int64_t> id) {
  Statement q(conn_.handle(),
              std::string("SELECT id, spec, state, progress, owner, created_ms, updated_ms, process_host, process_pid, process_start "
                          "FROM jobs ") +
                  (id ? "WHERE id = ? " : "") + "ORDER BY id ASC");
  if (id) q.bind(1, *id);
  std::vector<Job> out;
  std::vector<size_t> dead;
  while (q.step()) {
    Job j;
    j.id = q.column_int(0);
    try {
      j.spec = parse_json(q.column_text(1));
      j.progress = parse_json(q.column_text(3));
    } catch (const JsonError&) {
      // A hand-edited row: keep the job, without its details.
    }
    j.state = q.column_text(2);
    j.owner = q.column_text(4);
    j.created_ms = q.column_int(5);
    j.updated_ms = q.column_int(6);
    if (j.state == "running" && !q.column_is_null(8)) {
      const ProcessIdentity p{q.column_text(7), q.column_int(8), q.column_text(9)};
      if (!p.alive()) {
        // Its process was killed (kill -9, a crash, a reboot): the job will never finish.
        j.state = "failed";
        if (!j.progress.is_object()) j.progress = Json::object();
        j.progress["error"] = "the process running this job (pid " + std::to_string(p.pid) + " on " + p.host +
                              ") died before it finished";
        dead.push_back(out.size());
      }
    }
    out.push_back(std::move(j));
  }
  if (!dead.empty() && !conn_.read_only()) {
    for (size_t i : dead) {
      Transaction t(conn_);
      // Only if still running as we saw it: a concurrent writer's newer state wins.
      Statement s(conn_.handle(), "UPDATE jobs SET state = 'failed', progress = ?, updated_ms = ? WHERE id = ? AND state = 'running'");
      s.bind(1, out[i].progress.dump()).bind(2, now_ms()).bind(3, out[i].id).run();
      t.commit();
    }
  }
  return out;
}


std::vector<Measurement> Database::job_measurements(int64_t job_id) {
  return query("WHERE m.job_id = ? ORDER BY m.id ASC", {std::to_string(job_id)});
}

void Database::record_device(const DeviceRecord& d) {
  Transaction t(conn_);
  const int64_t now = d.last_seen_ms ? d.last_seen_ms : now_ms();
  Statement s(conn_.handle(),
              "INSERT INTO devices (device_key, hostname, target, info, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?) "
              "ON CONFLICT (device_key, hostname) DO UPDATE SET target = excluded.target, info = excluded.info, "
              "last_seen_ms = excluded.last_seen_ms");
  s.bind(1, d.device_key).bind(2, d.hostname).bind(3, d.target).bind(4, d.info.dump()).bind(5, now).bind(6, now);
  s.run();
  t.commit();
}

std::vector<DeviceRecord> Database::devices() {
  Statement q(conn_.handle(),
              "SELECT device_key, hostname, target, info, first_seen_ms, last_seen_ms FROM devices ORDER BY device_key, hostname");
  std::vector<DeviceRecord> out;
  while (q.step()) {
    DeviceRecord d;
    d.device_key = q.column_text(0);
    d.hostname = q.column_text(1);
    d.target = q.column_text(2);
    try {
      d.info = parse_json(q.column_text(3));
    } catch (const JsonError&) {
      d.info = Json::object();
    }
    d.first_seen_ms = q.column_int(4);
    d.last_seen_ms = q.column_int(5);
    out.push_back(d);
  }
  return out;
}

bool Database::known_device_key(const std::string& key) {
  Statement q(conn_.handle(), "SELECT 1 FROM devices WHERE device_key = ? LIMIT 1");
  q.bind(1, key);
  return q.step();
}

int64_t Database::count_measurements() {
  Statement q(conn_.handle(), "SELECT COUNT(*) FROM measurements");
  q.step();
  return q.column_int(0);
}

void Database::save_model(const std::string& op, const std::string& target, const std::string& device_key,
                          const CostModel& m) {
  Transaction t(conn_);
  int64_t tg = target_id(target, device_key);
  Statement s(conn_.handle(),
              "INSERT INTO cost_models (op, target_id, feature_version, training_size, model, created_ms) "
              "VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, op).bind(2, tg).bind(3, m.feature_version).bind(4, m.training_size).bind_blob(5, m.bytes).bind(6, now_ms());
  s.run();
  t.commit();
}

std::optional<CostModel> Database::load_model(const std::string& op, const std::string& target,
                                              const std::string& device_key, int64_t feature_version) {
  Statement q(conn_.handle(),
              "SELECT c.feature_version, c.training_size, c.model FROM cost_models c JOIN targets t ON t.id = c.target_id "
              "WHERE c.op = ? AND tf_target(t.target) = ? AND t.device_key = ? AND c.feature_version = ? "
              "ORDER BY c.created_ms DESC, c.id DESC LIMIT 1");
  q.bind(1, op).bind(2, target).bind(3, device_key).bind(4, feature_version);
  if (!q.step()) return std::nullopt;
  return CostModel{q.column_int(0), q.column_int(1), q.column_blob(2)};
}

}  // namespace tf::db
