// The database as a whole: opening (and migrating) it, the target aliases reads look up, and the
// workload and target rows every other table refers to. Each table's reads and writes have a file
// of their own (records.cc, jobs.cc, devices.cc, cost_models.cc, baselines.cc, ...).
#include "db/database.h"

#include <chrono>

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

}  // namespace

Database::Database(const std::string& location, Open open)
    : owned_conn_(open_connection(location, access_of(open))), conn_(*owned_conn_) {
  const std::string& where = conn_.location();
  bool empty = false;
  // Checked before anything is written: another program's database is refused unchanged.
  const int version = check_schema(conn_, &empty);
  if (open == Open::ReadOnly) {
    if (empty) {
      throw DbError("'" + where + "' is an empty " + (is_postgres_url(location) ? "database" : "file") +
                    ", not a tunefarm database: nothing was ever recorded in it");
    }
    if (version < latest_schema_version()) {
      // Upgrading is a write, through a connection of its own; a database we may not write stays
      // as it is and says so.
      try {
        Database upgrade(location, Open::Existing);
      } catch (const DbError& e) {
        throw DbError("'" + where + "' has schema version " + std::to_string(version) +
                          ", older than this tunefarm's " + std::to_string(latest_schema_version()) +
                          ", and cannot be upgraded to be read: " + e.what(),
                      e.code());
      }
    }
    opened_at_version_ = version;
    return;
  }
  conn_.prepare_for_writes();
  opened_at_version_ = migrate(conn_);
  jobs();  // marks local jobs whose process died as failed, so the next tune and every list see it
}

int64_t Database::workload_id(const Measurement& m) {
  Statement ins(conn_, "INSERT INTO workloads (key, op, shape, dtype) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
  ins.bind(1, m.workload_key()).bind(2, m.op).bind(3, Json(m.shape).dump()).bind(4, m.dtype).run();
  Statement q(conn_, "SELECT id FROM workloads WHERE key = ?");
  q.bind(1, m.workload_key());
  if (!q.step()) throw DbError("workload " + m.workload_key() + " vanished");
  return q.column_int(0);
}

void Database::alias_target(const std::string& alias, const std::string& target) { target_aliases_.add(alias, target); }

int64_t Database::target_id(const std::string& target, const std::string& device_key) {
  Statement ins(conn_, "INSERT INTO targets (target, device_key) VALUES (?, ?) ON CONFLICT DO NOTHING");
  ins.bind(1, target).bind(2, device_key).run();
  Statement q(conn_, "SELECT id FROM targets WHERE target = ? AND device_key = ?");
  q.bind(1, target).bind(2, device_key);
  if (!q.step()) throw DbError("target " + target + " vanished");
  return q.column_int(0);
}

}  // namespace tf::db
