// Reading the database: best, history, export and import of tuning records as JSON lines.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/tracker_client.h"
#include "cli/svg_chart.h"
#include "cli/workload_args.h"
#include "db/database.h"

namespace tf::cli {
namespace {

void require_db(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) throw UsageError("no database at " + path);
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
  require_db(args.get("db"));
  db::Database database(args.get("db"));
  auto best = database.best(task->workload().op, task->workload().shape, task->target().str(), device_key_from_args(args));
  if (!best) {
    std::fprintf(stderr, "tunefarm best: no successful measurement of %s on %s in %s\n", task->workload().str().c_str(),
                 task->target().str().c_str(), args.get("db").c_str());
    return 1;
  }
  if (args.flag_set("json")) {
    Json out = best->to_json();
    out["gflops"] = gflops_of(*best, *task);
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
  require_db(args.get("db"));
  db::Database database(args.get("db"));
  int64_t n = 0;
  double best = 0;
  for (const auto& m : database.history(task->workload().op, task->workload().shape, task->target().str(), device_key_from_args(args))) {
    ++n;
    const double g = m.outcome == db::Outcome::Ok ? gflops_of(m, *task) : 0;
    best = std::max(best, g);
    if (args.flag_set("json")) {
      std::printf("%s\n", m.to_json().dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    } else {
      std::printf("%5lld  %-13s %8.1f GFLOPS  best %8.1f  %s\n", static_cast<long long>(n), db::outcome_name(m.outcome), g,
                  best, m.config.dump().c_str());
    }
  }
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
  require_db(args.get("db"));
  db::Database database(args.get("db"));
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (args.get("output") != "-") {
    file.open(args.get("output"));
    if (!file) throw UsageError("cannot write " + args.get("output"));
    out = &file;
  }
  int64_t n = 0;
  for (const auto& m : database.all_measurements()) {
    *out << m.to_json().dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
    ++n;
  }
  out->flush();
  if (!*out) throw std::runtime_error("writing " + args.get("output") + " failed");
  std::fprintf(stderr, "exported %lld records\n", static_cast<long long>(n));
  return 0;
}

int cmd_import(const std::vector<std::string>& argv) {
  Args args("tunefarm import", "Read tuning records (JSON lines, as export writes them) into a database. Records already there\n"
                      "are skipped; unreadable lines are counted and skipped, never half-imported.");
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
  int64_t added = 0, present = 0, bad = 0, line_no = 0;
  std::string line, first_error;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      db::Measurement m = db::Measurement::from_json(parse_json(line));
      (database.record(m) ? added : present)++;
    } catch (const std::exception& e) {
      if (first_error.empty()) first_error = "line " + std::to_string(line_no) + ": " + e.what();
      ++bad;
    }
  }
  if (args.flag_set("json")) {
    Json out = Json::object();
    out["added"] = added;
    out["already_present"] = present;
    out["bad_lines"] = bad;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("imported %lld records, %lld already present, %lld bad lines skipped\n", static_cast<long long>(added),
                static_cast<long long>(present), static_cast<long long>(bad));
  }
  if (bad) std::fprintf(stderr, "tunefarm import: first bad line: %s\n", first_error.c_str());
  return bad ? 1 : 0;
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
  require_db(args.get("db"));
  db::Database database(args.get("db"));
  std::vector<Series> series;
  for (const auto& job : database.jobs()) {
    // Only jobs of `tunefarm tune` have one op and shape; a tracker job's spec has a workloads list.
    const Json& spec = job.spec;
    if (!spec.is_object()) continue;
    if (spec.value("op", Json()) != task->workload().op) continue;
    if (spec.value("shape", Json()) != Json(task->workload().shape)) continue;
    Series line;
    const Json tuner = spec.value("tuner", Json());
    line.label = (tuner.is_string() ? tuner.get<std::string>() : std::string("job")) + " (job " + std::to_string(job.id) + ")";
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
