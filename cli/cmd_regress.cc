// tunefarm baseline save|list|show|delete and tunefarm regress: CI regression runs (regress/).
// Exit codes: 0 nothing slower, 1 something slower (or broken), 2 the run failed or bad input.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/fleet_comparer.h"
#include "cli/tracker_client.h"
#include "compiler/compiler.h"
#include "db/database.h"
#include "regress/regression_run.h"
#include "regress/report.h"
#include "tuner/tune_job.h"

namespace tf::cli {
namespace {

void add_run_options(Args& a) {
  a.option("suite", "FILE", "the suite: workloads, thresholds, where (docs/ci.md; sample bench/suites/ci.json)")
      .option("db", "PATH", "tuning database (best configs and baselines)", "tunefarm.db")
      .flag("local", "measure in a worker process on this host")
      .option("key", "KEY", "measure on a board of this device key, via --tracker (default: the suite's \"key\")")
      .option("target", "TARGET", "with --local: the target to build for (default: the suite's, else this host)")
      .option("rounds", "N", "interleaved rounds (regress) or timings (baseline save) per workload (default: the suite's, else 15)")
      .option("min-ms", "MS", "each timing repeats the kernel until it lasts this long", "50")
      .option("timeout", "S", "hard limit per timing, seconds", "10")
      .option("tune-missing", "N", "tune a workload with no tuned config for N xgb trials first (0: only report it)", "0");
  add_tracker_options(a);
}

// Where the kernels are measured, from the options and the suite.
struct Where {
  std::unique_ptr<TrackerClient> client;
  std::unique_ptr<regress::Comparer> comparer;
  FleetComparer* fleet = nullptr;
};

Where where_from(const Args& args, const regress::Suite& suite) {
  Where w;
  const bool local = args.flag_set("local");
  const std::string key = args.has("key") ? args.get("key") : suite.key;
  if (local && args.has("key")) throw UsageError("--local and --key: choose one (a host worker, or the boards of a key)");
  if (local || (key.empty() && !args.has("tracker"))) {
    if (!local) throw UsageError("say where to measure: --local, or --tracker HOST:PORT --key KEY (or \"key\" in the suite)");
    const std::string target = args.has("target") ? args.get("target") : suite.target.empty() ? "llvm" : suite.target;
    w.comparer = std::make_unique<regress::LocalComparer>(codegen::parse_target(target).str(), suite.threads);
    return w;
  }
  if (key.empty()) throw UsageError("--tracker needs --key KEY (or \"key\" in the suite): the boards to measure on");
  w.client = std::make_unique<TrackerClient>(args);
  auto fleet = std::make_unique<FleetComparer>(*w.client, key);
  w.fleet = fleet.get();
  w.comparer = std::move(fleet);
  return w;
}

regress::RunSettings settings_from(const Args& args, const regress::Suite& suite) {
  regress::RunSettings s;
  s.rounds = args.has("rounds") ? static_cast<int>(args.get_int("rounds")) : suite.rounds;
  if (s.rounds < 6 || s.rounds > 1000) throw UsageError("--rounds must be between 6 and 1000 (6 is the least a 95% interval needs)");
  s.measure.min_repeat_ms = static_cast<double>(args.get_int("min-ms"));
  s.measure.timeout_s = static_cast<double>(args.get_int("timeout"));
  if (s.measure.min_repeat_ms < 1 || s.measure.min_repeat_ms > 10000) throw UsageError("--min-ms must be between 1 and 10000");
  if (s.measure.timeout_s < 1) throw UsageError("--timeout must be at least 1 second");
  if (args.get_int("tune-missing") < 0 || args.get_int("tune-missing") > 1000000) {
    throw UsageError("--tune-missing must be between 0 and 1000000 trials");
  }
  return s;
}

// Reading commands must not leave an empty database behind a mistyped path.
void require_db(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) throw UsageError("no database at " + path + " (--db PATH)");
}

void say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

// The config to build: the db's best on this target and key, else the tracker's, else (with
// --tune-missing) one tuned now, else the db's best on another key of a machine of the same kind
// (same triple and CPU: a config tuned with `tunefarm tune` on the host a local fleet runs on).
regress::BestConfigFn best_config(db::Database& db, Where& where, int64_t tune_missing) {
  return [&db, &where, tune_missing](const regress::SuiteWorkload& sw) -> std::optional<Json> {
    const auto& w = sw.workload;
    auto from_db = [&]() -> std::optional<Json> {
      if (auto m = db.best(w.op, w.shape, where.comparer->target(), where.comparer->device_key())) return m->config;
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
        const codegen::Target there = codegen::parse_target(m.target);
        if (there.triple != here.triple || there.cpu != here.cpu) continue;
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

std::string take_name(std::vector<std::string>& argv, const std::string& usage) {
  if (argv.empty() || argv.front().rfind("-", 0) == 0) throw UsageError("give the baseline's name: " + usage);
  std::string name = argv.front();
  argv.erase(argv.begin());
  return name;
}

int baseline_save(std::vector<std::string> argv) {
  const std::string usage = "tunefarm baseline save NAME --suite FILE (--local | --tracker HOST:PORT --key KEY)";
  if (!argv.empty() && (argv.front() == "--help" || argv.front() == "-h")) argv = {"--help"};
  Args args("tunefarm baseline save NAME", "Build each suite workload's best config with this compiler, measure it, and store the\n"
                                          "config, compiler version, timings and the library itself under NAME.");
  add_run_options(args);
  args.flag("replace", "overwrite a baseline of the same name").flag("json", "print the result as JSON");
  const std::string name = argv == std::vector<std::string>{"--help"} ? "" : take_name(argv, usage);
  if (!args.parse(argv)) return 0;
  if (!args.has("suite")) throw UsageError("--suite FILE is required");
  const regress::Suite suite = regress::load_suite(args.get("suite"));
  const auto settings = settings_from(args, suite);
  Where where = where_from(args, suite);
  db::Database db(args.get("db"));
  say("measuring on " + where.comparer->where() + "; timing isolation: " + where.comparer->timing_isolation());
  auto saved = regress::save_baseline(name, suite, *where.comparer, best_config(db, where, args.get_int("tune-missing")), db,
                                      args.flag_set("replace"), settings, say);
  int stored = 0, failed = 0;
  for (const auto& s : saved) {
    stored += s.status == "saved";
    failed += s.status == "failed";
  }
  const bool ok = failed == 0 && stored > 0;
  if (args.flag_set("json")) {
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
      std::printf("baseline '%s' saved: %d workload(s), compiler %s, in %s\n", name.c_str(), stored, compiler::version().c_str(),
                  args.get("db").c_str());
    }
  }
  if (!ok) {
    std::fprintf(stderr, "tunefarm baseline save: nothing stored: %s\n",
                 failed ? "a workload failed (see above)" : "no workload of the suite has a tuned config (tune them, or --tune-missing N)");
    return 2;
  }
  return 0;
}

int baseline_list(std::vector<std::string> argv) {
  Args args("tunefarm baseline list", "The baselines in a database.");
  args.option("db", "PATH", "tuning database", "tunefarm.db").flag("json", "print as JSON");
  if (!args.parse(argv)) return 0;
  require_db(args.get("db"));
  db::Database db(args.get("db"));
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
  if (args.flag_set("json")) {
    std::printf("%s\n", list.dump(2).c_str());
  } else if (by_name.empty()) {
    std::printf("no baselines in %s (tunefarm baseline save NAME --suite FILE ...)\n", args.get("db").c_str());
  } else {
    std::printf("%-16s %9s  %-16s %-16s %s\n", "name", "workloads", "created (UTC)", "device key", "compiler");
    for (const auto& j : list) {
      std::printf("%-16s %9lld  %-16s %-16s %s\n", j.at("name").get<std::string>().c_str(), static_cast<long long>(j.at("workloads").get<int64_t>()),
                  j.at("created").get<std::string>().c_str(), j.at("device_key").get<std::string>().c_str(), j.at("compiler_version").get<std::string>().c_str());
    }
  }
  return 0;
}

int baseline_show(std::vector<std::string> argv) {
  if (!argv.empty() && (argv.front() == "--help" || argv.front() == "-h")) argv = {"--help"};
  Args args("tunefarm baseline show NAME", "A baseline's workloads: config, compiler, measured GFLOPS, where.");
  args.option("db", "PATH", "tuning database", "tunefarm.db").flag("json", "print as JSON");
  const std::string name = argv == std::vector<std::string>{"--help"} ? "" : take_name(argv, "tunefarm baseline show NAME");
  if (!args.parse(argv)) return 0;
  require_db(args.get("db"));
  db::Database db(args.get("db"));
  const auto entries = db.baseline(name);
  if (entries.empty()) throw UsageError("no baseline named '" + name + "' in " + args.get("db") + " (tunefarm baseline list)");
  Json list = Json::array();
  for (const auto& b : entries) list.push_back(baseline_json(b, true));
  if (args.flag_set("json")) {
    std::printf("%s\n", list.dump(2).c_str());
    return 0;
  }
  for (const auto& j : list) {
    std::printf("%s  %.1f GFLOPS (median of %zu timings)  key %s, %s\n  config %s\n  compiler %s, library %lld bytes, saved %s UTC\n",
                j.at("workload").get<std::string>().c_str(), j.at("gflops").get<double>(), j.at("costs").size(),
                j.at("device_key").get<std::string>().c_str(), j.at("device").get<std::string>().c_str(), j.at("config").dump().c_str(),
                j.at("compiler_version").get<std::string>().c_str(), static_cast<long long>(j.at("library_bytes").get<int64_t>()),
                j.at("created").get<std::string>().c_str());
  }
  return 0;
}

int baseline_delete(std::vector<std::string> argv) {
  if (!argv.empty() && (argv.front() == "--help" || argv.front() == "-h")) argv = {"--help"};
  Args args("tunefarm baseline delete NAME", "Delete a baseline (its measurements and libraries).");
  args.option("db", "PATH", "tuning database", "tunefarm.db");
  const std::string name = argv == std::vector<std::string>{"--help"} ? "" : take_name(argv, "tunefarm baseline delete NAME");
  if (!args.parse(argv)) return 0;
  require_db(args.get("db"));
  db::Database db(args.get("db"));
  if (!db.delete_baseline(name)) throw UsageError("no baseline named '" + name + "' in " + args.get("db"));
  std::printf("baseline '%s' deleted\n", name.c_str());
  return 0;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw regress::RunError("cannot write " + path);
}

}  // namespace

int cmd_baseline(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  const std::string sub = argv.empty() ? "" : argv.front();
  if (!argv.empty()) argv.erase(argv.begin());
  try {
    if (sub == "save") return baseline_save(argv);
    if (sub == "list") return baseline_list(argv);
    if (sub == "show") return baseline_show(argv);
    if (sub == "delete") return baseline_delete(argv);
  } catch (const regress::SuiteError& e) {
    std::fprintf(stderr, "tunefarm baseline %s: %s\n", sub.c_str(), e.what());
    return 2;
  } catch (const regress::RunError& e) {
    std::fprintf(stderr, "tunefarm baseline %s: %s\n", sub.c_str(), e.what());
    return 2;
  }
  if (sub == "--help" || sub == "-h") {
    std::printf("usage: tunefarm baseline save|list|show|delete ...\n\n"
                "  save NAME --suite FILE (--local | --tracker HOST:PORT --key KEY)  build, measure and store the suite's best configs\n"
                "  list                                                             the baselines in the db\n"
                "  show NAME                                                        one baseline's workloads\n"
                "  delete NAME                                                      remove one\n"
                "Every subcommand takes --db PATH and --help.\n");
    return 0;
  }
  throw UsageError(sub.empty() ? "give a subcommand: save, list, show or delete" : "unknown subcommand '" + sub + "' (save, list, show, delete)");
}

int cmd_regress(const std::vector<std::string>& argv) {
  Args args("tunefarm regress", "Build each suite workload's config with this compiler and measure it side by side with the\n"
                                "baseline's stored library, interleaved on one machine; decide faster / unchanged / slower from the\n"
                                "median paired speed ratio and its 95% interval. Exit 0: nothing slower; 1: slower; 2: the run failed.");
  add_run_options(args);
  args.option("baseline", "NAME", "the baseline to compare with")
      .option("threshold", "T", "slower/faster only beyond this (e.g. 5% or 0.05; default: the suite's, else 5%)")
      .option("junit", "FILE", "write JUnit XML")
      .option("json", "FILE", "write the report as JSON")
      .option("markdown", "FILE", "write the markdown summary (it is printed too)");
  try {
    if (!args.parse(argv)) return 0;
    if (!args.has("suite")) throw UsageError("--suite FILE is required");
    if (!args.has("baseline")) throw UsageError("--baseline NAME is required (tunefarm baseline list shows them)");
    const regress::Suite suite = regress::load_suite(args.get("suite"));
    auto settings = settings_from(args, suite);
    if (args.has("threshold")) settings.threshold = regress::parse_threshold(args.get("threshold"), "--threshold");
    require_db(args.get("db"));
    db::Database db(args.get("db"));
    if (db.baseline(args.get("baseline")).empty()) {
      throw regress::RunError("no baseline named '" + args.get("baseline") + "' in " + args.get("db") + " (tunefarm baseline list)");
    }
    Where where = where_from(args, suite);
    say("measuring on " + where.comparer->where() + "; timing isolation: " + where.comparer->timing_isolation());
    const regress::RegressReport report = regress::run_regress(args.get("baseline"), suite, *where.comparer,
                                                               best_config(db, where, args.get_int("tune-missing")), db, settings, say);
    const std::string md = regress::to_markdown(report);
    std::printf("%s", md.c_str());
    if (args.has("markdown")) write_file(args.get("markdown"), md);
    if (args.has("junit")) write_file(args.get("junit"), regress::to_junit(report));
    if (args.has("json")) write_file(args.get("json"), regress::to_json(report).dump(2) + "\n");
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

}  // namespace tf::cli
