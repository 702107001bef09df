// The fleet commands: tunefarm submit, status, devices, cancel (against a tracker), and token new.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <thread>

#include "cli/commands.h"
#include "cli/tracker_client.h"
#include "cli/workload_args.h"
#include "proto/channel.h"
#include "proto/job_file.h"
#include "proto/json_convert.h"
#include "proto/tokens.h"
#include "proto/utf8.h"
#include "support/files.h"
#include "support/measure_args.h"
#include "support/workload_key.h"

namespace tf::cli {
namespace {

// Every string below comes from a client, a board or a token file, and is printed in another
// user's terminal: fleet::printable escapes control characters (and any other byte outside
// printable ASCII) so that none can move the cursor, retitle the window or fake a line.
using fleet::printable;

std::string workload_line(const v1::WorkloadProgress& p) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-28s %-8s %5lld/%-5lld trials  ok %-5lld failed %-4lld best %7.1f GFLOPS",
                printable(p.workload_key()).c_str(), printable(p.state()).c_str(),
                static_cast<long long>(p.trials_done()), static_cast<long long>(p.trials()),
                static_cast<long long>(p.ok()), static_cast<long long>(p.failed()), p.best_gflops());
  return buf;
}

std::string job_line(const v1::Job& j) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "job %lld  %-9s owner %s  key %s  tuner %s  elapsed %.0f s",
                static_cast<long long>(j.id()), fleet::job_state_name(j.state()), printable(j.owner()).c_str(),
                printable(j.spec().device_key()).c_str(), printable(j.spec().tuner()).c_str(), j.elapsed_s());
  std::string line = buf;
  if (!j.spec().scheduler().empty()) {
    int64_t done = 0;
    for (const auto& p : j.workloads()) done += p.trials_done();
    std::snprintf(buf, sizeof buf, "  model %s: %lld/%lld trials (%s), estimated %.2f ms",
                  printable(j.spec().model()).c_str(), static_cast<long long>(done),
                  static_cast<long long>(j.spec().trials()), printable(j.spec().scheduler()).c_str(), j.estimated_ms());
    line += buf;
    if (!j.spec().input_shapes().empty()) line += "  inputs " + printable(j.spec().input_shapes());
  }
  if (j.state() == v1::RUNNING && j.eta_s() > 0)
    line += "  ETA " + std::to_string(static_cast<int64_t>(j.eta_s())) + " s";
  return line;
}

void print_job(const v1::Job& j) {
  std::printf("%s\n", job_line(j).c_str());
  for (const auto& p : j.workloads()) std::printf("%s\n", workload_line(p).c_str());
  if (!j.message().empty()) std::printf("  %s\n", printable(j.message()).c_str());
}

int exit_code_of(const v1::Job& j) { return j.state() == v1::DONE ? 0 : 1; }

// Follows a job to its end: on a terminal the job's lines are redrawn in place, otherwise a line is
// printed whenever a workload progresses. Returns the exit code (0 done, 1 failed or cancelled).
int follow(TrackerClient& client, int64_t id, bool json) {
  const bool tty = ::isatty(STDOUT_FILENO) != 0 && !json;
  v1::Job job;
  bool any = false;
  int drawn = 0;
  std::map<std::string, std::string> last_printed;  // per workload: its state and trials done
  std::string last_message;
  const grpc::Status s = watch_job(
      client, id,
      [&](const v1::Job& snapshot) {
        job = snapshot;
        any = true;
        if (json) {
          std::printf("%s\n", fleet::job_to_json(job).dump().c_str());
        } else if (tty) {
          if (drawn > 0) std::printf("\033[%dA", drawn);
          drawn = 0;
          std::printf("\033[2K%s\n", job_line(job).c_str());
          ++drawn;
          for (const auto& p : job.workloads()) {
            std::printf("\033[2K%s\n", workload_line(p).c_str());
            ++drawn;
          }
          std::printf("\033[2K  %s\n", printable(job.message()).c_str());
          ++drawn;
        } else {
          for (const auto& p : job.workloads()) {
            const std::string now = p.state() + "/" + std::to_string(p.trials_done());
            auto& seen = last_printed[p.workload_key()];
            if (now != seen)
              std::printf("job %lld %s\n", static_cast<long long>(job.id()), workload_line(p).substr(2).c_str());
            seen = now;
          }
          if (job.message() != last_message && !job.message().empty()) {
            std::printf("job %lld: %s\n", static_cast<long long>(job.id()), printable(job.message()).c_str());
          }
          last_message = job.message();
        }
        std::fflush(stdout);
      },
      json ? "" : "tunefarm status");
  if (!s.ok()) return client.fail("tunefarm status", s);
  if (!any) return 1;
  if (!json) {
    std::printf("job %lld %s%s%s\n", static_cast<long long>(job.id()), fleet::job_state_name(job.state()),
                job.message().empty() ? "" : ": ", printable(job.message()).c_str());
  }
  return exit_code_of(job);
}

struct SubmitOptions {
  TrackerArgs tracker;
  MeasureArgs measure;
  std::string op, job_file, key;
  std::string shape;  // positional or named, parsed for --op
  int priority = 1;
  bool follow = false, json = false;
  CLI::App* cmd = nullptr;
};

// The command line's value of `option` when it was given.
template <typename T>
std::optional<T> given(const CLI::App& cmd, const std::string& option, const T& value) {
  return cmd.count(option) ? std::optional<T>(value) : std::nullopt;
}

v1::SubmitJobRequest request_from_job_file(const SubmitOptions& o) {
  std::string text;
  try {
    text = read_file(o.job_file);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--job: ") + e.what());
  }
  if (std::string bad = fleet::utf8_error(text); !bad.empty())
    throw UsageError("--job " + o.job_file + ": not valid UTF-8: " + bad);
  const CLI::App& cmd = *o.cmd;
  fleet::JobFileOptions options;
  options.key = given(cmd, "--key", o.key);
  options.trials = given(cmd, "--trials", o.measure.trials);
  options.tuner = given(cmd, "--tuner", o.measure.tuner);
  options.priority = given(cmd, "--priority", static_cast<int64_t>(o.priority));
  options.seed = given(cmd, "--seed", o.measure.seed);
  options.min_repeat_ms = given(cmd, "--min-ms", o.measure.min_ms);
  options.repeat = given(cmd, "--repeat", o.measure.repeat);
  options.timeout_s = given(cmd, "--timeout", o.measure.timeout_s);
  options.cold_inputs = given(cmd, "--cold-inputs", o.measure.cold_inputs);
  fleet::FilledJobFile filled;
  try {
    filled = fleet::fill_job_file(text, options);
  } catch (const JsonLimitError& e) {
    throw UsageError("--job " + o.job_file + ": " + e.what());
  }
  for (const auto& option : filled.overridden) {
    std::fprintf(stderr, "tunefarm submit: %s not used: %s sets it\n", option.c_str(), o.job_file.c_str());
  }
  // The tracker checks the file, so every client gets the same answers.
  v1::SubmitJobRequest req;
  req.set_spec_json(filled.text);
  return req;
}

v1::SubmitJobRequest request_from_options(const SubmitOptions& o) {
  if (o.op.empty() || o.shape.empty()) throw UsageError("give --op and --shape (or --job FILE)");
  v1::SubmitJobRequest req;
  v1::JobSpec* spec = req.mutable_spec();
  auto* w = spec->add_workloads();
  w->set_op(o.op);
  for (int64_t d : parse_shape_option(o.op, o.shape)) w->add_shape(d);
  set_job_settings(spec, o.key, o.measure, o.priority);
  return req;
}

int submit_command(const SubmitOptions& o) {
  TrackerClient client(o.tracker);
  const v1::SubmitJobRequest req = o.job_file.empty() ? request_from_options(o) : request_from_job_file(o);
  if (std::string bad = fleet::invalid_utf8_field(req); !bad.empty()) throw UsageError(bad);
  v1::Job job;
  auto ctx = client.context();
  grpc::Status s = client.stub().SubmitJob(ctx.get(), req, &job);
  if (!s.ok()) return client.fail("tunefarm submit", s);
  const bool json = o.json;
  if (json && !o.follow) {
    std::printf("%s\n", fleet::job_to_json(job).dump(2).c_str());
    return 0;
  }
  if (!json) {
    std::printf("job %lld submitted to %s (key %s, %d workload(s))%s%s\n", static_cast<long long>(job.id()),
                client.address().c_str(), printable(job.spec().device_key()).c_str(), job.spec().workloads_size(),
                job.message().empty() ? "" : ": ", printable(job.message()).c_str());
    std::fflush(stdout);
  }
  if (!o.follow) return 0;
  return follow(client, job.id(), json);
}

struct StatusOptions {
  TrackerArgs tracker;
  int64_t job = 0;
  int limit = 20;
  bool active = false, follow = false, json = false;
  CLI::Option* job_option = nullptr;
};

int status_command(const StatusOptions& o) {
  TrackerClient client(o.tracker);
  const bool json = o.json;
  if (o.job_option->count()) {
    const int64_t id = o.job;
    if (o.follow) return follow(client, id, json);
    v1::GetJobRequest req;
    req.set_job_id(id);
    v1::Job job;
    auto ctx = client.context();
    grpc::Status s = client.stub().GetJob(ctx.get(), req, &job);
    if (!s.ok()) return client.fail("tunefarm status", s);
    if (json) {
      std::printf("%s\n", fleet::job_to_json(job).dump(2).c_str());
    } else {
      print_job(job);
    }
    return 0;
  }
  if (o.follow) throw UsageError("--follow needs a job: tunefarm status JOB --follow");
  v1::ListJobsRequest req;
  req.set_active_only(o.active);
  req.set_limit(o.limit);
  v1::ListJobsResponse resp;
  auto ctx = client.context();
  grpc::Status s = client.stub().ListJobs(ctx.get(), req, &resp);
  if (!s.ok()) return client.fail("tunefarm status", s);
  if (json) {
    Json all = Json::array();
    for (const auto& j : resp.jobs()) all.push_back(fleet::job_to_json(j));
    std::printf("%s\n", all.dump(2).c_str());
    return 0;
  }
  if (resp.jobs_size() == 0) std::printf("no jobs\n");
  for (const auto& j : resp.jobs()) print_job(j);
  return 0;
}

struct DevicesOptions {
  TrackerArgs tracker;
  std::string key;
  bool json = false;
};

int devices_command(const DevicesOptions& o) {
  TrackerClient client(o.tracker);
  v1::ListDevicesRequest req;
  req.set_device_key(o.key);
  if (std::string bad = fleet::invalid_utf8_field(req); !bad.empty()) throw UsageError(bad);
  v1::ListDevicesResponse resp;
  auto ctx = client.context();
  grpc::Status s = client.stub().ListDevices(ctx.get(), req, &resp);
  if (!s.ok()) return client.fail("tunefarm devices", s);
  if (o.json) {
    Json all = Json::array();
    for (const auto& d : resp.devices()) all.push_back(fleet::device_to_json(d));
    std::printf("%s\n", all.dump(2).c_str());
    return 0;
  }
  if (resp.devices_size() == 0) std::printf("no boards connected to %s\n", client.address().c_str());
  for (const auto& d : resp.devices()) {
    std::printf("%-16s %-28s %-8s %d thread(s)  done %lld  %s\n    target %s\n    %s\n",
                printable(d.device_key()).c_str(), printable(d.board_id()).c_str(), printable(d.state()).c_str(),
                d.threads(), static_cast<long long>(d.items_done()), printable(d.cpu_name()).c_str(),
                printable(d.target()).c_str(), printable(d.timing_isolation()).c_str());
    if (d.emulated()) {
      std::printf(
          "    EMULATED (qemu-user): its timings are kept under key '%s' only, never compared with real boards\n",
          printable(d.device_key()).c_str());
    }
  }
  return 0;
}

int cancel_command(const StatusOptions& o) {
  if (!o.job_option->count()) throw UsageError("which job? tunefarm cancel JOB");
  TrackerClient client(o.tracker);
  v1::CancelJobRequest req;
  req.set_job_id(o.job);
  v1::Job job;
  auto ctx = client.context();
  grpc::Status s = client.stub().CancelJob(ctx.get(), req, &job);
  if (!s.ok()) return client.fail("tunefarm cancel", s);
  if (o.json) {
    std::printf("%s\n", fleet::job_to_json(job).dump(2).c_str());
  } else {
    std::printf("job %lld %s\n", static_cast<long long>(job.id()), fleet::job_state_name(job.state()));
  }
  return 0;
}

struct TokenOptions {
  std::string role, name;
};

int token_new_command(const TokenOptions& o) {
  auto role = fleet::parse_role(o.role);
  if (!role) throw UsageError("--role must be board, builder, client or admin");
  const std::string& name = o.name;
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '#') throw UsageError("--name: no spaces or '#'");
  }
  std::printf("%s\n", fleet::new_token_line(*role, name).c_str());
  return 0;
}

}  // namespace

// `tunefarm best --tracker HOST:PORT --key KEY`: the best config the fleet measured.
int best_from_tracker(const TrackerArgs& tracker, const std::string& key, const std::string& op,
                      const std::vector<int64_t>& shape, const std::string& timing, bool as_json) {
  TrackerClient client(tracker);
  v1::GetBestRequest req;
  req.mutable_workload()->set_op(op);
  for (int64_t d : shape) req.mutable_workload()->add_shape(d);
  req.set_device_key(key);
  req.set_timing(timing);
  if (std::string bad = fleet::invalid_utf8_field(req); !bad.empty()) throw UsageError(bad);
  v1::GetBestResponse resp;
  auto ctx = client.context();
  grpc::Status s = client.stub().GetBest(ctx.get(), req, &resp);
  if (!s.ok()) return client.fail("tunefarm best", s);
  const std::string wl = workload_key(op, shape);
  if (!resp.found()) {
    std::fprintf(stderr, "tunefarm best: no successful measurement of %s on key %s%s\n", wl.c_str(), key.c_str(),
                 timing.empty() ? "" : (" timed " + timing).c_str());
    return 1;
  }
  if (as_json) {
    Json o = Json::object();
    o["workload"] = wl;
    o["key"] = key;
    o["gflops"] = resp.gflops();
    o["config"] = parse_json(resp.config_json());
    o["target"] = resp.target();
    o["device"] = resp.device();
    o["job_id"] = resp.job_id();
    o["emulated"] = resp.emulated();
    o["timing"] = resp.timing();
    Json costs = Json::array();
    for (double c : resp.costs()) costs.push_back(c);
    o["costs"] = costs;
    std::printf("%s\n", o.dump(2).c_str());
  } else {
    std::printf("%s  %.1f GFLOPS  %s  on key %s (%s)  config %s\n", wl.c_str(), resp.gflops(),
                printable(resp.timing()).c_str(), key.c_str(), printable(resp.device()).c_str(),
                printable(resp.config_json()).c_str());
    if (resp.emulated()) {
      std::printf(
          "note: key %s has emulated boards (qemu-user): the config is checked, its speed is not a real board's\n",
          key.c_str());
    }
  }
  return 0;
}

void add_fleet(CLI::App& tunefarm, Commands& commands) {
  {
    auto o = std::make_shared<SubmitOptions>();
    CLI::App* cmd = o->cmd =
        tunefarm.add_subcommand("submit", "submit a tuning job to a tracker; its boards of --key measure it");
    cmd->footer(
        "Prints the job id. With --job FILE, the options below fill in the fields the file leaves out; the file wins\n"
        "where it sets a field (docs/tracker.md, \"Job files\").");
    add_tracker_options(*cmd, o->tracker);
    auto* op = cmd->add_option("--op", o->op, "operator, e.g. dense")->type_name("NAME");
    auto* shape =
        cmd->add_option("--shape", o->shape, "the op's extents, positional (512,512,512) or named (n=1,c=64,...)")
            ->type_name("SHAPE");
    cmd->add_option("--job", o->job_file, "a job file with many workloads (docs/tracker.md), instead of --op/--shape")
        ->type_name("FILE")
        ->excludes(op)
        ->excludes(shape);
    cmd->add_option("--key", o->key, "device key of the boards that measure (see tunefarm devices)")->type_name("KEY");
    add_measure_options(*cmd, o->measure, kTuning | kCold);
    cmd->add_option("--priority", o->priority, "1-100: jobs on one key share its boards in this ratio")
        ->type_name("P")
        ->check(CLI::Range(1, 100));
    cmd->add_flag("--follow", o->follow, "then follow the job to its end (exit 0 when done)");
    cmd->add_flag("--json", o->json, "print JSON");
    commands.on(cmd, [o] { return submit_command(*o); });
  }
  {
    auto o = std::make_shared<StatusOptions>();
    CLI::App* cmd = tunefarm.add_subcommand(
        "status", "a job's state and progress per workload (tunefarm status JOB), or the list of jobs");
    add_tracker_options(*cmd, o->tracker);
    o->job_option = cmd->add_option("job,--job", o->job, "the job (also the first argument)")->type_name("ID");
    cmd->add_option("--limit", o->limit, "jobs listed, newest first")->type_name("N")->check(CLI::Range(1, 10000));
    cmd->add_flag("--active", o->active, "list queued and running jobs only");
    cmd->add_flag("--follow", o->follow, "follow the job to its end (exit 0 when done)");
    cmd->add_flag("--json", o->json, "print JSON");
    commands.on(cmd, [o] { return status_command(*o); });
  }
  {
    auto o = std::make_shared<DevicesOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("devices", "the boards connected to a tracker, by device key");
    add_tracker_options(*cmd, o->tracker);
    cmd->add_option("--key", o->key, "only boards of this key")->type_name("KEY");
    cmd->add_flag("--json", o->json, "print JSON");
    commands.on(cmd, [o] { return devices_command(*o); });
  }
  {
    auto o = std::make_shared<StatusOptions>();
    CLI::App* cmd = tunefarm.add_subcommand("cancel", "cancel a job (tunefarm cancel JOB): its owner or an admin may");
    add_tracker_options(*cmd, o->tracker);
    o->job_option = cmd->add_option("job,--job", o->job, "the job (also the first argument)")->type_name("ID");
    cmd->add_flag("--json", o->json, "print JSON");
    commands.on(cmd, [o] { return cancel_command(*o); });
  }
  {
    auto o = std::make_shared<TokenOptions>();
    CLI::App* token = tunefarm.add_subcommand("token", "make a token line for a tracker's --token-file");
    token->require_subcommand(1);
    CLI::App* cmd = token->add_subcommand("new", "print a new token line: '<token> <role> <name>'");
    cmd->footer(
        "Append it to the tracker's --token-file, and give the board or client the same line in its own\n"
        "--token-file (or TUNEFARM_TOKEN).");
    cmd->add_option("--role", o->role, "board | builder | client | admin")->type_name("ROLE")->required();
    cmd->add_option("--name", o->name, "who holds it (job owner, logs)")->type_name("NAME");
    commands.on(cmd, [o] { return token_new_command(*o); });
  }
}

}  // namespace tf::cli
