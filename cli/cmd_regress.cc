// tunefarm baseline save|list|show|delete and tunefarm regress: CI regression runs (regress/).
// Exit codes: 0 nothing slower, 1 something slower (or broken), 2 the run failed or bad input.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/fleet_comparer.h"
#include "cli/model_regress.h"
#include "cli/open_db.h"
#include "cli/tracker_client.h"
#include "compiler/compiler.h"
#include "db/database.h"
#include "regress/regression_run.h"
#include "regress/report.h"
#include "support/json.h"
#include "tuner/best_configs.h"
#include "tuner/tune_job.h"

namespace tf::cli {
namespace {

// What baseline save and regress share: the suite, the db, where to measure and how.
struct RunOptions {
  std::string suite, db = "tunefarm.db", key, target;
  bool local = false, json = false;
  int rounds = 15;
  double min_ms = 50, timeout_s = 10;
  int64_t tune_missing = 0;
  TrackerArgs tracker;
  ModelRegressArgs model;  // --model: a whole model instead of the suite
  CLI::Option *key_option = nullptr, *target_option = nullptr, *rounds_option = nullptr;
};

void add_run_options(CLI::App& a, RunOptions& o) {
  a.add_option("--suite", o.suite,
               "the suite: workloads, thresholds, where (docs/ci.md; sample bench/suites/ci.json); or --model")
      ->type_name("FILE");
  add_model_regress_options(a, o.model);
  a.add_option("--db", o.db,
               "tuning database (best configs and baselines): a SQLite file or postgresql://USER@HOST:PORT/NAME")
      ->type_name("PATH|URL");
  a.add_flag("--local", o.local, "measure in a worker process on this host");
  o.key_option = a.add_option("--key", o.key,
                              "measure on a board of this device key, via --tracker (default: the suite's \"key\")")
                     ->type_name("KEY");
  o.target_option =
      a.add_option("--target", o.target, "with --local: the target to build for (default: the suite's, else this host)")
          ->type_name("TARGET");
  o.rounds_option = a.add_option("--rounds", o.rounds,
                                 "interleaved rounds (regress) or timings (baseline save) per workload "
                                 "(default: the suite's, else 15; 6 is the least a 95% interval needs)")
                        ->type_name("N")
                        ->check(CLI::Range(6, 1000));
  a.add_option("--min-ms", o.min_ms, "each timing repeats the kernel until it lasts this long")
      ->type_name("MS")
      ->check(CLI::Range(1.0, 10000.0));
  a.add_option("--timeout", o.timeout_s, "hard limit per timing, seconds")
      ->type_name("S")
      ->check(CLI::Range(1.0, 3600.0));
  a.add_option("--tune-missing", o.tune_missing,
               "tune a workload with no tuned config for N xgb trials first (0: only report it)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000}));
  add_tracker_options(a, o.tracker);
}

// Where the kernels are measured, from the options and the suite.
struct Where {
  std::unique_ptr<TrackerClient> client;
  std::unique_ptr<regress::Comparer> comparer;
  FleetComparer* fleet = nullptr;
};

Where where_from(const RunOptions& o, const regress::Suite& suite) {
  Where w;
  const bool local = o.local;
  const bool key_given = o.key_option->count() > 0;
  const std::string key = key_given ? o.key : suite.key;
  if (local && key_given) throw UsageError("--local and --key: choose one (a host worker, or the boards of a key)");
  if (local || (key.empty() && !o.tracker.address_option->count())) {
    if (!local)
      throw UsageError("say where to measure: --local, or --tracker HOST:PORT --key KEY (or \"key\" in the suite)");
    const std::string target = o.target_option->count() ? o.target : suite.target.empty() ? "llvm" : suite.target;
    w.comparer = std::make_unique<regress::LocalComparer>(codegen::parse_target(target).str(), suite.threads);
    return w;
  }
  if (key.empty()) throw UsageError("--tracker needs --key KEY (or \"key\" in the suite): the boards to measure on");
  w.client = std::make_unique<TrackerClient>(o.tracker);
  auto fleet = std::make_unique<FleetComparer>(*w.client, key);
  w.fleet = fleet.get();
  w.comparer = std::move(fleet);
  return w;
}

// --model runs on this host: no suite, no board.
void check_model_run(const RunOptions& o) {
  if (!o.suite.empty()) throw UsageError("--suite and --model: choose one (kernels of a suite, or a whole model)");
  if (o.key_option->count() || o.tracker.address_option->count()) {
    throw UsageError("--model measures on this host (--local); a model on the boards of a key is not supported yet");
  }
}

regress::Suite suite_of(const RunOptions& o) {
  if (o.suite.empty()) throw UsageError("--suite FILE (kernels) or --model M.onnx (a whole model) is required");
  return regress::load_suite(o.suite);
}

regress::RunSettings settings_from(const RunOptions& o, const regress::Suite& suite) {
  regress::RunSettings s;
  s.rounds = o.rounds_option->count() ? o.rounds : suite.rounds;
  s.measure.min_repeat_ms = o.min_ms;
  s.measure.timeout_s = o.timeout_s;
  return s;
}

void say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

// The config to build: the db's best on this target and key (timed warm, as regress times, else
// of any timing), else the tracker's, else (with
// --tune-missing) one tuned now, else the db's best on another key of a machine of the same kind
// (same triple and CPU: a config tuned with `tunefarm tune` on the host a local fleet runs on).
regress::BestConfigFn best_config(db::Database& db, Where& where, int64_t tune_missing) {
  return [&db, &where, tune_missing](const regress::SuiteWorkload& sw) -> std::optional<Json> {
    const auto& w = sw.workload;
    auto from_db = [&]() -> std::optional<Json> {
      const tuner::BestConfigs best(&db, where.comparer->target(), where.comparer->device_key(),
                                    runtime::ColdInputs::Off);
      if (auto config = best.config(w)) return parse_json(*config);
      if (where.fleet) return where.fleet->best(w);
      return std::nullopt;
    };
    if (auto c = from_db()) return c;
    if (tune_missing > 0) {
      if (where.fleet) {
        where.fleet->tune(w, tune_missing, say);
      } else {
        say(sw.name + ": no tuned config; tuning it first (" + std::to_string(tune_missing) + " xgb trials)");
        compiler::Task task(w, codegen::parse_target(where.comparer->target()));
        tuner::TuneOptions o;
        o.tuner = "xgb";
        o.trials = tune_missing;
        o.device_key = where.comparer->device_key();
        o.threads = o.device_key == "local" ? 1 : std::stoi(o.device_key.substr(6));  // local-Nt
        tuner::tune(task, o, &db);
      }
      return from_db();
    }
    const codegen::Target here = codegen::parse_target(where.comparer->target());
    for (const auto& m : db.best_per_target(w.op, w.shape)) {
      try {
        if (!codegen::same_kind(codegen::parse_target(m.target), here)) continue;
      } catch (const std::exception&) {
        continue;  // a target this LLVM does not know is not this machine's kind
      }
      say(sw.name + ": no config tuned for key " + where.comparer->device_key() + "; using the best tuned under key " +
          m.device_key + " on a machine of the same kind (" + here.cpu + ")");
      return m.config;
    }
    return std::nullopt;
  };
}

std::string date_of(int64_t ms) {
  const time_t t = static_cast<time_t>(ms / 1000);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", std::gmtime(&t));
  return buf;
}

Json baseline_json(const db::Baseline& b, bool with_size) {
  Json j = Json::object();
  j["name"] = b.name;
  j["workload"] = b.workload_key();
  j["target"] = b.target;
  j["device_key"] = b.device_key;
  j["device"] = b.device;
  j["config"] = b.config;
  j["compiler_version"] = b.compiler_version;
  j["gflops"] = regress::gflops_of(ops::Workload{b.op, b.shape}, b.costs);
  Json costs = Json::array();
  for (double c : b.costs) costs.push_back(c);
  j["costs"] = costs;
  j["measure"] = b.measure;
  if (with_size) j["library_bytes"] = static_cast<int64_t>(b.library.size());
  j["created"] = date_of(b.created_ms);
  return j;
}

struct SaveOptions {
  RunOptions run;
  std::string name;
  bool replace = false;
};

int baseline_save(const SaveOptions& so) {
  const RunOptions& o = so.run;
  const std::string& name = so.name;
  if (!o.model.model.empty()) {
    check_model_run(o);
    return save_model_baseline(o.model, o.db, name, so.replace, o.rounds, o.json);
  }
  const regress::Suite suite = suite_of(o);
  const auto settings = settings_from(o, suite);
  Where where = where_from(o, suite);
  auto db_handle = open_or_create_db(o.db);
  db::Database& db = *db_handle;
  say("measuring on " + where.comparer->where() + "; timing isolation: " + where.comparer->timing_isolation());
  auto saved = regress::save_baseline(name, suite, *where.comparer, best_config(db, where, o.tune_missing), db,
                                      so.replace, settings, say);
  int stored = 0, failed = 0;
  for (const auto& s : saved) {
    stored += s.status == "saved";
    failed += s.status == "failed";
  }
  const bool ok = failed == 0 && stored > 0;
  if (o.json) {
    Json out = Json::object();
    out["baseline"] = name;
    out["stored"] = ok;
    Json list = Json::array();
    for (const auto& s : saved) {
      Json j = Json::object();
      j["name"] = s.name;
      j["workload"] = s.workload_key;
      j["status"] = s.status;
      if (!s.error.empty()) j["error"] = s.error;
      j["config"] = s.config;
      j["gflops"] = s.gflops;
      list.push_back(j);
    }
    out["workloads"] = list;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    for (const auto& s : saved) {
      std::printf("%-20s %-8s %8.1f GFLOPS  %s\n", s.name.c_str(), s.status.c_str(), s.gflops,
                  s.status == "saved" ? s.config.dump().c_str() : s.error.c_str());
    }
    if (ok) {
      std::printf("baseline '%s' saved: %d workload(s), compiler %s, in %s\n", name.c_str(), stored,
                  compiler::version().c_str(), db::shown_location(o.db).c_str());
    }
  }
  if (!ok) {
    std::fprintf(stderr, "tunefarm baseline save: nothing stored: %s\n",
                 failed ? "a workload failed (see above)"
                        : "no workload of the suite has a tuned config (tune them, or --tune-missing N)");
    return 2;
  }
  return 0;
}

// baseline list, show and delete: a db, and a baseline's name for show and delete.
struct BaselineOptions {
  std::string db = "tunefarm.db", name;
  bool json = false;
};

int baseline_list(const BaselineOptions& o) {
  auto db_handle = open_existing_db(o.db, DbUse::Read);
  db::Database& db = *db_handle;
  std::map<std::string, std::vector<db::Baseline>> by_name;
  for (auto& b : db.baselines()) by_name[b.name].push_back(std::move(b));
  Json list = Json::array();
  for (const auto& [name, entries] : by_name) {
    std::set<std::string> compilers, devices;
    int64_t created = 0;
    for (const auto& e : entries) {
      compilers.insert(e.compiler_version);
      devices.insert(e.device_key);
      created = std::max(created, e.created_ms);
    }
    Json j = Json::object();
    j["name"] = name;
    j["workloads"] = static_cast<int64_t>(entries.size());
    std::string cs, ds;
    for (const auto& c : compilers) cs += (cs.empty() ? "" : ", ") + c;
    for (const auto& d : devices) ds += (ds.empty() ? "" : ", ") + d;
    j["compiler_version"] = cs;
    j["device_key"] = ds;
    j["created"] = date_of(created);
    list.push_back(j);
  }
  const Json models = model_baselines_json(o.db);
  if (o.json) {
    for (Json m : models) {
      m["kind"] = "model";
      list.push_back(m);
    }
    std::printf("%s\n", list.dump(2).c_str());
    return 0;
  }
  for (const auto& m : models) {
    std::printf("model baseline %-16s %s (%s), %.3f ms, key %s, compiler %s\n", m.at("name").get<std::string>().c_str(),
                m.at("model").get<std::string>().c_str(), m.at("input_shapes").get<std::string>().c_str(),
                m.at("median_ms").get<double>(), m.at("device_key").get<std::string>().c_str(),
                m.at("compiler_version").get<std::string>().c_str());
  }
  if (by_name.empty()) {
    if (models.empty())
      std::printf("no baselines in %s (tunefarm baseline save NAME --suite FILE | --model M.onnx ...)\n",
                  db::shown_location(o.db).c_str());
  } else {
    std::printf("%-16s %9s  %-16s %-16s %s\n", "name", "workloads", "created (UTC)", "device key", "compiler");
    for (const auto& j : list) {
      std::printf("%-16s %9lld  %-16s %-16s %s\n", j.at("name").get<std::string>().c_str(),
                  static_cast<long long>(j.at("workloads").get<int64_t>()), j.at("created").get<std::string>().c_str(),
                  j.at("device_key").get<std::string>().c_str(), j.at("compiler_version").get<std::string>().c_str());
    }
  }
  return 0;
}

int baseline_show(const BaselineOptions& o) {
  auto db_handle = open_existing_db(o.db, DbUse::Read);
  db::Database& db = *db_handle;
  const auto entries = db.baseline(o.name);
  if (entries.empty())
    throw UsageError("no baseline named '" + o.name + "' in " + db::shown_location(o.db) + " (tunefarm baseline list)");
  Json list = Json::array();
  for (const auto& b : entries) list.push_back(baseline_json(b, true));
  if (o.json) {
    std::printf("%s\n", list.dump(2).c_str());
    return 0;
  }
  for (const auto& j : list) {
    std::printf(
        "%s  %.1f GFLOPS (median of %zu timings)  key %s, %s\n  config %s\n  compiler %s, library %lld bytes, saved %s UTC\n",
        j.at("workload").get<std::string>().c_str(), j.at("gflops").get<double>(), j.at("costs").size(),
        j.at("device_key").get<std::string>().c_str(), j.at("device").get<std::string>().c_str(),
        j.at("config").dump().c_str(), j.at("compiler_version").get<std::string>().c_str(),
        static_cast<long long>(j.at("library_bytes").get<int64_t>()), j.at("created").get<std::string>().c_str());
  }
  return 0;
}

int baseline_delete(const BaselineOptions& o) {
  auto db_handle = open_existing_db(o.db, DbUse::Write);
  db::Database& db = *db_handle;
  const bool kernels = db.delete_baseline(o.name), model = db.delete_model_baseline(o.name);
  if (!kernels && !model) throw UsageError("no baseline named '" + o.name + "' in " + db::shown_location(o.db));
  std::printf("baseline '%s' deleted\n", o.name.c_str());
  return 0;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw regress::RunError("cannot write " + path);
}

struct RegressOptions {
  RunOptions run;
  std::string baseline, threshold, junit, json, markdown;
};

regress::RegressReport suite_regress(const RegressOptions& ro, std::optional<double> threshold) {
  const RunOptions& o = ro.run;
  const regress::Suite suite = suite_of(o);
  auto settings = settings_from(o, suite);
  if (threshold) settings.threshold = threshold;
  // A run reads the baseline; tuning a workload the database lacks writes its measurements.
  auto db_handle = open_existing_db(o.db, o.tune_missing > 0 ? DbUse::Write : DbUse::Read);
  db::Database& db = *db_handle;
  if (db.baseline(ro.baseline).empty()) {
    throw regress::RunError("no baseline named '" + ro.baseline + "' in " + db::shown_location(o.db) +
                            " (tunefarm baseline list)");
  }
  Where where = where_from(o, suite);
  say("measuring on " + where.comparer->where() + "; timing isolation: " + where.comparer->timing_isolation());
  return regress::run_regress(ro.baseline, suite, *where.comparer, best_config(db, where, o.tune_missing), db, settings,
                              say);
}

int regress_command(const RegressOptions& ro) {
  const RunOptions& o = ro.run;
  try {
    std::optional<double> threshold;
    if (!ro.threshold.empty()) threshold = regress::parse_threshold(ro.threshold, "--threshold");
    const regress::RegressReport report = o.model.model.empty() ? suite_regress(ro, threshold) : [&] {
      check_model_run(o);
      return model_regress(o.model, o.db, ro.baseline, threshold, o.rounds);
    }();
    const std::string md = regress::to_markdown(report);
    std::printf("%s", md.c_str());
    if (!ro.markdown.empty()) write_file(ro.markdown, md);
    if (!ro.junit.empty()) write_file(ro.junit, regress::to_junit(report));
    if (!ro.json.empty()) write_file(ro.json, regress::to_json(report).dump(2) + "\n");
    return report.exit_code();
  } catch (const regress::SuiteError& e) {
    std::fprintf(stderr, "tunefarm regress: %s\n", e.what());
  } catch (const regress::RunError& e) {
    std::fprintf(stderr, "tunefarm regress: %s\n", e.what());
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tunefarm regress: %s\n", e.what());
  } catch (const std::exception& e) {
    // Whatever else went wrong, the run failed: CI must not read it as a verdict.
    std::fprintf(stderr, "tunefarm regress: the run failed: %s\n", e.what());
  }
  return 2;
}

// Suite and run errors are the run failing (exit 2), reported as one line.
int reporting_run_errors(const std::string& command, const std::function<int()>& run) {
  try {
    return run();
  } catch (const regress::SuiteError& e) {
    std::fprintf(stderr, "%s: %s\n", command.c_str(), e.what());
  } catch (const regress::RunError& e) {
    std::fprintf(stderr, "%s: %s\n", command.c_str(), e.what());
  }
  return 2;
}

void add_baseline(CLI::App& tunefarm, Commands& commands) {
  CLI::App* baseline =
      tunefarm.add_subcommand("baseline", "save, list, show or delete a named baseline for CI regression runs");
  baseline->require_subcommand(1);
  {
    auto o = std::make_shared<SaveOptions>();
    CLI::App* cmd = baseline->add_subcommand("save", "build, measure and store the suite's best configs under NAME");
    cmd->footer(
        "Builds each suite workload's best config with this compiler, measures it, and stores the config, compiler\n"
        "version, timings and the library itself under NAME (--local | --tracker HOST:PORT --key KEY).");
    cmd->add_option("name", o->name, "the baseline's name")->required()->type_name("NAME");
    add_run_options(*cmd, o->run);
    cmd->add_flag("--replace", o->replace, "overwrite a baseline of the same name");
    cmd->add_flag("--json", o->run.json, "print the result as JSON");
    commands.on(cmd, [o] { return reporting_run_errors("tunefarm baseline save", [o] { return baseline_save(*o); }); });
  }
  {
    auto o = std::make_shared<BaselineOptions>();
    CLI::App* cmd = baseline->add_subcommand("list", "the baselines in a database");
    cmd->add_option("--db", o->db, "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
        ->type_name("PATH|URL");
    cmd->add_flag("--json", o->json, "print as JSON");
    commands.on(cmd, [o] { return baseline_list(*o); });
  }
  {
    auto o = std::make_shared<BaselineOptions>();
    CLI::App* cmd =
        baseline->add_subcommand("show", "a baseline's workloads: config, compiler, measured GFLOPS, where");
    cmd->add_option("name", o->name, "the baseline's name")->required()->type_name("NAME");
    cmd->add_option("--db", o->db, "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
        ->type_name("PATH|URL");
    cmd->add_flag("--json", o->json, "print as JSON");
    commands.on(cmd, [o] { return baseline_show(*o); });
  }
  {
    auto o = std::make_shared<BaselineOptions>();
    CLI::App* cmd = baseline->add_subcommand("delete", "delete a baseline (its measurements and libraries)");
    cmd->add_option("name", o->name, "the baseline's name")->required()->type_name("NAME");
    cmd->add_option("--db", o->db, "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME")
        ->type_name("PATH|URL");
    commands.on(cmd, [o] { return baseline_delete(*o); });
  }
}

}  // namespace

void add_regress(CLI::App& tunefarm, Commands& commands) {
  add_baseline(tunefarm, commands);
  auto o = std::make_shared<RegressOptions>();
  CLI::App* cmd = tunefarm.add_subcommand(
      "regress", "compare this compiler's kernels with a baseline's, side by side (exit 1: slower)");
  cmd->footer(
      "Builds each suite workload's config with this compiler and measures it side by side with the baseline's\n"
      "stored library, interleaved on one machine; decides faster / unchanged / slower from the median paired\n"
      "speed ratio and its 95% interval. Exit 0: nothing slower; 1: slower; 2: the run failed.");
  add_run_options(*cmd, o->run);
  cmd->add_option("--baseline", o->baseline, "the baseline to compare with (tunefarm baseline list shows them)")
      ->type_name("NAME")
      ->required();
  cmd->add_option("--threshold", o->threshold,
                  "slower/faster only beyond this (e.g. 5% or 0.05; default: the suite's, else 5%)")
      ->type_name("T");
  cmd->add_option("--junit", o->junit, "write JUnit XML")->type_name("FILE");
  cmd->add_option("--json", o->json, "write the report as JSON")->type_name("FILE");
  cmd->add_option("--markdown", o->markdown, "write the markdown summary (it is printed too)")->type_name("FILE");
  commands.on(cmd, [o] { return regress_command(*o); });
}

}  // namespace tf::cli
