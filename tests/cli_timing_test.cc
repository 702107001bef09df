// Timings through the command line: `tune` records how it timed, `best` and `history` show it and
// `best --timing` reads one, export and import carry it, and import refuses a timing it does not
// know, naming the line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "compiler/codegen/target.h"
#include "db/database.h"
#include "tests/cli_runner.h"
#include "tests/test_files.h"

namespace {

using tf::testing_support::fresh_path;

using tf::runtime::ColdInputs;

// An export line of dense 32x48x40 on this host; `timing` empty: a line from before timings.
std::string line(int mr, double seconds, const std::string& timing) {
  std::string out =
      "{\"workload\": {\"op\": \"dense\", \"shape\": [32,48,40], \"dtype\": \"float32\"}, \"target\": {\"target\": \"" +
      tf::codegen::host_target().str() + "\", \"device_key\": \"local\"}, \"config\": {\"mr\": " + std::to_string(mr) +
      "}, \"config_index\": -1, \"costs\": [" + std::to_string(seconds) +
      "], \"outcome\": \"ok\", \"time\": " + std::to_string(1000 + mr);
  if (!timing.empty()) out += ", \"timing\": " + timing;
  return out + "}\n";
}

std::map<int, ColdInputs> timing_by_mr(const std::string& db) {
  tf::db::Database d(db, tf::db::Database::Open::ReadOnly);
  std::map<int, ColdInputs> out;
  for (const auto& m : d.all_measurements()) out[m.config.at("mr").get<int>()] = m.timing;
  return out;
}

const std::string kWorkload = " --op dense --shape 32,48,40 --db ";

TEST(CliTiming, BestAndHistoryShowTheTimingAndBestReadsTheOneAskedFor) {
  const std::string lines = fresh_path("three.jsonl"), db = fresh_path("three.db");
  {
    std::ofstream out(lines);
    out << line(3, 0.001, "") << line(2, 0.002, "\"cold-weights\"") << line(4, 0.003, "\"cold-all\"");
  }
  Result imported = run_cli("import --db " + db + " " + lines);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  Result any = run_cli("best" + kWorkload + db + " --json");
  ASSERT_EQ(any.exit_code, 0) << any.err;
  EXPECT_EQ(tf::parse_json(any.out).at("config").at("mr"), 3) << any.out;
  EXPECT_EQ(tf::parse_json(any.out).at("timing"), "warm") << any.out;
  Result cold = run_cli("best" + kWorkload + db + " --timing cold-weights --json");
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_EQ(tf::parse_json(cold.out).at("config").at("mr"), 2) << cold.out;
  EXPECT_EQ(tf::parse_json(cold.out).at("timing"), "cold-weights") << cold.out;
  Result text = run_cli("best" + kWorkload + db + " --timing cold-all");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("cold-all"), std::string::npos) << text.out;

  Result history = run_cli("history" + kWorkload + db);
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(std::count(history.out.begin(), history.out.end(), '\n'), 3) << history.out;
  for (const char* t : {" warm ", " cold-weights ", " cold-all "})
    EXPECT_NE(history.out.find(t), std::string::npos) << t << history.out;
  Result only_warm = run_cli("history" + kWorkload + db + " --timing warm --json");
  ASSERT_EQ(only_warm.exit_code, 0) << only_warm.err;
  EXPECT_EQ(std::count(only_warm.out.begin(), only_warm.out.end(), '\n'), 1) << only_warm.out;
  EXPECT_EQ(tf::parse_json(only_warm.out).at("timing"), "warm") << only_warm.out;

  const std::string empty = fresh_path("warm-only.db"), warm_line = fresh_path("warm.jsonl");
  std::ofstream(warm_line) << line(3, 0.001, "");
  ASSERT_EQ(run_cli("import --db " + empty + " " + warm_line).exit_code, 0);
  Result none = run_cli("best" + kWorkload + empty + " --timing cold-weights");
  EXPECT_EQ(none.exit_code, 1) << none.out;
  EXPECT_NE(none.err.find("timed cold-weights"), std::string::npos) << none.err;

  Result bad = run_cli("best" + kWorkload + db + " --timing hot");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.err.find("--timing"), std::string::npos) << bad.err;
  // The tracker's best takes --timing too, checked before dialling.
  Result tracker = run_cli("best --op dense --shape 32,48,40 --key k --tracker 127.0.0.1:1 --timing hot");
  EXPECT_EQ(tracker.exit_code, 2) << tracker.out;
  EXPECT_NE(tracker.err.find("--timing"), std::string::npos) << tracker.err;
}

// `run --config best` runs the best config timed the way it times (--cold-inputs), else the best of
// any timing, saying so.
TEST(CliTiming, RunConfigBestPrefersRecordsTimedAsItTimes) {
  const std::string lines = fresh_path("run.jsonl"), db = fresh_path("run.db");
  {
    std::ofstream out(lines);
    out << line(3, 0.001, "") << line(2, 0.002, "\"cold-weights\"");
  }
  ASSERT_EQ(run_cli("import --db " + db + " " + lines).exit_code, 0);
  auto mr_run = [&](const std::string& extra, Result* r) {
    *r = run_cli("run" + kWorkload + db + " --config best --min-ms 1 --repeat 1 --json" + extra);
    EXPECT_EQ(r->exit_code, 0) << r->err;
    return r->exit_code == 0 ? tf::parse_json(r->out).at("config").at("mr").get<int>() : -1;
  };
  Result r;
  EXPECT_EQ(mr_run("", &r), 3);
  EXPECT_EQ(r.err.find("timed otherwise"), std::string::npos) << r.err;
  EXPECT_EQ(mr_run(" --cold-inputs weights", &r), 2);
  EXPECT_EQ(r.err.find("timed otherwise"), std::string::npos) << r.err;
  EXPECT_EQ(mr_run(" --cold-inputs all", &r), 3);  // none timed cold-all: the best of any timing
  EXPECT_NE(r.err.find("no record of dense[32,48,40] timed cold-all"), std::string::npos) << r.err;
}

TEST(CliTiming, ExportThenImportKeepsEveryTimingAndAddsNothingTwice) {
  const std::string lines = fresh_path("rt.jsonl"), db = fresh_path("rt.db"), exported = fresh_path("rt-export.jsonl"),
                    copy = fresh_path("rt-copy.db");
  {
    std::ofstream out(lines);
    out << line(3, 0.001, "\"warm\"") << line(2, 0.002, "\"cold-weights\"") << line(4, 0.003, "\"cold-all\"")
        << line(6, 0.004, "");
  }
  ASSERT_EQ(run_cli("import --db " + db + " " + lines).exit_code, 0);
  const std::map<int, ColdInputs> want = {
      {3, ColdInputs::Off}, {2, ColdInputs::Weights}, {4, ColdInputs::All}, {6, ColdInputs::Off}};
  EXPECT_EQ(timing_by_mr(db), want);

  Result ex = run_cli("export --db " + db + " -o " + exported);
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  Result im = run_cli("import --db " + copy + " " + exported + " --json");
  ASSERT_EQ(im.exit_code, 0) << im.err;
  EXPECT_EQ(tf::parse_json(im.out).at("added"), 4) << im.out;
  EXPECT_EQ(timing_by_mr(copy), want);
  // Back into the file it came from: every record is already there.
  Result again = run_cli("import --db " + db + " " + exported + " --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(tf::parse_json(again.out).at("added"), 0) << again.out;
  EXPECT_EQ(tf::parse_json(again.out).at("already_present"), 4) << again.out;
}

TEST(CliTiming, AnImportLineWithAnUnknownTimingIsRefusedNamingTheLine) {
  const std::string lines = fresh_path("hot.jsonl"), db = fresh_path("hot.db");
  {
    std::ofstream out(lines);
    out << line(3, 0.001, "\"warm\"") << line(2, 0.002, "\"hot\\r\\n\"") << line(4, 0.003, "null");
  }
  Result r = run_cli("import --db " + db + " " + lines + " --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const tf::Json counts = tf::parse_json(r.out);
  EXPECT_EQ(counts.at("added"), 1) << r.out;
  EXPECT_EQ(counts.at("bad_lines").get<int64_t>() + counts.at("refused").get<int64_t>(), 2) << r.out;
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"timing\""), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "the file's control characters reached the terminal";
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "one line per refused record: " << r.err;
  EXPECT_EQ(timing_by_mr(db), (std::map<int, ColdInputs>{{3, ColdInputs::Off}}));
}

TEST(CliTiming, TuneRecordsHowItTimed) {
  const std::string warm = fresh_path("tune-warm.db"), cold = fresh_path("tune-cold.db");
  const std::string tune =
      "tune --op dense --shape 32,48,40 --trials 2 --min-ms 1 --repeat 1 --tuner random --json --db ";
  Result w = run_cli(tune + warm);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  Result c = run_cli(tune + cold + " --cold-inputs weights");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const auto& [db, timing] : {std::pair{warm, ColdInputs::Off}, std::pair{cold, ColdInputs::Weights}}) {
    tf::db::Database d(db, tf::db::Database::Open::ReadOnly);
    const auto all = d.all_measurements();
    ASSERT_FALSE(all.empty()) << db;
    for (const auto& m : all) EXPECT_EQ(m.timing, timing) << db << ": " << m.to_json().dump();
  }
  Result best = run_cli("best" + kWorkload + cold + " --timing warm");
  EXPECT_EQ(best.exit_code, 1) << best.out;
}

}  // namespace
