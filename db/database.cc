// The database as a whole: opening (and migrating) the file, the target aliases reads look up, and
// the workload and target rows every other table refers to. Each table's reads and writes have a
// file of their own (records.cc, jobs.cc, devices.cc, cost_models.cc, baselines.cc, ...).
#include "db/database.h"

#include <chrono>
#include <map>

#include <sqlite3.h>

#include "db/schema.h"

namespace tf::db {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
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
  ins.bind(1, m.workload_key()).bind(2, m.op).bind(3, Json(m.shape).dump()).bind(4, m.dtype).run();
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

}  // namespace tf::db
