// Record hashes across the change of hash function (schema 8): a file of schema 7, its records
// stored under the FNV-1a hashes that schema's code computed, opens with every hash computed again,
// finds each of its records when one is written again, and still tells apart records that differ in
// one field; rows it cannot read or that repeat a record keep their place; and a kill -9 in the
// middle of the migration leaves the file as it was.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/schema.h"
#include "db/sqlite.h"
#include "tests/postgres_server.h"
#include "tests/test_files.h"

namespace tf::db {
namespace {

using runtime::ColdInputs;
using testing_support::fresh_path;

class RecordHashMigration : public testing_support::BackendTest {};
TF_BOTH_BACKENDS(RecordHashMigration);

// TEST FIXTURE, not code under test: the record hash schemas 1-7 stored (two FNV-1a passes,
// forwards and backwards, over the record's JSON, its timing left out when warm), copied here to
// write files exactly as that code wrote them.
std::string schema7_fnv_record_hash(const Measurement& m) {
  Json identity = m.to_json();
  if (m.timing == ColdInputs::Off) identity.erase("timing");
  const std::string s = identity.dump(-1, ' ', false, Json::error_handler_t::replace);
  uint64_t h = 1469598103934665603ull, h2 = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  for (auto it = s.rbegin(); it != s.rend(); ++it) h2 = (h2 ^ static_cast<unsigned char>(*it)) * 1099511628211ull;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h),
                static_cast<unsigned long long>(h2));
  return buf;
}

Measurement sample_record(int mr, ColdInputs timing = ColdInputs::Off) {
  Measurement m;
  m.op = "dense";
  m.shape = {64, 64, 64};
  m.target = "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4";
  m.config = parse_json("{\"mr\": " + std::to_string(mr) + ", \"order\": \"mn\"}");
  m.config_index = mr;
  m.costs = {1e-3 * mr, 1.1e-3 * mr, 0.9e-3 * mr};
  m.build_ms = 12.5;
  m.device = "board-1";
  m.compiler_version = "0.1.0";
  m.created_ms = 1000 + mr;
  m.timing = timing;
  return m;
}

// A failed build whose error text is not UTF-8, as compilers and boards may write it.
Measurement failed_record() {
  Measurement m = sample_record(7);
  m.outcome = Outcome::CompileError;
  m.costs.clear();
  m.error = "ld.lld: \xff\xfe bad section";
  return m;
}

// Writes a row of schema 7 (and the workload and target it refers to) with `hash` as its record hash.
void insert_schema7_row(Connection& c, const Measurement& m, const std::string& hash) {
  Statement w(c, "INSERT INTO workloads (key, op, shape, dtype) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
  w.bind(1, m.workload_key()).bind(2, m.op).bind(3, Json(m.shape).dump()).bind(4, m.dtype).run();
  Statement t(c, "INSERT INTO targets (target, device_key) VALUES (?, ?) ON CONFLICT DO NOTHING");
  t.bind(1, m.target).bind(2, m.device_key).run();
  Statement r(
      c,
      "INSERT INTO measurements (workload_id, target_id, config, config_index, costs, mean_s, outcome, error, build_ms, "
      "device, compiler_version, created_ms, record_hash, timing) VALUES ((SELECT id FROM workloads WHERE key = ?), "
      "(SELECT id FROM targets WHERE target = ? AND device_key = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  r.bind(1, m.workload_key()).bind(2, m.target).bind(3, m.device_key).bind(4, m.config.dump()).bind(5, m.config_index);
  r.bind(6, Json(m.costs).dump());
  if (m.outcome == Outcome::Ok)
    r.bind(7, m.mean_s());
  else
    r.bind_null(7);
  r.bind(8, std::string(outcome_name(m.outcome))).bind(9, m.error).bind(10, m.build_ms).bind(11, m.device);
  r.bind(12, m.compiler_version)
      .bind(13, m.created_ms)
      .bind(14, hash)
      .bind(15, std::string(runtime::timing_name(m.timing)));
  r.run();
}

// A schema-7 file holding `records` under the hashes schema 7 computed.
void write_schema7_file(const std::string& path, const std::vector<Measurement>& records) {
  auto conn = open_connection(path, Connection::Access::Create);
  Connection& c = *conn;
  migrate_to(c, 7);
  for (const Measurement& m : records) insert_schema7_row(c, m, schema7_fnv_record_hash(m));
}

std::vector<std::string> stored_hashes(Connection& c) {
  Statement q(c, "SELECT record_hash FROM measurements ORDER BY id");
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.column_text(0));
  return out;
}

std::string stored_version(Connection& c) {
  Statement q(c, "SELECT value FROM tunefarm_meta WHERE key = 'schema_version'");
  return q.step() ? q.column_text(0) : "";
}

std::vector<std::string> schema7_hashes(const std::vector<Measurement>& records) {
  std::vector<std::string> out;
  for (const Measurement& m : records) out.push_back(schema7_fnv_record_hash(m));
  return out;
}

TEST_P(RecordHashMigration, ASchema7FileIsRehashedAndFindsItsRecordsAgain) {
  const std::vector<Measurement> records = {sample_record(1), sample_record(2, ColdInputs::Weights), failed_record()};
  const std::string path = fresh_db("v7");
  write_schema7_file(path, records);

  Database db(path);
  EXPECT_EQ(db.schema_version_on_open(), 7);
  EXPECT_EQ(stored_version(db.connection()), std::to_string(latest_schema_version()));
  const std::vector<std::string> migrated = stored_hashes(db.connection());
  ASSERT_EQ(migrated.size(), records.size());
  const std::vector<std::string> old = schema7_hashes(records);
  for (size_t i = 0; i < records.size(); ++i)
    EXPECT_NE(migrated[i], old[i]) << "row " << i << " kept its schema-7 hash";

  // The hashes a file written by this build holds for the same records.
  Database fresh(fresh_db("fresh"));
  for (const Measurement& m : records) ASSERT_TRUE(fresh.record(m));
  EXPECT_EQ(migrated, stored_hashes(fresh.connection()));

  for (const Measurement& m : records)
    EXPECT_FALSE(db.record(m)) << m.to_json().dump(-1, ' ', false, Json::error_handler_t::replace);
  EXPECT_EQ(db.count_measurements(), static_cast<int64_t>(records.size()));
}

TEST_P(RecordHashMigration, ARecordDifferingInOneFieldIsAnotherRecord) {
  const Measurement base = sample_record(4);
  const std::string path = fresh_db("fields");
  write_schema7_file(path, {base});
  Database db(path);
  ASSERT_FALSE(db.record(base));

  const std::vector<std::pair<const char*, std::function<void(Measurement&)>>> changes = {
      {"op", [](Measurement& m) { m.op = "dense_t"; }},
      {"shape",
       [](Measurement& m) {
         m.shape = {64, 64, 65};
       }},
      {"dtype", [](Measurement& m) { m.dtype = "float16"; }},
      {"target", [](Measurement& m) { m.target += " -mattr=+avx2"; }},
      {"device_key", [](Measurement& m) { m.device_key = "rack-2"; }},
      {"config value", [](Measurement& m) { m.config["order"] = "nm"; }},
      {"config_index", [](Measurement& m) { m.config_index = 5; }},
      {"one cost", [](Measurement& m) { m.costs.back() = std::nextafter(m.costs.back(), 1.0); }},
      {"costs' order", [](Measurement& m) { std::swap(m.costs.front(), m.costs.back()); }},
      {"outcome", [](Measurement& m) { m.outcome = Outcome::WrongAnswer; }},
      {"error", [](Measurement& m) { m.error = "x"; }},
      {"build_ms", [](Measurement& m) { m.build_ms = 12.25; }},
      {"device", [](Measurement& m) { m.device = "board-2"; }},
      {"compiler_version", [](Measurement& m) { m.compiler_version = "0.1.1"; }},
      {"time", [](Measurement& m) { m.created_ms += 1; }},
      {"timing", [](Measurement& m) { m.timing = ColdInputs::All; }},
  };
  for (const auto& [field, change] : changes) {
    Measurement other = base;
    change(other);
    EXPECT_TRUE(db.record(other)) << "a record differing in its " << field << " was taken for the stored one";
    EXPECT_FALSE(db.record(other)) << field;
  }
  EXPECT_EQ(db.count_measurements(), static_cast<int64_t>(changes.size() + 1));
}

TEST_P(RecordHashMigration, RowsItCannotReadOrThatRepeatARecordKeepTheirPlace) {
  const Measurement base = sample_record(3);
  const std::string path = fresh_db("odd_rows");
  {
    auto conn = open_connection(path, Connection::Access::Create);
    Connection& c = *conn;
    migrate_to(c, 7);
    insert_schema7_row(c, base, schema7_fnv_record_hash(base));
    Measurement unreadable = sample_record(5);
    insert_schema7_row(c, unreadable, "edited-by-hand");
    c.exec("UPDATE measurements SET config = 'not json' WHERE record_hash = 'edited-by-hand'");
    insert_schema7_row(c, base, "the-same-record-again");  // a repeat under another hash
  }
  Database db(path);
  EXPECT_EQ(db.schema_version_on_open(), 7);
  const std::vector<std::string> hashes = stored_hashes(db.connection());
  ASSERT_EQ(hashes.size(), 3u);
  EXPECT_NE(hashes[0], schema7_fnv_record_hash(base));
  EXPECT_EQ(hashes[1], "edited-by-hand");
  EXPECT_EQ(hashes[2], "the-same-record-again");
  EXPECT_FALSE(db.record(base));
  EXPECT_EQ(db.count_measurements(), 3);
}

// Pauses the migrating process inside its transaction, after it rewrote row 5's hash: a trigger
// calls this, which tells the test through `fd` and waits to be killed.
void pause_migration(sqlite3_context* ctx, int, sqlite3_value**) {
  const int fd = *static_cast<int*>(sqlite3_user_data(ctx));
  const char byte = 'm';
  if (write(fd, &byte, 1) != 1) _exit(2);
  for (;;) pause();
}

TEST(RecordHashMigrationSqlite, KillNineDuringTheMigrationLeavesTheFileAsItWas) {
  std::vector<Measurement> records;
  for (int mr = 1; mr <= 10; ++mr) records.push_back(sample_record(mr));
  const std::string path = fresh_path("kill9");
  write_schema7_file(path, records);
  {
    SqliteConnection c(path, false);
    c.exec(
        "CREATE TRIGGER pause_migration AFTER UPDATE OF record_hash ON measurements WHEN NEW.id = 5 "
        "BEGIN SELECT tf_pause_migration(); END");
  }
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipefd[0]);
    try {
      // As Database opens a file: WAL, then the migrations.
      SqliteConnection c(path, false);
      c.exec("PRAGMA journal_mode = WAL");
      sqlite3_create_function_v2(c.handle(), "tf_pause_migration", 0, SQLITE_UTF8, &pipefd[1], pause_migration, nullptr,
                                 nullptr, nullptr);
      migrate(c);
    } catch (...) {
      _exit(1);
    }
    _exit(0);  // the migration finished without pausing
  }
  close(pipefd[1]);
  char byte = 0;
  const bool paused = read(pipefd[0], &byte, 1) == 1;
  close(pipefd[0]);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(paused) << "the migration never reached row 5 (child status " << status << ")";

  {
    SqliteConnection c(path, false);
    EXPECT_EQ(stored_version(c), "7");
    EXPECT_EQ(stored_hashes(c), schema7_hashes(records));
    Statement check(c, "PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.column_text(0), "ok");
    c.exec("DROP TRIGGER pause_migration");
  }
  Database db(path);
  EXPECT_EQ(db.schema_version_on_open(), 7);
  EXPECT_EQ(db.count_measurements(), 10);
  for (const Measurement& m : records) EXPECT_FALSE(db.record(m));
  EXPECT_EQ(db.count_measurements(), 10);
}

}  // namespace
}  // namespace tf::db
