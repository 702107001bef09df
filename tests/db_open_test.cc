// Opening a database honestly, on both backends: damaged schema versions, read-only opens that
// change nothing, another program's database left untouched; of a SQLite file, a read-only file
// system and a full disk each named for what they are; and stored rows with unusable timings
// skipped instead of breaking reads.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>

#include "db/database.h"
#include "db/schema.h"
#include "db/sqlite.h"
#include "tests/db_samples.h"
#include "tests/postgres_server.h"
#include "tests/test_files.h"

namespace tf::db {
namespace {

using testing_support::fresh_path;

class DatabaseOpen : public testing_support::BackendTest {};
TF_BOTH_BACKENDS(DatabaseOpen);
class DatabaseTimings : public testing_support::BackendTest {};
TF_BOTH_BACKENDS(DatabaseTimings);

Measurement sample(double seconds, int mr) { return testing_support::sample_measurement(mr, seconds, "board-7"); }

std::string journal_mode(const std::string& path) {
  SqliteConnection c(path, Connection::Access::ReadOnly);
  Statement q(c, "PRAGMA journal_mode");
  q.step();
  return q.column_text(0);
}

// A small tmpfs of its own, when this process may mount one (tests run as root in CI, where a
// chmod'ed file is still writable; a read-only or full file system is not).
class ScratchFs {
 public:
  explicit ScratchFs(const std::string& size) : dir_(testing::TempDir() + "tf_fs_" + std::to_string(getpid())) {
    ::mkdir(dir_.c_str(), 0755);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
  }
  ~ScratchFs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    ::rmdir(dir_.c_str());
  }
  bool mounted() const { return mounted_; }
  bool make_read_only() { return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) == 0; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST_P(DatabaseOpen, DamagedSchemaVersionsAreRefusedNamingTheValue) {
  for (const std::string bad : {"-5", "abc", "", "1e3", "99999999999999"}) {
    const std::string path = fresh_db("version");
    {
      Database db(path);
      Statement s(db.connection(), "UPDATE tunefarm_meta SET value = ? WHERE key = 'schema_version'");
      s.bind(1, bad).run();
    }
    for (auto open : {Database::Open::Create, Database::Open::ReadOnly}) {
      const std::string e = testing_support::db_error_of([&] { Database db(path, open); });
      EXPECT_NE(e.find("not a version number"), std::string::npos) << "'" << bad << "': " << e;
    }
  }
}

TEST_P(DatabaseOpen, AnotherProgramsDatabaseIsRefusedUnchanged) {
  const std::string other = fresh_db("other");
  auto c = open_connection(other, Connection::Access::Create);
  c->exec("CREATE TABLE songs (title TEXT)");
  if (!postgres()) {
    ASSERT_EQ(journal_mode(other), "delete");
  }
  for (auto open : {Database::Open::Create, Database::Open::ReadOnly}) {
    const std::string e = testing_support::db_error_of([&] { Database db(other, open); });
    EXPECT_NE(e.find("not a tunefarm database"), std::string::npos) << e;
  }
  if (!postgres()) {
    EXPECT_EQ(journal_mode(other), "delete") << "refusing the file switched it to WAL";
  }
  EXPECT_EQ(c->table_names(), std::vector<std::string>{"songs"});
}

TEST(DatabaseOpenSqlite, ATextFileIsNamedAsNotSqlite) {
  const std::string text = fresh_path("text");
  std::ofstream(text) << "this is not a database, just some text that is long enough to have a header\n";
  const std::string e = testing_support::db_error_of([&] { Database db(text, Database::Open::ReadOnly); });
  EXPECT_NE(e.find("not a SQLite file"), std::string::npos) << e;
}

TEST_P(DatabaseOpen, ReadingAnEmptyDatabaseDoesNotCreateTheSchema) {
  const std::string empty = fresh_db("empty");
  if (!postgres()) std::ofstream(empty).close();
  const std::string e = testing_support::db_error_of([&] { Database db(empty, Database::Open::ReadOnly); });
  EXPECT_NE(e.find(postgres() ? "empty database" : "empty file"), std::string::npos) << e;
  if (!postgres()) {
    struct stat st {};
    ASSERT_EQ(::stat(empty.c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 0) << "a read created the schema";
    EXPECT_NE(testing_support::db_error_of([&] { Database db(fresh_path("missing"), Database::Open::ReadOnly); }),
              "(no DbError)");
  } else {
    EXPECT_TRUE(open_connection(empty, Connection::Access::ReadOnly)->table_names().empty())
        << "a read created the schema";
    const std::string missing = server_->url("no_such_database");
    const std::string m = testing_support::db_error_of([&] { Database db(missing, Database::Open::ReadOnly); });
    EXPECT_NE(m.find(missing), std::string::npos) << m;
    EXPECT_NE(m.find("does not exist"), std::string::npos) << m;
  }
}

TEST_P(DatabaseOpen, ReadOnlyOpenReadsAndNeverWrites) {
  const std::string path = fresh_db("ro");
  {
    Database db(path);
    db.record(sample(1e-3, 1));
  }
  Database ro(path, Database::Open::ReadOnly);
  auto best = ro.best("dense", {64, 64, 64}, sample(0, 0).target);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config.at("mr").get<int64_t>(), 1);
  EXPECT_THROW(ro.record(sample(2e-3, 2)), DbError);
}

TEST_P(DatabaseOpen, ReadingAnOldSchemaUpgradesItFirst) {
  const std::string path = fresh_db("old");
  migrate_to(*open_connection(path, Connection::Access::Create), 1);
  Database ro(path, Database::Open::ReadOnly);
  EXPECT_EQ(ro.schema_version_on_open(), 1);
  EXPECT_TRUE(ro.baselines().empty());  // a table of schema 2, read through the read-only connection
  EXPECT_TRUE(ro.jobs().empty());       // with the columns of schema 5
}

TEST(DatabaseOpenSqlite, AReadOnlyFileSystemIsReadableAndNamedWhenWritten) {
  ScratchFs fs("4m");
  if (!fs.mounted())
    GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN); nothing else makes a file unwritable for root";
  const std::string path = fs.path("farm.db");
  {
    Database db(path);
    db.record(sample(1e-3, 1));
  }
  ASSERT_TRUE(fs.make_read_only());
  Database ro(path, Database::Open::ReadOnly);
  EXPECT_TRUE(ro.best("dense", {64, 64, 64}, sample(0, 0).target).has_value());
  EXPECT_EQ(ro.history("dense", {64, 64, 64}, sample(0, 0).target).size(), 1u);
  const std::string e = testing_support::db_error_of([&] { Database db(path); });
  EXPECT_NE(e.find("read-only"), std::string::npos) << e;
  EXPECT_EQ(e.find("not a tunefarm database"), std::string::npos) << e;
}

TEST(DatabaseOpenSqlite, AFullDiskIsNamedAsAFullDisk) {
  ScratchFs fs("64k");
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs here (needs CAP_SYS_ADMIN) to fill deterministically";
  {
    std::ofstream filler(fs.path("filler"), std::ios::binary);
    std::string block(4096, 'x');
    for (int i = 0; i < 64 && filler; ++i) filler.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  const std::string e = testing_support::db_error_of([&] { Database db(fs.path("farm.db")); });
  EXPECT_NE(e.find("disk is full"), std::string::npos) << e;
  EXPECT_EQ(e.find("not a tunefarm database"), std::string::npos) << e;
}

TEST_P(DatabaseTimings, BadTimingsAreNeverStored) {
  Database db(fresh_db("refuse"));
  for (std::vector<double> costs :
       std::vector<std::vector<double>>{{NAN}, {INFINITY}, {0.0}, {-0.5}, {1e-15}, {}, {1e-3, NAN}}) {
    Measurement m = sample(1e-3, 3);
    m.costs = costs;
    const std::string e = testing_support::db_error_of([&] { db.record(m); });
    EXPECT_NE(e.find("board-7"), std::string::npos) << e;
  }
  EXPECT_EQ(db.count_measurements(), 0);
  Measurement failed = sample(1e-3, 4);
  failed.outcome = Outcome::Timeout;
  failed.costs.clear();
  EXPECT_TRUE(db.record(failed));
}

TEST_P(DatabaseTimings, StoredBadRowsAreSkippedByEveryRead) {
  const std::string path = fresh_db("poisoned");
  {
    Database db(path);
    db.record(sample(2e-3, 1));
    db.record(sample(3e-3, 2));
    // Rows older builds wrote: a NaN cost (stored as null), negative, absurdly small, no costs.
    const char* rows[][2] = {
        {"[null]", "NULL"}, {"[-0.5]", "-0.5"}, {"[1e-15]", "1e-15"}, {"[]", "NULL"}, {"garbage", "1"}};
    int i = 0;
    for (const auto& r : rows) {
      db.connection().exec(
          std::string("INSERT INTO measurements (workload_id, target_id, config, config_index, costs, mean_s, "
                      "outcome, created_ms, record_hash) SELECT workload_id, target_id, '{\"mr\": 9}', 9, '") +
          r[0] + "', " + r[1] + ", 'ok', 5, 'bad" + std::to_string(i++) + "' FROM measurements LIMIT 1");
    }
  }
  for (auto open : {Database::Open::Create, Database::Open::ReadOnly}) {
    Database db(path, open);
    auto best = db.best("dense", {64, 64, 64}, sample(0, 0).target);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->config.at("mr").get<int64_t>(), 1);
    auto per_target = db.best_per_target("dense", {64, 64, 64});
    ASSERT_EQ(per_target.size(), 1u);
    EXPECT_EQ(per_target[0].config.at("mr").get<int64_t>(), 1);
    EXPECT_EQ(db.history("dense", {64, 64, 64}, sample(0, 0).target).size(), 2u);
    EXPECT_EQ(db.op_history("dense", sample(0, 0).target, "local", 100).size(), 2u);
    EXPECT_EQ(db.all_measurements().size(), 2u);
    EXPECT_GE(db.invalid_rows_skipped(), 5);
  }
}

}  // namespace
}  // namespace tf::db
