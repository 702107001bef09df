// The fleet commands: tunefarm submit, status, devices, cancel (against a tracker), and token new.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <thread>

#include "cli/commands.h"
#include "cli/tracker_client.h"
#include "proto/channel.h"
#include "proto/json_convert.h"
#include "proto/tokens.h"

namespace tf::cli {
namespace {

// `tunefarm status 7` and `tunefarm cancel 7`: a leading bare word is the job id.
std::vector<std::string> job_id_as_option(std::vector<std::string> argv) {
  if (!argv.empty() && argv[0].rfind("--", 0) != 0 && argv[0] != "-h") argv[0] = "--job=" + argv[0];
  return argv;
}

std::string workload_line(const v1::WorkloadProgress& p) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-28s %-8s %5lld/%-5lld trials  ok %-5lld failed %-4lld best %7.1f GFLOPS",
                p.workload_key().c_str(), p.state().c_str(), static_cast<long long>(p.trials_done()),
                static_cast<long long>(p.trials()), static_cast<long long>(p.ok()), static_cast<long long>(p.failed()),
                p.best_gflops());
  return buf;
}

std::string job_line(const v1::Job& j) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "job %lld  %-9s owner %s  key %s  tuner %s  elapsed %.0f s", static_cast<long long>(j.id()),
                fleet::job_state_name(j.state()), j.owner().c_str(), j.spec().device_key().c_str(), j.spec().tuner().c_str(),
                j.elapsed_s());
  std::string line = buf;
  if (j.state() == v1::RUNNING && j.eta_s() > 0) line += "  ETA " + std::to_string(static_cast<int64_t>(j.eta_s())) + " s";
  return line;
}

void print_job(const v1::Job& j) {
  std::printf("%s\n", job_line(j).c_str());
  for (const auto& p : j.workloads()) std::printf("%s\n", workload_line(p).c_str());
  if (!j.message().empty()) std::printf("  %s\n", j.message().c_str());
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
  grpc::Status s;
  // A tracker that restarts resumes the job; the watch follows it there, for up to a minute of
  // absence.
  for (int attempt = 0;; ++attempt) {
    auto ctx = client.context(0);
    v1::GetJobRequest req;
    req.set_job_id(id);
    auto reader = client.stub().WatchJob(ctx.get(), req);
    while (reader->Read(&job)) {
      any = true;
      attempt = 0;
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
        std::printf("\033[2K  %s\n", job.message().c_str());
        ++drawn;
      } else {
        for (const auto& p : job.workloads()) {
          const std::string now = p.state() + "/" + std::to_string(p.trials_done());
          auto& seen = last_printed[p.workload_key()];
          if (now != seen) std::printf("job %lld %s\n", static_cast<long long>(job.id()), workload_line(p).substr(2).c_str());
          seen = now;
        }
        if (job.message() != last_message && !job.message().empty()) {
          std::printf("job %lld: %s\n", static_cast<long long>(job.id()), job.message().c_str());
        }
        last_message = job.message();
      }
      std::fflush(stdout);
    }
    s = reader->Finish();
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= 60) break;
    if (attempt == 0 && !json) std::fprintf(stderr, "tunefarm status: lost the tracker (%s); waiting for it\n", s.error_message().c_str());
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (!s.ok()) return client.fail("tunefarm status", s);
  if (!any) return 1;
  if (!json) {
    std::printf("job %lld %s%s%s\n", static_cast<long long>(job.id()), fleet::job_state_name(job.state()),
                job.message().empty() ? "" : ": ", job.message().c_str());
  }
  return exit_code_of(job);
}

}  // namespace

int cmd_submit(const std::vector<std::string>& argv) {
  Args args("tunefarm submit", "Submit a tuning job to a tracker; its boards of --key measure it. Prints the job id.");
  add_tracker_options(args);
  args.option("op", "NAME", "operator, e.g. dense")
      .option("shape", "LIST", "the op's extents, e.g. 512,512,512")
      .option("job", "FILE", "a job file with many workloads (docs/architecture.md), instead of --op/--shape")
      .option("key", "KEY", "device key of the boards that measure (see tunefarm devices)")
      .option("trials", "N", "candidates per workload", "200")
      .option("tuner", "NAME", "xgb | random | grid | ga", "xgb")
      .option("priority", "P", "1-100: jobs on one key share its boards in this ratio", "1")
      .option("seed", "S", "seed of the tuner and of the inputs", "1")
      .option("min-ms", "MS", "each timing repeats the kernel until it lasts this long", "20")
      .option("repeat", "N", "timings per candidate", "3")
      .option("timeout", "S", "hard limit per candidate on the board, seconds", "10")
      .flag("follow", "then follow the job to its end (exit 0 when done)")
      .flag("json", "print JSON");
  if (!args.parse(argv)) return 0;
  TrackerClient client(args);
  v1::SubmitJobRequest req;
  if (args.has("job")) {
    if (args.has("op") || args.has("shape")) throw UsageError("give --job FILE or --op/--shape, not both");
    std::string text;
    try {
      text = fleet::read_text_file(args.get("job"));
    } catch (const std::exception& e) {
      throw UsageError(std::string("--job: ") + e.what());
    }
    // The tracker checks the file, so every client gets the same answers; options given here
    // fill in what the file leaves out.
    req.set_spec_json(text);
  } else {
    if (!args.has("op") || !args.has("shape")) throw UsageError("give --op and --shape (or --job FILE)");
    v1::JobSpec* spec = req.mutable_spec();
    auto* w = spec->add_workloads();
    w->set_op(args.get("op"));
    for (int64_t d : args.get_int_list("shape")) w->add_shape(d);
    spec->set_device_key(args.get("key"));
    spec->set_trials(args.get_int("trials"));
    spec->set_tuner(args.get("tuner"));
    spec->set_priority(static_cast<int32_t>(args.get_int("priority")));
    spec->set_seed(static_cast<uint64_t>(args.get_int("seed")));
    spec->mutable_measure()->set_min_repeat_ms(static_cast<double>(args.get_int("min-ms")));
    spec->mutable_measure()->set_repeat(static_cast<int32_t>(args.get_int("repeat")));
    spec->mutable_measure()->set_timeout_s(static_cast<double>(args.get_int("timeout")));
  }
  v1::Job job;
  auto ctx = client.context();
  grpc::Status s = client.stub().SubmitJob(ctx.get(), req, &job);
  if (!s.ok()) return client.fail("tunefarm submit", s);
  const bool json = args.flag_set("json");
  if (json && !args.flag_set("follow")) {
    std::printf("%s\n", fleet::job_to_json(job).dump(2).c_str());
    return 0;
  }
  if (!json) {
    std::printf("job %lld submitted to %s (key %s, %d workload(s))%s%s\n", static_cast<long long>(job.id()), client.address().c_str(),
                job.spec().device_key().c_str(), job.spec().workloads_size(), job.message().empty() ? "" : ": ",
                job.message().c_str());
    std::fflush(stdout);
  }
  if (!args.flag_set("follow")) return 0;
  return follow(client, job.id(), json);
}

int cmd_status(const std::vector<std::string>& argv) {
  Args args("tunefarm status", "A job's state and progress per workload (tunefarm status JOB), or the list of jobs.");
  add_tracker_options(args);
  args.option("job", "ID", "the job (also the first argument)")
      .option("limit", "N", "jobs listed, newest first", "20")
      .flag("active", "list queued and running jobs only")
      .flag("follow", "follow the job to its end (exit 0 when done)")
      .flag("json", "print JSON");
  if (!args.parse(job_id_as_option(argv))) return 0;
  TrackerClient client(args);
  const bool json = args.flag_set("json");
  if (args.has("job")) {
    const int64_t id = args.get_int("job");
    if (args.flag_set("follow")) return follow(client, id, json);
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
  if (args.flag_set("follow")) throw UsageError("--follow needs a job: tunefarm status JOB --follow");
  v1::ListJobsRequest req;
  req.set_active_only(args.flag_set("active"));
  req.set_limit(static_cast<int32_t>(args.get_int("limit")));
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

int cmd_devices(const std::vector<std::string>& argv) {
  Args args("tunefarm devices", "The boards connected to a tracker, by device key.");
  add_tracker_options(args);
  args.option("key", "KEY", "only boards of this key").flag("json", "print JSON");
  if (!args.parse(argv)) return 0;
  TrackerClient client(args);
  v1::ListDevicesRequest req;
  req.set_device_key(args.get("key"));
  v1::ListDevicesResponse resp;
  auto ctx = client.context();
  grpc::Status s = client.stub().ListDevices(ctx.get(), req, &resp);
  if (!s.ok()) return client.fail("tunefarm devices", s);
  if (args.flag_set("json")) {
    Json all = Json::array();
    for (const auto& d : resp.devices()) all.push_back(fleet::device_to_json(d));
    std::printf("%s\n", all.dump(2).c_str());
    return 0;
  }
  if (resp.devices_size() == 0) std::printf("no boards connected to %s\n", client.address().c_str());
  for (const auto& d : resp.devices()) {
    std::printf("%-16s %-28s %-8s %d thread(s)  done %lld  %s\n    target %s\n    %s\n", d.device_key().c_str(), d.board_id().c_str(),
                d.state().c_str(), d.threads(), static_cast<long long>(d.items_done()), d.cpu_name().c_str(), d.target().c_str(),
                d.timing_isolation().c_str());
  }
  return 0;
}

int cmd_cancel(const std::vector<std::string>& argv) {
  Args args("tunefarm cancel", "Cancel a job (tunefarm cancel JOB): its owner or an admin may.");
  add_tracker_options(args);
  args.option("job", "ID", "the job (also the first argument)").flag("json", "print JSON");
  if (!args.parse(job_id_as_option(argv))) return 0;
  if (!args.has("job")) throw UsageError("which job? tunefarm cancel JOB");
  TrackerClient client(args);
  v1::CancelJobRequest req;
  req.set_job_id(args.get_int("job"));
  v1::Job job;
  auto ctx = client.context();
  grpc::Status s = client.stub().CancelJob(ctx.get(), req, &job);
  if (!s.ok()) return client.fail("tunefarm cancel", s);
  if (args.flag_set("json")) {
    std::printf("%s\n", fleet::job_to_json(job).dump(2).c_str());
  } else {
    std::printf("job %lld %s\n", static_cast<long long>(job.id()), fleet::job_state_name(job.state()));
  }
  return 0;
}

int cmd_token(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] != "new") {
    if (!argv.empty() && (argv[0] == "--help" || argv[0] == "-h")) {
      std::printf("usage: tunefarm token new --role board|client|admin [--name NAME]\n\n"
                  "Prints a new token line. Append it to the tracker's --token-file, and give the board or\n"
                  "client the same line in its own --token-file (or TUNEFARM_TOKEN).\n");
      return 0;
    }
    throw UsageError("usage: tunefarm token new --role board|client|admin [--name NAME]");
  }
  Args args("tunefarm token new", "Print a new token line: '<token> <role> <name>'.");
  args.option("role", "ROLE", "board | client | admin").option("name", "NAME", "who holds it (job owner, logs)");
  if (!args.parse({argv.begin() + 1, argv.end()})) return 0;
  auto role = fleet::parse_role(args.get("role"));
  if (!role) throw UsageError("--role must be board, client or admin");
  const std::string name = args.get("name");
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '#') throw UsageError("--name: no spaces or '#'");
  }
  std::printf("%s\n", fleet::new_token_line(*role, name).c_str());
  return 0;
}

// `tunefarm best --tracker HOST:PORT --key KEY`: the best config the fleet measured.
int best_from_tracker(const Args& args, const std::string& op, const std::vector<int64_t>& shape) {
  TrackerClient client(args);
  v1::GetBestRequest req;
  req.mutable_workload()->set_op(op);
  for (int64_t d : shape) req.mutable_workload()->add_shape(d);
  req.set_device_key(args.get("key"));
  v1::GetBestResponse resp;
  auto ctx = client.context();
  grpc::Status s = client.stub().GetBest(ctx.get(), req, &resp);
  if (!s.ok()) return client.fail("tunefarm best", s);
  std::string wl = op + "[";
  for (size_t i = 0; i < shape.size(); ++i) wl += (i ? "," : "") + std::to_string(shape[i]);
  wl += "]";
  if (!resp.found()) {
    std::fprintf(stderr, "tunefarm best: no successful measurement of %s on key %s\n", wl.c_str(), args.get("key").c_str());
    return 1;
  }
  if (args.flag_set("json")) {
    Json o = Json::object();
    o["workload"] = wl;
    o["key"] = args.get("key");
    o["gflops"] = resp.gflops();
    o["config"] = parse_json(resp.config_json());
    o["target"] = resp.target();
    o["device"] = resp.device();
    o["job_id"] = resp.job_id();
    Json costs = Json::array();
    for (double c : resp.costs()) costs.push_back(c);
    o["costs"] = costs;
    std::printf("%s\n", o.dump(2).c_str());
  } else {
    std::printf("%s  %.1f GFLOPS  on key %s (%s)  config %s\n", wl.c_str(), resp.gflops(), args.get("key").c_str(),
                resp.device().c_str(), resp.config_json().c_str());
  }
  return 0;
}

}  // namespace tf::cli
