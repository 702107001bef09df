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

// What the reading commands share: the workload, the database, the thread count it was tuned with.
struct ReadOptions {
  WorkloadArgs workload;
  std::string db = "tunefarm.db";
  int threads = 1;
  bool json = false;
};

void add_read_options(CLI::App& cmd, ReadOptions& o, const std::string& json_help) {
  add_workload_options(cmd, o.workload);
  cmd.add_option("--db", o.db, "tuning database")->type_name("PATH");
  add_threads_option(cmd, o.threads, "the thread count it was tuned with (each is tuned apart)");
  cmd.add_flag("--json", o.json, json_help);
}

struct BestOptions {
  ReadOptions read;
  std::string key;
  TrackerArgs tracker;
  CLI::Option* key_option = nullptr;
};

int best_command(const BestOptions& b) {
  const ReadOptions& o = b.read;
  if (b.key_option->count() || b.tracker.address_option->count()) {
    if (!b.key_option->count()) throw UsageError("--tracker needs --key: the boards whose best you want");
    if (o.workload.shape.empty()) throw UsageError("give --op and --shape");
    return best_from_tracker(b.tracker, b.key, o.workload.op, o.workload.shape, o.json);
  }
  auto task = make_task(o.workload);
  require_db(o.db);
  db::Database database(o.db);
  auto best = database.best(task->workload().op, task->workload().shape, task->target().str(), device_key_of(o.threads));
  if (!best) {
    std::fprintf(stderr, "tunefarm best: no successful measurement of %s on %s in %s\n", task->workload().str().c_str(),
                 task->target().str().c_str(), o.db.c_str());
    return 1;
  }
  if (o.json) {
    json::Value out = best->to_json();
    out.set("gflops", gflops_of(*best, *task));
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s  %.1f GFLOPS  config %s\n", task->workload().str().c_str(), gflops_of(*best, *task),
                best->config.dump().c_str());
  }
  return 0;
}

int history_command(const ReadOptions& o) {
  auto task = make_task(o.workload);
  require_db(o.db);
  db::Database database(o.db);
  int64_t n = 0;
  double best = 0;
  for (const auto& m : database.history(task->workload().op, task->workload().shape, task->target().str(), device_key_of(o.threads))) {
    ++n;
    const double g = m.outcome == db::Outcome::Ok ? gflops_of(m, *task) : 0;
    best = std::max(best, g);
    if (o.json) {
      std::printf("%s\n", m.to_json().dump().c_str());
    } else {
      std::printf("%5lld  %-13s %8.1f GFLOPS  best %8.1f  %s\n", static_cast<long long>(n), db::outcome_name(m.outcome), g,
                  best, m.config.dump().c_str());
    }
  }
  return 0;
}

struct FileOptions {
  std::string db = "tunefarm.db";
  std::string file;
  bool json = false;
};

int export_command(const FileOptions& o) {
  require_db(o.db);
  db::Database database(o.db);
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (o.file != "-") {
    file.open(o.file);
    if (!file) throw UsageError("cannot write " + o.file);
    out = &file;
  }
  int64_t n = 0;
  for (const auto& m : database.all_measurements()) {
    *out << m.to_json().dump() << "\n";
    ++n;
  }
  out->flush();
  if (!*out) throw std::runtime_error("writing " + o.file + " failed");
  std::fprintf(stderr, "exported %lld records\n", static_cast<long long>(n));
  return 0;
}

int import_command(const FileOptions& o) {
  const std::string& file = o.file;
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file);
  db::Database database(o.db);
  int64_t added = 0, present = 0, bad = 0, line_no = 0;
  std::string line, first_error;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      db::Measurement m = db::Measurement::from_json(json::parse(line));
      (database.record(m) ? added : present)++;
    } catch (const std::exception& e) {
      if (first_error.empty()) first_error = "line " + std::to_string(line_no) + ": " + e.what();
      ++bad;
    }
  }
  if (o.json) {
    json::Value out = json::Value::object();
    out.set("added", added);
    out.set("already_present", present);
    out.set("bad_lines", bad);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("imported %lld records, %lld already present, %lld bad lines skipped\n", static_cast<long long>(added),
                static_cast<long long>(present), static_cast<long long>(bad));
  }
  if (bad) std::fprintf(stderr, "tunefarm import: first bad line: %s\n", first_error.c_str());
  return bad ? 1 : 0;
}

struct PlotOptions {
  WorkloadArgs workload;
  std::string db = "tunefarm.db";
  std::string output = "curve.svg";
};

int plot_command(const PlotOptions& o) {
  auto task = make_task(o.workload);
  require_db(o.db);
  db::Database database(o.db);
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
    std::fprintf(stderr, "tunefarm plot: no tuning runs of %s in %s\n", task->workload().str().c_str(), o.db.c_str());
    return 1;
  }
  std::ofstream out(o.output);
  out << line_chart_svg(task->workload().str() + ": best GFLOPS so far", "trial", "GFLOPS", series);
  out.close();
  if (!out) throw UsageError("cannot write " + o.output);
  std::printf("wrote %s (%zu runs)\n", o.output.c_str(), series.size());
  return 0;
}

}  // namespace

void add_records(CLI::App& tunefarm, Commands& commands) {
  {
    auto o = std::make_shared<BestOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("best", "the best measured config of a workload on a target, from the database");
    add_read_options(*cmd, o->read, "print JSON");
    o->key_option = cmd->add_option("--key", o->key, "ask the tracker for the best on the boards of this key instead")->type_name("KEY");
    add_tracker_options(*cmd, o->tracker);
    commands.on(cmd, [o] { return best_command(*o); });
  }
  {
    auto o = std::make_shared<ReadOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("history", "every measurement of a workload on a target, oldest first");
    add_read_options(*cmd, *o, "print JSON lines");
    commands.on(cmd, [o] { return history_command(*o); });
  }
  {
    auto o = std::make_shared<FileOptions>();
    o->file = "-";
    CLI::App* cmd = tunefarm.add_subcommand("export", "write every tuning record of a database as JSON lines (one measurement per line)");
    cmd->add_option("--db", o->db, "tuning database")->type_name("PATH");
    cmd->add_option("-o,--output", o->file, "output file; - for stdout")->type_name("FILE");
    commands.on(cmd, [o] { return export_command(*o); });
  }
  {
    auto o = std::make_shared<FileOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("import", "read tuning records (JSON lines, as export writes them) into a database");
    cmd->footer("Records already there are skipped; unreadable lines are counted and skipped, never half-imported.");
    cmd->add_option("file", o->file, "the JSON lines to read (as tunefarm export writes them)")->required()->type_name("FILE");
    cmd->add_option("--db", o->db, "tuning database (created when missing)")->type_name("PATH");
    cmd->add_flag("--json", o->json, "print counts as JSON");
    commands.on(cmd, [o] { return import_command(*o); });
  }
  {
    auto o = std::make_shared<PlotOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("plot", "best-so-far GFLOPS per tuning run of a workload, as an SVG chart");
    add_workload_options(*cmd, o->workload);
    cmd->add_option("--db", o->db, "tuning database")->type_name("PATH");
    cmd->add_option("-o,--output", o->output, "the SVG to write")->type_name("FILE");
    commands.on(cmd, [o] { return plot_command(*o); });
  }
}

}  // namespace tf::cli
