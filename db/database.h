// The tunefarm database: every measurement, the best config per workload and target, trained cost
// models, jobs and baselines, in one SQLite file (WAL) or one PostgreSQL database shared by several
// trackers (connection.h: the backend follows the location). Writes are transactions, so a
// process killed at any moment leaves every committed measurement and a readable database; several
// processes may write at once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/connection.h"
#include "db/target_aliases.h"
#include "runtime/measure.h"
#include "support/json.h"

namespace tf::db {

enum class Outcome { Ok, CompileError, RuntimeError, Timeout, WrongAnswer };
const char* outcome_name(Outcome o);
bool parse_outcome(const std::string& s, Outcome* out);

struct Measurement {
  std::string op;
  std::vector<int64_t> shape;
  std::string dtype = "float32";
  std::string target;  // canonical target string
  std::string device_key = "local";
  Json config;  // {"knob": value}
  int64_t config_index = -1;
  std::vector<double> costs;  // seconds per run, every repeat
  Outcome outcome = Outcome::Ok;
  std::string error;
  double build_ms = 0;
  std::string device;  // which board measured it
  std::string compiler_version;
  int64_t created_ms = 0;  // 0: now
  std::optional<int64_t> job_id;
  // How it was timed (MeasureOptions::cold_inputs; stored and exported as runtime::timing_name):
  // a warm timing and a cold one of the same config are different numbers, never compared.
  runtime::ColdInputs timing = runtime::ColdInputs::Off;

  double mean_s() const;
  std::string workload_key() const;             // "dense[512,512,512]:float32"
  Json to_json() const;                         // the export record, timing included
  static Measurement from_json(const Json& v);  // throws JsonError naming the field
};

struct CostModel {
  int64_t feature_version = 0;
  int64_t training_size = 0;
  std::vector<uint8_t> bytes;
};

// A board as the tracker last saw it register.
struct DeviceRecord {
  std::string device_key, hostname, target;
  Json info;  // cpu, cores, threads, memory, runtime version
  int64_t first_seen_ms = 0, last_seen_ms = 0;
};

struct Job {
  int64_t id = 0;
  Json spec, progress;
  std::string state, owner;
  int64_t created_ms = 0, updated_ms = 0;
};

// One workload of a named baseline (CI regression runs): the config that was best when it was
// saved, built by the compiler of that day, the library itself and what it measured.
struct Baseline {
  std::string name;
  std::string op;
  std::vector<int64_t> shape;
  std::string dtype = "float32";
  std::string target;
  std::string device_key;
  Json config;
  std::string compiler_version;
  std::vector<double> costs;     // seconds per run, every timing
  std::vector<uint8_t> library;  // the shared library (empty in listings)
  std::string entry_symbol;
  std::string device;  // the board or host that measured it
  Json measure;        // the measurement settings
  int64_t created_ms = 0;
  std::string workload_key() const;
};

// A whole compiled model saved as a baseline (model-level CI verdicts): the .tfm itself, as built
// from the database's best configs that day, and the latencies it measured.
struct ModelBaseline {
  std::string name, model, input_shapes, target, device_key, compiler_version, device;
  int threads = 1;
  std::vector<double> costs;  // seconds per run, every timing
  std::vector<uint8_t> tfm;   // the compiled model (empty in listings)
  int64_t created_ms = 0;
};

class Database {
 public:
  // `location`: a SQLite file's path, or postgresql://USER@HOST:PORT/NAME (postgres:// too).
  // Create: a file is created when missing (a PostgreSQL database must exist, and an empty one gets
  // the schema). Existing: it must exist. Both migrate it to the newest schema (and switch a file
  // to WAL), after checking it is a tunefarm database. ReadOnly: it must exist and hold a tunefarm
  // schema; nothing is written (an old schema is upgraded through a separate writable connection
  // first, or refused when the database cannot be written). Throws DbError saying what is wrong:
  // another program's database, not SQLite, a newer tunefarm's database, read-only, disk full, a
  // bad URL, a server that cannot be reached or refuses the user (never quoting a password).
  enum class Open { Create, Existing, ReadOnly };
  explicit Database(const std::string& location, Open open = Open::Create);

  // Returns false when the same record is already there (an import run twice adds nothing).
  bool record(const Measurement& m);
  // Appends timings to job `job_id`'s successful measurement of `key`'s config (workload, target,
  // device key, config index): a confirming re-measurement. Costs, mean and record hash follow.
  // Returns false when there is no such measurement.
  bool add_repeats(int64_t job_id, const Measurement& key, const std::vector<double>& extra);

  // Reads below take `timing`: only records timed that way; nullopt: any timing, so a warm record
  // may beat a cold one of the same config.
  using Timing = std::optional<runtime::ColdInputs>;
  std::optional<Measurement> best(const std::string& op, const std::vector<int64_t>& shape, const std::string& target,
                                  const std::string& device_key = "local", Timing timing = std::nullopt);
  // The best of a workload on each target and device key it was measured on, fastest first.
  std::vector<Measurement> best_per_target(const std::string& op, const std::vector<int64_t>& shape,
                                           Timing timing = std::nullopt);
  // Oldest first.
  std::vector<Measurement> history(const std::string& op, const std::vector<int64_t>& shape, const std::string& target,
                                   const std::string& device_key = "local", Timing timing = std::nullopt);
  // About `limit` successful measurements of an op on a target, oldest first: what a new job of that
  // op transfers from. Each shape measured gets an equal share (at least 16): its fastest records
  // and an even spread over its slower ones.
  std::vector<Measurement> op_history(const std::string& op, const std::string& target, const std::string& device_key,
                                      int64_t limit, Timing timing = std::nullopt);
  std::vector<Measurement> all_measurements();
  // Jobs: a tuning run's spec (op, shape, tuner, trials, ...), state and progress. A job created
  // "running" belongs to this process (a local tune): when the process dies before finishing it,
  // the next reader sees it "failed" with progress.error saying so, and a writer stores that.
  int64_t create_job(const Json& spec, const std::string& owner, const std::string& state = "running");
  void update_job(int64_t id, const std::string& state, const Json& progress);
  // Takes over a job that failed (its process died, or it ended failed) to run it again in this
  // process: "running" again, owned by this process. False when it is not failed (a live process
  // runs it, or it ended otherwise).
  bool adopt_job(int64_t id);
  // Claims job `id` for this process while this Database stays open, so that of several trackers
  // on one PostgreSQL database exactly one runs it, and the claim of a killed tracker ends with its
  // connection. False when another process holds it. Always true for a SQLite file, which one
  // tracker serves.
  bool claim_job(int64_t id) { return conn_.claim_job(id); }
  std::optional<Job> job(int64_t id);
  // Measurements of one job, oldest first.
  std::vector<Measurement> job_measurements(int64_t job_id);
  std::vector<Job> jobs();
  int64_t count_measurements();

  // Boards: registered (inserted or refreshed) by the tracker; a key is known once any board had it.
  void record_device(const DeviceRecord& d);
  std::vector<DeviceRecord> devices();
  bool known_device_key(const std::string& key);

  // Baselines (db/baselines.cc). Saving a name that exists throws DbError unless `replace`; then
  // the old entries go in the same transaction as the new ones arrive.
  void save_baseline(const std::string& name, const std::vector<Baseline>& entries, bool replace);
  // Every entry of `name`, libraries included; empty when there is no such baseline.
  std::vector<Baseline> baseline(const std::string& name);
  // Every entry of every baseline, without the libraries, by name.
  std::vector<Baseline> baselines();
  bool delete_baseline(const std::string& name);  // false: there was none

  // Model baselines (db/model_baselines.cc), a namespace of names of their own. Saving a name that
  // exists throws DbError unless `replace`.
  void save_model_baseline(const ModelBaseline& b, bool replace);
  std::optional<ModelBaseline> model_baseline(const std::string& name);  // with its .tfm
  std::vector<ModelBaseline> model_baselines();                          // without, by name
  bool delete_model_baseline(const std::string& name);                   // false: there was none

  // From now on, reads that look up `target` (best, best_per_target, history, op_history,
  // load_model) also find what was filed under `alias`: another string for the same machine, such
  // as the one older tunefarm versions used for their host. New records go under `target`; stored
  // rows are not rewritten, so a read-only file works too.
  void alias_target(const std::string& alias, const std::string& target);

  void save_model(const std::string& op, const std::string& target, const std::string& device_key, const CostModel& m);
  std::optional<CostModel> load_model(const std::string& op, const std::string& target, const std::string& device_key,
                                      int64_t feature_version);

  // Rows skipped by every read so far because they cannot be used: a successful measurement whose
  // stored timings are missing, NaN, infinite, zero, negative or below the floor (written before
  // timings were checked, or edited), or a row that no longer parses. Readers say how many.
  int64_t invalid_rows_skipped() const { return invalid_rows_skipped_; }

  Connection& connection() { return conn_; }
  const std::string& location() const { return conn_.location(); }
  int schema_version_on_open() const { return opened_at_version_; }

 private:
  int64_t workload_id(const Measurement& m);
  int64_t target_id(const std::string& target, const std::string& device_key);
  std::vector<Measurement> query(const std::string& where, const std::vector<std::string>& args);
  // Visits usable rows in order until `visit` returns false; returns false when it stopped early.
  bool each_row(const std::string& where, const std::vector<std::string>& args,
                const std::function<bool(Measurement&)>& visit);
  // Every job, or the one with `id`; marks a local job whose process died as failed.
  std::vector<Job> read_jobs(std::optional<int64_t> id);

  TargetAliases target_aliases_;
  std::unique_ptr<Connection> owned_conn_;
  Connection& conn_;
  int opened_at_version_ = 0;
  int64_t invalid_rows_skipped_ = 0;
};

int64_t now_ms();

}  // namespace tf::db
