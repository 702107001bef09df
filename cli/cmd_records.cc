// Reading the database: best, history, export and import of tuning records as JSON lines.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/open_db.h"
#include "cli/tracker_client.h"
#include "cli/workload_args.h"
#include "db/database.h"
#include "support/svg_chart.h"
#include "tuner/record_check.h"
#include "tuner/record_line.h"

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

// What the reading commands share: the workload, the database, the thread count it was tuned with,
// the timing of the records to read.
struct ReadOptions {
  WorkloadArgs workload;
  std::string db = "tunefarm.db";
  int threads = 1;
  bool json = false;
  std::string timing;  // empty: any
  CLI::Option* timing_option = nullptr;
};

void add_read_options(CLI::App& cmd, ReadOptions& o, const std::string& json_help, const std::string& timing_help) {
  add_workload_options(cmd, o.workload);
  cmd.add_option("--db", o.db, "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
      ->type_name("PATH|URL");
  add_threads_option(cmd, o.threads, "the thread count it was tuned with (each is tuned apart)");
  o.timing_option = add_timing_option(cmd, o.timing, timing_help);
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
    const auto timing = timing_of_option(o.timing);
    return best_from_tracker(b.tracker, b.key, o.workload.op, parse_shape_option(o.workload.op, o.workload.shape),
                             timing ? runtime::timing_name(*timing) : "", o.json);
  }
  auto task = make_task(o.workload);
  auto db_handle = open_existing_db(o.db, DbUse::Read);
  db::Database& database = *db_handle;
  const auto timing = timing_of_option(o.timing);
  auto best = database.best(task->workload().op, task->workload().shape, task->target().str(), device_key_of(o.threads),
                            timing);
  if (!best) {
    std::fprintf(stderr, "tunefarm best: no successful measurement of %s on %s%s in %s\n",
                 task->workload().str().c_str(), task->target().str().c_str(),
                 timing ? (std::string(" timed ") + runtime::timing_name(*timing)).c_str() : "",
                 db::shown_location(o.db).c_str());
    return 1;
  }
  if (o.json) {
    Json out = best->to_json();
    out["gflops"] = gflops_of(*best, *task);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s  %.1f GFLOPS  %s  config %s\n", task->workload().str().c_str(), gflops_of(*best, *task),
                runtime::timing_name(best->timing), best->config.dump().c_str());
  }
  return 0;
}

int history_command(const ReadOptions& o) {
  auto task = make_task(o.workload);
  auto db_handle = open_existing_db(o.db, DbUse::Read);
  db::Database& database = *db_handle;
  int64_t n = 0;
  // A running best per timing: a warm record's speed is no bar for a cold one's.
  std::map<runtime::ColdInputs, double> best_by_timing;
  const auto timing = timing_of_option(o.timing);
  for (const auto& m : database.history(task->workload().op, task->workload().shape, task->target().str(),
                                        device_key_of(o.threads), timing)) {
    ++n;
    const double g = m.outcome == db::Outcome::Ok ? gflops_of(m, *task) : 0;
    double& best = best_by_timing[m.timing];
    best = std::max(best, g);
    if (o.json) {
      std::printf("%s\n", m.to_json().dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    } else {
      std::printf("%5lld  %-13s %-12s %8.1f GFLOPS  best %8.1f  %s\n", static_cast<long long>(n),
                  db::outcome_name(m.outcome), runtime::timing_name(m.timing), g, best, m.config.dump().c_str());
    }
  }
  note_skipped("tunefarm history", database);
  return 0;
}

struct FileOptions {
  std::string db = "tunefarm.db";
  std::string file;
  bool json = false;
};

int export_command(const FileOptions& o) {
  auto db_handle = open_existing_db(o.db, DbUse::Read);
  db::Database& database = *db_handle;
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (o.file != "-") {
    file.open(o.file);
    if (!file) throw UsageError("cannot write " + o.file);
    out = &file;
  }
  int64_t n = 0;
  for (const auto& m : database.all_measurements()) {
    *out << m.to_json().dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
    ++n;
  }
  out->flush();
  if (!*out) throw std::runtime_error("writing " + o.file + " failed");
  std::fprintf(stderr, "exported %lld records\n", static_cast<long long>(n));
  note_skipped("tunefarm export", database);
  return 0;
}

int import_command(const FileOptions& o) {
  const std::string& file = o.file;
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file);
  auto db_handle = open_or_create_db(o.db);
  db::Database& database = *db_handle;
  tuner::RecordChecker checker;
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
    const tuner::RecordLine read = tuner::read_record_line(line, checker);
    switch (read.verdict) {
      case tuner::RecordLine::Verdict::Blank: break;
      case tuner::RecordLine::Verdict::Unreadable: reject(&bad, read.why); break;
      case tuner::RecordLine::Verdict::Refused: reject(&refused, read.why); break;
      case tuner::RecordLine::Verdict::Ok: (database.record(read.record) ? added : present)++; break;
    }
  }
  if (o.json) {
    Json out = Json::object();
    out["added"] = added;
    out["already_present"] = present;
    out["bad_lines"] = bad;
    out["refused"] = refused;
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

struct PlotOptions {
  WorkloadArgs workload;
  int threads = 1;
  std::string db = "tunefarm.db";
  std::string output = "curve.svg";
};

int plot_command(const PlotOptions& o) {
  auto task = make_task(o.workload);
  auto db_handle = open_existing_db(o.db, DbUse::Read);
  db::Database& database = *db_handle;
  const std::string target = task->target().str(), device_key = device_key_of(o.threads);
  std::vector<ChartSeries> series;
  for (const auto& job : database.jobs()) {
    // Only jobs of `tunefarm tune` have one op and shape; a tracker job's spec has a workloads list.
    const Json& spec = job.spec;
    if (!spec.is_object()) continue;
    if (spec.value("op", Json()) != task->workload().op) continue;
    if (spec.value("shape", Json()) != Json(task->workload().shape)) continue;
    ChartSeries line;
    const Json tuner = spec.value("tuner", Json());
    line.label =
        (tuner.is_string() ? tuner.get<std::string>() : std::string("job")) + " (job " + std::to_string(job.id) + ")";
    double best = 0;
    for (const auto& m : database.job_measurements(job.id)) {
      // GFLOPS of another target or thread count are another curve's, not this one's.
      if (m.target != target || m.device_key != device_key) continue;
      if (m.outcome == db::Outcome::Ok) best = std::max(best, gflops_of(m, *task));
      line.y.push_back(best);
    }
    if (!line.y.empty()) series.push_back(std::move(line));
  }
  if (series.empty()) {
    std::fprintf(stderr, "tunefarm plot: no tuning runs of %s on %s at %d thread(s) in %s\n",
                 task->workload().str().c_str(), target.c_str(), o.threads, db::shown_location(o.db).c_str());
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
    CLI::App* cmd =
        tunefarm.add_subcommand("best", "the best measured config of a workload on a target, from the database");
    add_read_options(*cmd, o->read, "print JSON",
                     "only records timed so (default: any; a warm and a cold timing of one config differ)");
    o->key_option = cmd->add_option("--key", o->key, "ask the tracker for the best on the boards of this key instead")
                        ->type_name("KEY");
    add_tracker_options(*cmd, o->tracker);
    commands.on(cmd, [o] { return best_command(*o); });
  }
  {
    auto o = std::make_shared<ReadOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("history", "every measurement of a workload on a target, oldest first");
    add_read_options(*cmd, *o, "print JSON lines", "only records timed so (default: every one)");
    commands.on(cmd, [o] { return history_command(*o); });
  }
  {
    auto o = std::make_shared<FileOptions>();
    o->file = "-";
    CLI::App* cmd = tunefarm.add_subcommand(
        "export", "write every tuning record of a database as JSON lines (one measurement per line)");
    cmd->add_option("--db", o->db, "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
        ->type_name("PATH|URL");
    cmd->add_option("-o,--output", o->file, "output file; - for stdout")->type_name("FILE");
    commands.on(cmd, [o] { return export_command(*o); });
  }
  {
    auto o = std::make_shared<FileOptions>();
    CLI::App* cmd =
        tunefarm.add_subcommand("import", "read tuning records (JSON lines, as export writes them) into a database");
    cmd->footer(
        "Records already there are skipped. Each record is checked like a measurement: the op exists, the shape is\n"
        "valid for it, the target parses, every knob exists with one of its choices, a successful record's costs\n"
        "are finite, positive and at least 1 ns per run. Unreadable or refused lines are counted, the first few\n"
        "reported with their line numbers, and skipped, never half-imported; the valid ones are imported.\n"
        "Exit status: 0 when every line was imported or already present, 1 when any line was unreadable or\n"
        "refused, 2 for bad usage.");
    cmd->add_option("file", o->file, "the JSON lines to read (as tunefarm export writes them)")
        ->required()
        ->type_name("FILE");
    cmd->add_option(
           "--db", o->db,
           "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME (a file is created when missing)")
        ->type_name("PATH|URL");
    cmd->add_flag("--json", o->json, "print counts as JSON");
    commands.on(cmd, [o] { return import_command(*o); });
  }
  {
    auto o = std::make_shared<PlotOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("plot", "best-so-far GFLOPS per tuning run of a workload, as an SVG chart");
    add_workload_options(*cmd, o->workload);
    add_threads_option(*cmd, o->threads, "the thread count it was tuned with (each is tuned apart)");
    cmd->add_option("--db", o->db, "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
        ->type_name("PATH|URL");
    cmd->add_option("-o,--output", o->output, "the SVG to write")->type_name("FILE");
    commands.on(cmd, [o] { return plot_command(*o); });
  }
}

}  // namespace tf::cli
