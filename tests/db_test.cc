// The tuning database on both backends, a real SQLite file and a real PostgreSQL server: round
// trips, migrations, refusal of foreign or newer databases, concurrent writers in separate
// processes, and kill -9 in the middle of writing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "db/database.h"
#include "db/schema.h"
#include "tests/postgres_server.h"
#include "tests/test_files.h"

namespace tf::db {
namespace {

using testing_support::fresh_path;

class Db : public testing_support::BackendTest {};
TF_BOTH_BACKENDS(Db);

Measurement sample(double seconds, int mr, int64_t t_ms) {
  Measurement m;
  m.op = "dense";
  m.shape = {64, 64, 64};
  m.target = "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4";
  m.config = parse_json("{\"mr\": " + std::to_string(mr) + "}");
  m.config_index = mr;
  m.costs = {seconds, seconds * 1.1, seconds * 0.9};
  m.build_ms = 12.5;
  m.device = "board-1";
  m.compiler_version = "0.1.0";
  m.created_ms = t_ms;
  return m;
}

TEST_P(Db, RecordsRoundTripAndBestIsTheFastestOk) {
  Database db(fresh_db("roundtrip"));
  EXPECT_TRUE(db.record(sample(2e-3, 1, 1000)));
  EXPECT_TRUE(db.record(sample(1e-3, 2, 1001)));
  Measurement failed = sample(1e-6, 3, 1002);
  failed.outcome = Outcome::WrongAnswer;
  EXPECT_TRUE(db.record(failed));
  EXPECT_FALSE(db.record(sample(1e-3, 2, 1001)));  // the same record again adds nothing
  EXPECT_EQ(db.count_measurements(), 3);
  auto best = db.best("dense", {64, 64, 64}, sample(0, 0, 0).target);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config.at("mr").get<int64_t>(), 2);
  EXPECT_EQ(best->costs.size(), 3u);
  EXPECT_EQ(best->device, "board-1");
  auto hist = db.history("dense", {64, 64, 64}, sample(0, 0, 0).target);
  ASSERT_EQ(hist.size(), 3u);
  EXPECT_EQ(hist[2].outcome, Outcome::WrongAnswer);
  EXPECT_FALSE(db.best("dense", {32, 32, 32}, sample(0, 0, 0).target).has_value());
}

TEST_P(Db, OpHistoryGivesEveryShapeItsShareFastestFirst) {
  Database db(fresh_db("op_history"));
  // A shape with many records written last, and one with few written first: a newest-first cut
  // would return only the first shape's.
  for (int i = 0; i < 10; ++i) {
    Measurement m = sample(1e-3 * (i + 1), i, 10 + i);
    m.shape = {32, 32, 32};
    db.record(m);
  }
  for (int i = 0; i < 200; ++i) db.record(sample(1e-3 * (200 - i), i, 1000 + i));  // the fastest last
  const auto prior = db.op_history("dense", sample(0, 0, 0).target, "local", 80);
  std::map<std::vector<int64_t>, std::vector<double>> by_shape;
  for (const auto& m : prior) by_shape[m.shape].push_back(m.mean_s());
  ASSERT_EQ(by_shape.size(), 2u);
  const std::vector<int64_t> small_shape = {32, 32, 32}, big_shape = {64, 64, 64};
  EXPECT_EQ(by_shape[small_shape].size(), 10u);  // all it has
  auto& big = by_shape[big_shape];
  EXPECT_LE(big.size(), 41u);
  EXPECT_GE(big.size(), 35u);
  std::sort(big.begin(), big.end());
  // Its 20 fastest, then a spread reaching its slow end.
  for (int i = 0; i < 20; ++i) EXPECT_NEAR(big[static_cast<size_t>(i)], 1e-3 * (i + 1), 1e-9);
  EXPECT_GT(big.back(), 0.15);
}

TEST(DbRecords, ExportRecordsParseBack) {
  Measurement m = sample(3e-3, 4, 77);
  Measurement back = Measurement::from_json(parse_json(m.to_json().dump()));
  EXPECT_EQ(back.to_json(), m.to_json());
  EXPECT_THROW(Measurement::from_json(parse_json("{\"workload\": {}}")), JsonError);
}

TEST_P(Db, CostModelsAreStoredPerOpTargetAndFeatureVersion) {
  Database db(fresh_db("models"));
  db.save_model("dense", "t", "local", {1, 10, {1, 2, 3}});
  db.save_model("dense", "t", "local", {1, 20, {4, 5}});
  auto m = db.load_model("dense", "t", "local", 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->training_size, 20);
  EXPECT_EQ(m->bytes, (std::vector<uint8_t>{4, 5}));
  EXPECT_FALSE(db.load_model("dense", "t", "local", 2).has_value());
}

// Records filed under an older string for a machine are found under its current one once aliased,
// by every read and in a read-only file, while new records go under the current string.
TEST_P(Db, AnAliasedTargetsRecordsAreFoundUnderTheTargetTheyAliasTo) {
  const std::string path = fresh_db("alias");
  const std::string old_name = sample(0, 0, 0).target, current = "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v4";
  {
    Database db(path);
    db.record(sample(2e-3, 1, 1000));
    db.record(sample(1e-3, 2, 1001));
    db.save_model("dense", old_name, "local", {1, 10, {7}});
    EXPECT_FALSE(db.best("dense", {64, 64, 64}, current).has_value());
    db.alias_target(old_name, current);
    Measurement newer = sample(1.5e-3, 3, 1002);
    newer.target = current;
    db.record(newer);
    auto best = db.best("dense", {64, 64, 64}, current);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->config.at("mr").get<int64_t>(), 2);
    EXPECT_EQ(db.history("dense", {64, 64, 64}, current).size(), 3u);
    EXPECT_EQ(db.op_history("dense", current, "local", 100).size(), 3u);
    ASSERT_TRUE(db.load_model("dense", current, "local", 1).has_value());
    EXPECT_EQ(db.load_model("dense", current, "local", 1)->training_size, 10);
    const auto per_target = db.best_per_target("dense", {64, 64, 64});
    ASSERT_EQ(per_target.size(), 1u);  // one machine, not two
    EXPECT_EQ(per_target[0].config.at("mr").get<int64_t>(), 2);
    // A device key is still a device key: the alias joins strings, not boards.
    EXPECT_FALSE(db.best("dense", {64, 64, 64}, current, "k").has_value());
  }
  Database reader(path, Database::Open::ReadOnly);
  EXPECT_EQ(reader.history("dense", {64, 64, 64}, current).size(), 1u);
  reader.alias_target(old_name, current);
  EXPECT_EQ(reader.history("dense", {64, 64, 64}, current).size(), 3u);
  EXPECT_EQ(reader.history("dense", {64, 64, 64}, old_name).size(), 0u);
}

// Every table's writes and reads, each as the other backend has them.
TEST_P(Db, BaselinesDevicesJobsAndRepeatsRoundTrip) {
  Database db(fresh_db("tables"));
  Baseline b;
  b.op = "dense";
  b.shape = {64, 64, 64};
  b.target = "t";
  b.device_key = "k";
  b.config = parse_json("{\"mr\": 4}");
  b.compiler_version = "0.1";
  b.costs = {1e-3, 2e-3};
  b.library = {0x7f, 'E', 'L', 'F', 0x00, 0xff, '\\', '\''};
  b.entry_symbol = "k0";
  b.device = "board-1";
  b.measure = parse_json("{\"repeat\": 3}");
  db.save_baseline("nightly", {b}, false);
  EXPECT_THROW(db.save_baseline("nightly", {b}, false), DbError);
  b.costs = {5e-4};
  db.save_baseline("nightly", {b}, true);
  const auto got = db.baseline("nightly");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].library, b.library);
  EXPECT_EQ(got[0].costs, b.costs);
  EXPECT_EQ(got[0].measure, b.measure);
  ASSERT_EQ(db.baselines().size(), 1u);
  EXPECT_TRUE(db.baselines()[0].library.empty()) << "listings leave the libraries out";
  EXPECT_TRUE(db.delete_baseline("nightly"));
  EXPECT_FALSE(db.delete_baseline("nightly"));

  ModelBaseline mb;
  mb.name = "r18";
  mb.model = "resnet18.onnx";
  mb.input_shapes = "input=1,3,224,224";
  mb.target = "t";
  mb.device_key = "k";
  mb.threads = 4;
  mb.costs = {0.01};
  mb.tfm = {1, 0, 2};
  db.save_model_baseline(mb, false);
  EXPECT_THROW(db.save_model_baseline(mb, false), DbError);
  const auto stored = db.model_baseline("r18");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->tfm, mb.tfm);
  EXPECT_EQ(stored->threads, 4);
  EXPECT_EQ(db.model_baselines().size(), 1u);
  EXPECT_TRUE(db.delete_model_baseline("r18"));

  DeviceRecord d;
  d.device_key = "k";
  d.hostname = "h1";
  d.target = "t";
  d.info = parse_json("{\"cores\": 8}");
  d.last_seen_ms = 100;
  db.record_device(d);
  d.info = parse_json("{\"cores\": 16}");
  d.last_seen_ms = 200;
  db.record_device(d);
  const auto devices = db.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].first_seen_ms, 100);
  EXPECT_EQ(devices[0].last_seen_ms, 200);
  EXPECT_EQ(devices[0].info.at("cores").get<int>(), 16);
  EXPECT_TRUE(db.known_device_key("k"));
  EXPECT_FALSE(db.known_device_key("x"));

  const int64_t queued = db.create_job(parse_json("{\"op\": \"dense\"}"), "alice", "queued");
  const int64_t done = db.create_job(Json::object(), "bob", "done");
  EXPECT_LT(queued, done);
  db.update_job(queued, "running", parse_json("{\"trials_done\": 3}"));
  const auto job = db.job(queued);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->state, "running");
  EXPECT_EQ(job->owner, "alice");
  EXPECT_EQ(job->progress.at("trials_done").get<int>(), 3);
  EXPECT_EQ(db.jobs().size(), 2u);

  Measurement m = sample(1e-3, 5, 50);
  m.job_id = queued;
  ASSERT_TRUE(db.record(m));
  EXPECT_TRUE(db.add_repeats(queued, m, {1.2e-3}));
  EXPECT_FALSE(db.add_repeats(done, m, {1.2e-3})) << "another job's measurement";
  const auto measured = db.job_measurements(queued);
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_EQ(measured[0].costs.size(), 4u);
  EXPECT_FALSE(db.record(measured[0])) << "the record under its new hash";
}

TEST_P(Db, MigratesTheFirstSchemaForward) {
  std::string path = fresh_db("migrate");
  {
    auto c = open_connection(path, Connection::Access::Create);
    migrate_to(*c, 1);
  }
  Database db(path);
  EXPECT_EQ(db.schema_version_on_open(), 1);
  Statement q(db.connection(), "SELECT COUNT(*) FROM baselines");
  EXPECT_TRUE(q.step());
  EXPECT_TRUE(db.record(sample(1e-3, 1, 5)));
}

TEST_P(Db, RefusesForeignAndNewerDatabases) {
  if (!postgres()) {
    std::string text = fresh_path("text");
    std::ofstream(text) << "this is not a database, just some text that is long enough to have a header\n";
    EXPECT_THROW(Database{text}, DbError);
  }

  std::string other = fresh_db("other");
  {
    auto c = open_connection(other, Connection::Access::Create);
    c->exec("CREATE TABLE songs (title TEXT)");
  }
  try {
    Database db(other);
    ADD_FAILURE() << "opened a foreign SQLite file";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("not a tunefarm database"), std::string::npos) << e.what();
  }

  std::string newer = fresh_db("newer");
  {
    Database db(newer);
    db.connection().exec("UPDATE tunefarm_meta SET value = '999' WHERE key = 'schema_version'");
  }
  try {
    Database db(newer);
    ADD_FAILURE() << "opened a newer schema";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this tunefarm"), std::string::npos) << e.what();
  }
}

TEST_P(Db, TwoProcessesWritingAtOnceLoseNothing) {
  std::string path = fresh_db("concurrent");
  { Database db(path); }
  const int kPerProcess = 150;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  auto write_many = [&](int who) {
    Database db(path);
    for (int i = 0; i < kPerProcess; ++i) db.record(sample(1e-3 + i * 1e-6, who, 10000 * who + i));
  };
  if (child == 0) {
    try {
      write_many(2);
    } catch (...) {
      _exit(1);
    }
    _exit(0);
  }
  write_many(1);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  Database db(path);
  EXPECT_EQ(db.count_measurements(), 2 * kPerProcess);
}

TEST_P(Db, KillNineDuringWritesKeepsEveryCommittedRecord) {
  std::string path = fresh_db("kill9");
  { Database db(path); }
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipefd[0]);
    Database db(path);
    for (int i = 0;; ++i) {
      db.record(sample(1e-3, 1, i));
      // Report each committed record, then keep writing until killed.
      if (write(pipefd[1], &i, sizeof i) != sizeof i) _exit(1);
    }
  }
  close(pipefd[1]);
  int last = -1, got;
  while (last < 200 && read(pipefd[0], &got, sizeof got) == sizeof got) last = got;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  while (read(pipefd[0], &got, sizeof got) == sizeof got) last = got;
  close(pipefd[0]);
  Database db(path);
  // Every record the child reported as committed is there (it may have committed one more).
  EXPECT_GE(db.count_measurements(), last + 1);
  EXPECT_LE(db.count_measurements(), last + 2);
  if (!postgres()) {
    Statement check(db.connection(), "PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.column_text(0), "ok");
  }
  // The database takes writes again at once: nothing of the killed writer holds a lock.
  EXPECT_TRUE(db.record(sample(2e-3, 2, 0)));
}

}  // namespace
}  // namespace tf::db
