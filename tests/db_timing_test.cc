// Warm and cold timings in one database: a file of schema 6 reads as warm and finds its records
// again, the same record timed another way is another record, reads filter by timing, and a model
// build prefers the timing it runs its kernels with, falling back to any timing for a workload with
// none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "db/database.h"
#include "db/schema.h"
#include "tests/postgres_server.h"
#include "tests/test_files.h"
#include "tuner/best_configs.h"

namespace tf::db {
namespace {

class DatabaseTiming : public testing_support::BackendTest {};
TF_BOTH_BACKENDS(DatabaseTiming);

using runtime::ColdInputs;

const char* kTarget = "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4";

Measurement record_of(std::vector<int64_t> shape, int mr, double seconds, ColdInputs timing, int64_t t_ms) {
  Measurement m;
  m.op = "dense";
  m.shape = std::move(shape);
  m.target = kTarget;
  m.config = parse_json("{\"mr\": " + std::to_string(mr) + "}");
  m.config_index = mr;
  m.costs = {seconds, seconds, seconds};
  m.device = "board-1";
  m.compiler_version = "0.1.0";
  m.created_ms = t_ms;
  m.timing = timing;
  return m;
}

// The record whose hash the schema-6 code stored as kOldHash (computed by tunefarm before this
// schema, from this exact record).
Measurement old_record() {
  Measurement m;
  m.op = "dense";
  m.shape = {64, 64, 64};
  m.target = kTarget;
  m.config = parse_json("{\"mr\": 2}");
  m.config_index = 2;
  m.costs = {1e-3, 1.1e-3, 0.9e-3};
  m.build_ms = 12.5;
  m.device = "board-1";
  m.compiler_version = "0.1.0";
  m.created_ms = 1000;
  return m;
}
const char* kOldHash = "6d5cd4c2b0bbfd40bac5785410cdae3c";
// The hash every build and machine stores for old_record() (XXH3-128 of its export record, timing
// included): records move between farms, so changing it needs a migration that computes the
// stored hashes again.
const char* kRecordHash = "3f9066ebe3ac6091637cecabda3cb4a3";

std::string stored_hash(Database& db) {
  Statement q(db.connection(), "SELECT record_hash FROM measurements ORDER BY id LIMIT 1");
  EXPECT_TRUE(q.step());
  return q.column_text(0);
}

TEST_P(DatabaseTiming, TheSameRecordTimedColdIsAnotherRecord) {
  const std::string path = fresh_db("hash");
  Database db(path);
  ASSERT_TRUE(db.record(old_record()));
  EXPECT_EQ(stored_hash(db), kRecordHash);
  EXPECT_FALSE(db.record(old_record()));
  Measurement cold = old_record();
  cold.timing = ColdInputs::Weights;
  EXPECT_TRUE(db.record(cold));
  EXPECT_FALSE(db.record(cold));
  EXPECT_EQ(db.count_measurements(), 2);
}

TEST_P(DatabaseTiming, ASchema6FileKeepsEveryRowAndReadsThemAsWarm) {
  const std::string path = fresh_db("v6");
  {
    auto conn = open_connection(path, Connection::Access::Create);
    Connection& c = *conn;
    migrate_to(c, 6);
    c.exec(
        "INSERT INTO workloads (id, key, op, shape, dtype) VALUES (1, 'dense[64,64,64]:float32', 'dense', '[64,64,64]', 'float32')");
    c.exec(std::string("INSERT INTO targets (id, target, device_key) VALUES (1, '") + kTarget + "', 'local')");
    // As schema 6 stored them: a fast and a slow success and a failure.
    c.exec(
        std::string(
            "INSERT INTO measurements (workload_id, target_id, config, config_index, costs, mean_s, outcome, build_ms, device, "
            "compiler_version, created_ms, record_hash) VALUES "
            "(1, 1, '{\"mr\":2}', 2, '[0.001,0.0011,0.0009]', 0.001, 'ok', 12.5, 'board-1', '0.1.0', 1000, '") +
        kOldHash +
        "'), "
        "(1, 1, '{\"mr\":4}', 4, '[0.002]', 0.002, 'ok', 0, 'board-1', '0.1.0', 2000, 'b'), "
        "(1, 1, '{\"mr\":8}', 8, '[]', NULL, 'compile_error', 0, 'board-1', '0.1.0', 3000, 'c')");
  }
  Database db(path);
  EXPECT_EQ(db.schema_version_on_open(), 6);
  EXPECT_EQ(db.count_measurements(), 3);
  const auto all = db.all_measurements();
  ASSERT_EQ(all.size(), 3u);
  for (const auto& m : all) EXPECT_EQ(m.timing, ColdInputs::Off) << m.config.dump();
  EXPECT_EQ(all[2].outcome, Outcome::CompileError);
  ASSERT_EQ(db.history("dense", {64, 64, 64}, kTarget, "local", ColdInputs::Off).size(), 3u);
  EXPECT_TRUE(db.history("dense", {64, 64, 64}, kTarget, "local", ColdInputs::Weights).empty());
  const auto best = db.best("dense", {64, 64, 64}, kTarget, "local", ColdInputs::Off);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config_index, 2);
  // An old export of the stored record is found already there.
  EXPECT_FALSE(db.record(old_record()));
  EXPECT_EQ(db.count_measurements(), 3);
  // The column refuses any other timing than the three names.
  EXPECT_THROW(db.connection().exec("UPDATE measurements SET timing = 'hot' WHERE id = 1"), DbError);
}

TEST_P(DatabaseTiming, AFasterWarmRecordDoesNotWinAColdWeightsLookup) {
  const std::string path = fresh_db("lookup");
  Database db(path);
  db.record(record_of({64, 64, 64}, 2, 1e-3, ColdInputs::Off, 1000));      // warm: faster
  db.record(record_of({64, 64, 64}, 4, 3e-3, ColdInputs::Weights, 2000));  // cold, the model's way
  db.record(record_of({64, 64, 64}, 8, 5e-3, ColdInputs::Weights, 3000));
  db.record(record_of({64, 64, 64}, 16, 4e-3, ColdInputs::All, 4000));

  auto cold = db.best("dense", {64, 64, 64}, kTarget, "local", ColdInputs::Weights);
  ASSERT_TRUE(cold.has_value());
  EXPECT_EQ(cold->config_index, 4);
  EXPECT_EQ(cold->timing, ColdInputs::Weights);
  EXPECT_EQ(db.best("dense", {64, 64, 64}, kTarget, "local", ColdInputs::All)->config_index, 16);
  // Asked for any timing, the warm one is the fastest, and says how it was timed.
  auto any = db.best("dense", {64, 64, 64}, kTarget, "local");
  ASSERT_TRUE(any.has_value());
  EXPECT_EQ(any->config_index, 2);
  EXPECT_EQ(any->timing, ColdInputs::Off);
  const auto per_target = db.best_per_target("dense", {64, 64, 64}, ColdInputs::Weights);
  ASSERT_EQ(per_target.size(), 1u);
  EXPECT_EQ(per_target[0].config_index, 4);

  const tuner::BestConfigs model(&db, kTarget, "local");  // a model build: cold-weights by default
  const ops::Workload w{"dense", {64, 64, 64}};
  EXPECT_EQ(model.config(w), std::optional<std::string>("{\"mr\":4}"));
  ASSERT_TRUE(model.seconds(w).has_value());
  EXPECT_DOUBLE_EQ(*model.seconds(w), 3e-3);
  EXPECT_TRUE(model.other_timings().empty());
  const tuner::BestConfigs warm(&db, kTarget, "local", ColdInputs::Off);
  EXPECT_EQ(warm.config(w), std::optional<std::string>("{\"mr\":2}"));
}

TEST_P(DatabaseTiming, AWorkloadTimedOnlyWarmFallsBackToItsWarmBest) {
  const std::string path = fresh_db("fallback");
  Database db(path);
  db.record(record_of({32, 32, 32}, 2, 2e-4, ColdInputs::Off, 1000));
  db.record(record_of({32, 32, 32}, 4, 1e-4, ColdInputs::Off, 2000));
  db.record(record_of({64, 64, 64}, 8, 3e-3, ColdInputs::Weights, 3000));

  const tuner::BestConfigs model(&db, kTarget, "local", ColdInputs::Weights);
  EXPECT_EQ(model.config({"dense", {32, 32, 32}}), std::optional<std::string>("{\"mr\":4}"));
  EXPECT_EQ(model.config({"dense", {64, 64, 64}}), std::optional<std::string>("{\"mr\":8}"));
  EXPECT_FALSE(model.config({"dense", {16, 16, 16}}).has_value());
  ASSERT_EQ(model.other_timings().size(), 1u);
  EXPECT_EQ(model.other_timings()[0], ops::Workload({"dense", {32, 32, 32}}).str());
}

TEST_P(DatabaseTiming, AJobTransfersOnlyFromRecordsOfItsOwnTiming) {
  const std::string path = fresh_db("transfer");
  Database db(path);
  for (int i = 0; i < 5; ++i) db.record(record_of({64, 64, 64}, i, 1e-3 * (i + 1), ColdInputs::Off, 1000 + i));
  for (int i = 0; i < 3; ++i) db.record(record_of({128, 64, 64}, i, 2e-3 * (i + 1), ColdInputs::Weights, 2000 + i));
  const auto cold = db.op_history("dense", kTarget, "local", 100, ColdInputs::Weights);
  ASSERT_EQ(cold.size(), 3u);
  for (const auto& m : cold) EXPECT_EQ(m.timing, ColdInputs::Weights);
  EXPECT_EQ(db.op_history("dense", kTarget, "local", 100, ColdInputs::Off).size(), 5u);
  EXPECT_TRUE(db.op_history("dense", kTarget, "local", 100, ColdInputs::All).empty());
  EXPECT_EQ(db.op_history("dense", kTarget, "local", 100).size(), 8u);
}

TEST(DatabaseTimingRecords, ExportRecordsCarryTheTimingAndRefuseAnUnknownOne) {
  Measurement m = record_of({64, 64, 64}, 2, 1e-3, ColdInputs::All, 1000);
  const Json line = m.to_json();
  EXPECT_EQ(line.at("timing"), "cold-all");
  EXPECT_EQ(Measurement::from_json(line).timing, ColdInputs::All);
  EXPECT_EQ(record_of({64, 64, 64}, 2, 1e-3, ColdInputs::Off, 1000).to_json().at("timing"), "warm");

  Json old = line;
  old.erase("timing");
  EXPECT_EQ(Measurement::from_json(old).timing, ColdInputs::Off);

  Json bad = line;
  bad["timing"] = "hot\r\n";
  try {
    Measurement::from_json(bad);
    ADD_FAILURE() << "read a record timed \"hot\"";
  } catch (const JsonError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("\"timing\""), std::string::npos) << what;
    EXPECT_NE(what.find("hot\\r\\n"), std::string::npos) << what;
    EXPECT_EQ(what.find('\r'), std::string::npos) << "a control character from the file reached the message";
  }
  bad["timing"] = 7;
  EXPECT_THROW(Measurement::from_json(bad), JsonError);
  bad["timing"] = "weights";  // the --cold-inputs spelling is not a timing
  EXPECT_THROW(Measurement::from_json(bad), JsonError);
}

}  // namespace
}  // namespace tf::db
