// Reading the database: best, history, export and import of tuning records as JSON lines.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/open_db.h"
#include "cli/record_check.h"
#include "cli/tracker_client.h"
#include "cli/svg_chart.h"
#include "cli/workload_args.h"
#include "db/database.h"

namespace tf::cli {
namespace {

// Rows a read skipped because their stored timings are unusable (written before timings were
// checked): said on stderr, so a shorter history is not a mystery.
void note_skipped(const char* cmd, const db::Database& database) {
  if (database.invalid_rows_skipped() > 0) {
    std::fprintf(stderr, "%s: skipped %lld stored measurements with unusable timings\n", cmd,
                 static_cast<long long>(database.invalid_rows_skipped()));
  }
}

double gflops_of(const db::Measurement& m, const compiler::Task& task) {
  const double s = m.mean_s();
  return s > 0 ? static_cast<double>(task.op().flops(task.workload().shape)) / s * 1e-9 : 0;
}

}  // namespace

int cmd_best(const std::vector<std::string>& argv) {
  Args args("tunefarm best", "The best measured config of a workload on a target, from the database.");
  add_workload_options(args);
  args.option("db", "PATH", "tuning database", "tunefarm.db")
      .option("threads", "N", "the thread count it was tuned with (each is tuned apart)", "1")
      .option("key", "KEY", "ask the tracker for the best on the boards of this key instead")
      .flag("json", "print JSON");
  add_tracker_options(args);
  if (!args.parse(argv)) return 0;
  if (args.has("key") || args.has("tracker")) {
    if (!args.has("key")) throw UsageError("--tracker needs --key: the boards whose best you want");
    if (!args.has("op") || !args.has("shape")) throw UsageError("give --op and --shape");
    return best_from_tracker(args, args.get("op"), args.get_int_list("shape"));
  }
  auto task = make_task(args);
  auto db_handle = open_existing_db(args.get("db"), DbUse::Read);
  db::Database& database = *db_handle;
  auto best = database.best(task->workload().op, task->workload().shape, task->target().str(), device_key_from_args(args));
  if (!best) {
    std::fprintf(stderr, "tunefarm best: no successful measurement of %s on %s in %s\n", task->workload().str().c_str(),
                 task->target().str().c_str(), args.get("db").c_str());
    return 1;
  }
  if (args.flag_set("json")) {
    json::Value out = best->to_json();
    out.set("gflops", gflops_of(*best, *task));
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s  %.1f GFLOPS  config %s\n", task->workload().str().c_str(), gflops_of(*best, *task),
                best->config.dump().c_str());
  }
  return 0;
}

int cmd_history(const std::vector<std::string>& argv) {
  Args args("tunefarm history", "Every measurement of a workload on a target, oldest first.");
  add_workload_options(args);
  args.option("db", "PATH", "tuning database", "tunefarm.db")
      .option("threads", "N", "the thread count it was tuned with (each is tuned apart)", "1")
      .flag("json", "print JSON lines");
  if (!args.parse(argv)) return 0;
  auto task = make_task(args);
  auto db_handle = open_existing_db(args.get("db"), DbUse::Read);
  db::Database& database = *db_handle;
  int64_t n = 0;
  double best = 0;
  for (const auto& m : database.history(task->workload().op, task->workload().shape, task->target().str(), device_key_from_args(args))) {
    ++n;
    const double g = m.outcome == db::Outcome::Ok ? gflops_of(m, *task) : 0;
    best = std::max(best, g);
    if (args.flag_set("json")) {
      std::printf("%s\n", m.to_json().dump().c_str());
    } else {
      std::printf("%5lld  %-13s %8.1f GFLOPS  best %8.1f  %s\n", static_cast<long long>(n), db::outcome_name(m.outcome), g,
                  best, m.config.dump().c_str());
    }
  }
  note_skipped("tunefarm history", database);
  return 0;
}

int cmd_export(const std::vector<std::string>& argv) {
  Args args("tunefarm export", "Write every tuning record of a database as JSON lines (one measurement per line).");
  args.option("db", "PATH", "tuning database", "tunefarm.db").option("output", "FILE", "output file (also -o); - for stdout", "-");
  std::vector<std::string> rest = argv;
  for (auto& a : rest) {
    if (a == "-o") a = "--output";
  }
  if (!args.parse(rest)) return 0;
  auto db_handle = open_existing_db(args.get("db"), DbUse::Read);
  db::Database& database = *db_handle;
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (args.get("output") != "-") {
    file.open(args.get("output"));
    if (!file) throw UsageError("cannot write " + args.get("output"));
    out = &file;
  }
  int64_t n = 0;
  for (const auto& m : database.all_measurements()) {
    *out << m.to_json().dump() << "\n";
    ++n;
  }
  out->flush();
  if (!*out) throw std::runtime_error("writing " + args.get("output") + " failed");
  std::fprintf(stderr, "exported %lld records\n", static_cast<long long>(n));
  note_skipped("tunefarm export", database);
  return 0;
}

int cmd_import(const std::vector<std::string>& argv) {
  Args args("tunefarm import",
            "Read tuning records (JSON lines, as export writes them) into a database. Records already there\n"
            "are skipped. Each record is checked like a measurement: the op exists, the shape is valid for it,\n"
            "the target parses, every knob exists with one of its choices, a successful record's costs are\n"
            "finite, positive and at least 1 ns per run. Unreadable or refused lines are counted, the first\n"
            "few reported with their line numbers, and skipped, never half-imported; the valid ones are\n"
            "imported. Exit status: 0 when every line was imported or already present, 1 when any line was\n"
            "unreadable or refused, 2 for bad usage.");
  args.option("db", "PATH", "tuning database (created when missing)", "tunefarm.db").flag("json", "print counts as JSON");
  // Positional: the file to read; everything else goes to the option parser.
  std::vector<std::string> rest;
  std::string file;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--db" && i + 1 < argv.size()) {
      rest.push_back(argv[i]);
      rest.push_back(argv[++i]);
    } else if (argv[i].rfind("-", 0) == 0) {
      rest.push_back(argv[i]);
    } else if (file.empty()) {
      file = argv[i];
    } else {
      throw UsageError("more than one file to import: " + file + ", " + argv[i]);
    }
  }
  if (!args.parse(rest)) return 0;
  if (file.empty()) throw UsageError("give the file to import (JSON lines, as tunefarm export writes)");
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file);
  db::Database database(args.get("db"));
  RecordChecker checker;
  constexpr size_t kReasonsShown = 5;
  int64_t added = 0, present = 0, bad = 0, refused = 0, line_no = 0;
  std::vector<std::string> reasons;
  auto reject = [&](int64_t* count, const std::string& why) {
    ++*count;
    if (reasons.size() < kReasonsShown) reasons.push_back("line " + std::to_string(line_no) + ": " + why);
  };
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    db::Measurement m;
    try {
      m = db::Measurement::from_json(json::parse(line));
    } catch (const std::exception& e) {
      reject(&bad, std::string("unreadable: ") + e.what());
      continue;
    }
    const std::string why = checker.problem(m);
    if (!why.empty()) {
      reject(&refused, "refused: " + why);
      continue;
    }
    (database.record(m) ? added : present)++;
  }
  if (args.flag_set("json")) {
    json::Value out = json::Value::object();
    out.set("added", added);
    out.set("already_present", present);
    out.set("bad_lines", bad);
    out.set("refused", refused);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("imported %lld records, %lld already present, %lld unreadable lines and %lld refused records skipped\n",
                static_cast<long long>(added), static_cast<long long>(present), static_cast<long long>(bad),
                static_cast<long long>(refused));
  }
  for (const auto& r : reasons) std::fprintf(stderr, "tunefarm import: %s\n", r.c_str());
  if (bad + refused > static_cast<int64_t>(reasons.size())) {
    std::fprintf(stderr, "tunefarm import: ... and %lld more lines skipped\n",
                 static_cast<long long>(bad + refused - static_cast<int64_t>(reasons.size())));
  }
  return bad + refused ? 1 : 0;
}

}  // namespace tf::cli

namespace tf::cli {

int cmd_plot(const std::vector<std::string>& argv) {
  Args args("tunefarm plot", "Best-so-far GFLOPS against trial number for each tuning run of a workload, as an SVG file.");
  add_workload_options(args);
  args.option("db", "PATH", "tuning database", "tunefarm.db").option("output", "FILE", "the SVG to write (also -o)", "curve.svg");
  std::vector<std::string> rest = argv;
  for (auto& a : rest) {
    if (a == "-o") a = "--output";
  }
  if (!args.parse(rest)) return 0;
  auto task = make_task(args);
  auto db_handle = open_existing_db(args.get("db"), DbUse::Read);
  db::Database& database = *db_handle;
  std::vector<Series> series;
  for (const auto& job : database.jobs()) {
    const json::Value* op = job.spec.is_object() ? job.spec.find("op") : nullptr;
    const json::Value* shape = job.spec.is_object() ? job.spec.find("shape") : nullptr;
    if (!op || !shape || op->as_string() != task->workload().op) continue;
    std::vector<int64_t> s;
    for (const auto& d : shape->items()) s.push_back(d.as_int());
    if (s != task->workload().shape) continue;
    Series line;
    const json::Value* tuner = job.spec.find("tuner");
    line.label = (tuner ? tuner->as_string() : std::string("job")) + " (job " + std::to_string(job.id) + ")";
    double best = 0;
    for (const auto& m : database.job_measurements(job.id)) {
      if (m.outcome == db::Outcome::Ok) best = std::max(best, gflops_of(m, *task));
      line.y.push_back(best);
    }
    if (!line.y.empty()) series.push_back(std::move(line));
  }
  if (series.empty()) {
    std::fprintf(stderr, "tunefarm plot: no tuning runs of %s in %s\n", task->workload().str().c_str(), args.get("db").c_str());
    return 1;
  }
  std::ofstream out(args.get("output"));
  out << line_chart_svg(task->workload().str() + ": best GFLOPS so far", "trial", "GFLOPS", series);
  out.close();
  if (!out) throw UsageError("cannot write " + args.get("output"));
  std::printf("wrote %s (%zu runs)\n", args.get("output").c_str(), series.size());
  return 0;
}

}  // namespace tf::cli
