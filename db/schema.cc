#include "db/schema.h"

#include <algorithm>
#include <string>
#include <vector>

#include "db/record_hash.h"

namespace tf::db {
namespace {

// One step of the schema: SQL, then (when a step must compute in C++) a rewrite of stored rows.
struct Migration {
  Migration(const char* sql) : sql(sql) {}
  Migration(const char* sql, void (*rewrite)(Connection&)) : sql(sql), rewrite(rewrite) {}
  const char* sql;
  void (*rewrite)(Connection&) = nullptr;
};

// Append only: a released migration never changes, or old files would diverge.
const std::vector<Migration> kMigrations = {
    // 1: workloads, targets, jobs, measurements, cost models.
    R"sql(
    CREATE TABLE workloads (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL UNIQUE,            -- "dense[512,512,512]:float32"
      op TEXT NOT NULL,
      shape TEXT NOT NULL,                 -- JSON array of extents
      dtype TEXT NOT NULL
    );
    CREATE TABLE targets (
      id INTEGER PRIMARY KEY,
      target TEXT NOT NULL,                -- "llvm -mtriple=... -mcpu=... -mattr=..."
      device_key TEXT NOT NULL,            -- the fleet key, "local" for this machine
      cpu TEXT NOT NULL DEFAULT '',
      features TEXT NOT NULL DEFAULT '',
      UNIQUE (target, device_key)
    );
    CREATE TABLE jobs (
      id INTEGER PRIMARY KEY,
      spec TEXT NOT NULL,                  -- JSON
      state TEXT NOT NULL CHECK (state IN ('queued','running','done','failed','cancelled')),
      progress TEXT NOT NULL DEFAULT '{}', -- JSON
      owner TEXT NOT NULL DEFAULT '',
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL
    );
    CREATE TABLE measurements (
      id INTEGER PRIMARY KEY,
      job_id INTEGER REFERENCES jobs(id) ON DELETE SET NULL,
      workload_id INTEGER NOT NULL REFERENCES workloads(id),
      target_id INTEGER NOT NULL REFERENCES targets(id),
      config TEXT NOT NULL,                -- JSON object of knob values
      config_index INTEGER,
      costs TEXT NOT NULL,                 -- JSON array: seconds per run, every repeat
      mean_s REAL,                         -- NULL unless outcome is 'ok'
      outcome TEXT NOT NULL CHECK (outcome IN ('ok','compile_error','runtime_error','timeout','wrong_answer')),
      error TEXT NOT NULL DEFAULT '',
      build_ms REAL NOT NULL DEFAULT 0,
      device TEXT NOT NULL DEFAULT '',
      compiler_version TEXT NOT NULL DEFAULT '',
      created_ms INTEGER NOT NULL,
      record_hash TEXT NOT NULL UNIQUE     -- identity of the record, so an import never doubles it
    );
    CREATE INDEX measurements_by_workload ON measurements (workload_id, target_id, outcome, mean_s);
    CREATE INDEX measurements_by_job ON measurements (job_id);
    CREATE TABLE cost_models (
      id INTEGER PRIMARY KEY,
      op TEXT NOT NULL,
      target_id INTEGER NOT NULL REFERENCES targets(id),
      feature_version INTEGER NOT NULL,
      training_size INTEGER NOT NULL,
      model BLOB NOT NULL,
      created_ms INTEGER NOT NULL
    );
    CREATE INDEX cost_models_by_op ON cost_models (op, target_id, feature_version, created_ms);
    )sql",
    // 2: baselines for CI regression runs.
    R"sql(
    CREATE TABLE baselines (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      workload_id INTEGER NOT NULL REFERENCES workloads(id),
      target_id INTEGER NOT NULL REFERENCES targets(id),
      config TEXT NOT NULL,
      compiler_version TEXT NOT NULL,
      costs TEXT NOT NULL,
      library BLOB,                        -- the built shared library, measured again later
      entry_symbol TEXT NOT NULL DEFAULT '',
      created_ms INTEGER NOT NULL,
      UNIQUE (name, workload_id, target_id)
    );
    )sql",
    // 3: the boards that ever registered with a tracker; a job measures each config once.
    R"sql(
    CREATE TABLE devices (
      id INTEGER PRIMARY KEY,
      device_key TEXT NOT NULL,
      hostname TEXT NOT NULL,
      target TEXT NOT NULL,
      info TEXT NOT NULL DEFAULT '{}',     -- JSON: cpu, cores, threads, memory, runtime version
      first_seen_ms INTEGER NOT NULL,
      last_seen_ms INTEGER NOT NULL,
      UNIQUE (device_key, hostname)
    );
    CREATE UNIQUE INDEX measurements_once_per_job
      ON measurements (job_id, workload_id, config_index) WHERE job_id IS NOT NULL AND config_index >= 0;
    )sql",
    // 4: which board a baseline was measured on, and with which measurement settings.
    R"sql(
    ALTER TABLE baselines ADD COLUMN device TEXT NOT NULL DEFAULT '';
    ALTER TABLE baselines ADD COLUMN measure TEXT NOT NULL DEFAULT '{}';  -- JSON: repeat, min_repeat_ms, ...
    )sql",
    // 5: the process running a local job, so a reader can tell a job whose process died.
    R"sql(
    ALTER TABLE jobs ADD COLUMN process_host TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN process_pid INTEGER;
    ALTER TABLE jobs ADD COLUMN process_start TEXT NOT NULL DEFAULT '';  -- boot id and start time: pids are reused
    )sql",
    // 6: baselines of whole models (model-level CI verdicts): the compiled model itself.
    R"sql(
    CREATE TABLE model_baselines (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      model TEXT NOT NULL,                 -- the .onnx file's name
      input_shapes TEXT NOT NULL,          -- as bound: "image=1,3,640,640"
      target TEXT NOT NULL,
      device_key TEXT NOT NULL,            -- whose configs it was built with
      threads INTEGER NOT NULL,
      compiler_version TEXT NOT NULL,
      device TEXT NOT NULL,                -- the host that timed it
      costs TEXT NOT NULL,                 -- JSON: seconds per run, every timing
      tfm BLOB NOT NULL,                   -- the compiled model, run again later
      created_ms INTEGER NOT NULL
    );
    )sql",
    // 7: how a measurement was timed (runtime::timing_name): warm, or with the weights or every
    // input read cold as a model reads them. Older rows were all timed warm.
    R"sql(
    ALTER TABLE measurements ADD COLUMN timing TEXT NOT NULL DEFAULT 'warm'
      CHECK (timing IN ('warm','cold-weights','cold-all'));
    )sql",
    // 8: record hashes are XXH3-128 of the whole record (db/record_hash.h), where schemas 1-7 stored
    // two FNV-1a passes: every stored hash is computed again, so a record written again identically
    // is still found. It reads rows with kSelectMeasurements (db/measurement_rows.h), which may
    // therefore name only columns of schema 8 and older; the migration tests from schema 7 fail if it
    // names a newer one.
    {"", rehash_records},
};

const char* kAppTable = "tunefarm_meta";

// A stored schema_version is trusted only as a plain decimal number: it indexes kMigrations.
int parse_version(const std::string& path, const std::string& text) {
  bool digits = !text.empty() && text.size() <= 9;
  for (char ch : text) digits = digits && ch >= '0' && ch <= '9';
  if (!digits) {
    throw DbError("'" + path + "' has schema_version '" + text +
                  "' in tunefarm_meta, which is not a version number; the file was edited or damaged");
  }
  return std::stoi(text);
}

int read_version(Connection& c, bool* is_tunefarm, bool* empty = nullptr) {
  bool any = false, meta = false;
  for (const std::string& table : c.table_names()) {
    any = true;
    if (table == kAppTable) meta = true;
  }
  *is_tunefarm = meta || !any;
  if (empty) *empty = !any;
  if (!meta) return 0;
  Statement v(c, "SELECT value FROM tunefarm_meta WHERE key = 'schema_version'");
  if (!v.step()) return 0;
  return parse_version(c.location(), v.column_text(0));
}

void apply(Connection& c, int from, int to) {
  int v = from;
  while (v < to) {
    Transaction t(c);
    bool is_tf;
    if (const int now = read_version(c, &is_tf); now != v) {
      // Another process migrated meanwhile (trackers starting together on one new database): go on
      // from where it got to.
      t.commit();
      v = now;
      continue;
    }
    c.exec_schema("CREATE TABLE IF NOT EXISTS tunefarm_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const Migration& m = kMigrations[static_cast<size_t>(v)];
    if (*m.sql) c.exec_schema(m.sql);
    if (m.rewrite) m.rewrite(c);
    Statement s(c,
                "INSERT INTO tunefarm_meta (key, value) VALUES ('schema_version', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    s.bind(1, std::to_string(v + 1)).run();
    t.commit();
    ++v;
  }
}

}  // namespace

int latest_schema_version() { return static_cast<int>(kMigrations.size()); }

int check_schema(Connection& c, bool* empty) {
  bool is_tf = false;
  const int version = read_version(c, &is_tf, empty);
  if (!is_tf) {
    throw DbError("'" + c.location() + "' is not a tunefarm database (it has tables, but no tunefarm_meta)");
  }
  if (version > latest_schema_version()) {
    throw DbError("'" + c.location() + "' has schema version " + std::to_string(version) +
                  ", newer than this tunefarm (" + std::to_string(latest_schema_version()) +
                  "); upgrade tunefarm to open it");
  }
  return version;
}

int migrate(Connection& c) {
  const int version = check_schema(c, nullptr);
  apply(c, version, latest_schema_version());
  return version;
}

void migrate_to(Connection& c, int version) {
  bool is_tf = false;
  apply(c, read_version(c, &is_tf), std::min(version, latest_schema_version()));
}

}  // namespace tf::db
