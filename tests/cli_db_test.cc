// The CLI's side of an honest database: import checks a record like a measurement and reports
// what it refused; reading commands open read-only and never create a schema; a damaged schema
// version is one clear error line, not a crash.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "compiler/codegen/target.h"
#include "db/database.h"
#include "tests/cli_runner.h"
#include "tests/test_files.h"

namespace {

using tf::testing_support::fresh_path;

std::string record(const std::string& op, const std::string& shape, const std::string& config,
                   const std::string& costs) {
  const std::string target = tf::codegen::parse_target("llvm -mcpu=native").str();
  return "{\"workload\": {\"op\": \"" + op + "\", \"shape\": " + shape +
         ", \"dtype\": \"float32\"}, \"target\": {\"target\": \"" + target +
         "\", \"device_key\": \"local\"}, \"config\": " + config + ", \"config_index\": -1, \"costs\": " + costs +
         ", \"outcome\": \"ok\", \"time\": 1000}";
}

TEST(CliImport, RecordsAreCheckedLikeMeasurementsAndRefusalsReported) {
  const std::string lines = fresh_path("import.jsonl"), db = fresh_path("import.db");
  {
    std::ofstream out(lines);
    out << record("dense", "[32,48,40]", "{}", "[0.001, 0.0011]") << "\n";         // 1: fine
    out << record("dense", "[32,48,40]", "{\"evil_knob\": 1}", "[1e-9]") << "\n";  // 2: unknown knob
    out << record("no_such_op", "[32,48,40]", "{}", "[0.001]") << "\n";            // 3: unknown op
    out << record("dense", "[0,-3,5]", "{}", "[0.001]") << "\n";                   // 4: impossible shape
    out << record("dense", "[32,48,40]", "{}", "[-0.5]") << "\n";                  // 5: negative cost
    out << record("dense", "[32,48,40]", "{}", "[1e-15]") << "\n";                 // 6: absurdly small
    out << record("dense", "[32,48,40]", "{}", "[]") << "\n";                      // 7: ok without costs
  }
  Result r = run_cli("import --db " + db + " " + lines + " --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const tf::Json counts = tf::parse_json(r.out);
  EXPECT_EQ(counts.at("added").get<int64_t>(), 1);
  EXPECT_EQ(counts.at("refused").get<int64_t>(), 6);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("evil_knob"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("and 1 more"), std::string::npos) << r.err;
  tf::db::Database check(db, tf::db::Database::Open::ReadOnly);
  ASSERT_EQ(check.all_measurements().size(), 1u);
  EXPECT_EQ(check.all_measurements()[0].config.dump(), "{}");
}

TEST(CliReadOnly, ReadingAnEmptyFileSaysSoAndLeavesItEmpty) {
  const std::string db = fresh_path("empty.db");
  std::ofstream(db).close();
  Result r = run_cli("best --op dense --shape 32,48,40 --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("empty file"), std::string::npos) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(db.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_NE(::access((db + "-wal").c_str(), F_OK), 0) << "a read switched the file to WAL";
}

TEST(CliReadOnly, ADamagedSchemaVersionIsOneErrorLine) {
  const std::string db = fresh_path("version.db");
  {
    tf::db::Database d(db);
    d.connection().exec("UPDATE tunefarm_meta SET value = '-5' WHERE key = 'schema_version'");
  }
  for (const std::string cmd : {"best --op dense --shape 32,48,40", "history --op dense --shape 32,48,40", "export"}) {
    Result r = run_cli(cmd + " --db " + db);
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("not a version number"), std::string::npos) << cmd << ": " << r.err;
  }
}

}  // namespace

// Databases written before local commands named the host as its boards do hold local records under
// LLVM's name for this CPU: they are still this host's, for reading commands and for --config best.
TEST(CliTargets, RecordsFiledUnderLlvmsNameForThisHostAreTheHostsRecords) {
  const std::string llvm_named = tf::codegen::llvm_named_host_target();
  ASSERT_FALSE(llvm_named.empty());
  const std::string lines = fresh_path("legacy.jsonl"), db = fresh_path("legacy.db");
  {
    std::ofstream out(lines);
    out << "{\"workload\": {\"op\": \"dense\", \"shape\": [32,48,40], \"dtype\": \"float32\"}, \"target\": {\"target\": \""
        << llvm_named
        << "\", \"device_key\": \"local\"}, \"config\": {\"mr\": 3, \"unroll_k\": 2}, \"config_index\": -1, "
        << "\"costs\": [0.001], \"outcome\": \"ok\", \"time\": 1000}\n";
  }
  Result imported = run_cli("import --db " + db + " " + lines);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  Result best = run_cli("best --op dense --shape 32,48,40 --db " + db + " --target native --json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(tf::parse_json(best.out).at("config").at("mr"), 3) << best.out;
  Result ran = run_cli("run --op dense --shape 32,48,40 --config best --db " + db + " --min-ms 1 --repeat 1 --json");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const tf::Json out = tf::parse_json(ran.out);
  EXPECT_EQ(out.at("config").at("mr"), 3) << ran.out;
  EXPECT_EQ(out.at("config").at("unroll_k"), 2) << ran.out;
  EXPECT_EQ(out.at("target"), tf::codegen::host_target().str());
}
