// `tunefarm model tune M.onnx --key K [--tracker H:P]`: the model's tasks as one job of the
// tracker's (JobSpec with a scheduler and each workload's calls per run), followed to its end. The
// job is the tracker's: `tunefarm status` shows it, `tunefarm cancel` ends it, and a tracker
// restarted midway resumes it while this command waits.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/model_tune.h"
#include "proto/json_convert.h"
#include "proto/utf8.h"
#include "support/args.h"

namespace tf::cli {
namespace {

v1::SubmitJobRequest model_job_request(const ModelTuneArgs& a, const ModelTasks& m) {
  v1::SubmitJobRequest req;
  v1::JobSpec* spec = req.mutable_spec();
  for (const auto& t : m.tasks) {
    auto* w = spec->add_workloads();
    w->set_op(t.workload.op);
    for (int64_t d : t.workload.shape) w->add_shape(d);
    spec->add_calls(t.count);
    spec->add_groups(t.group + 1);
  }
  spec->set_scheduler(a.tune.scheduler);
  spec->set_time_limit_s(a.tune.time_limit_s);
  spec->set_model(std::filesystem::path(a.tune.model_path).filename().string());
  spec->set_input_shapes(m.inputs_text);
  set_job_settings(spec, a.key, a.tune.measure, a.priority);
  return req;
}

int64_t trials_of(const v1::Job& job) {
  int64_t n = 0;
  for (const auto& p : job.workloads()) n += p.trials_done();
  return n;
}

ModelTuneResult result_of(const ModelTuneArgs& a, const ModelTasks& m, const v1::Job& job, const std::string& where,
                          double seconds) {
  ModelTuneResult r;
  r.model = a.tune.model_path;
  r.input_shapes = m.input_shapes;
  r.inputs_text = m.inputs_text;
  r.job_id = job.id();
  r.where = where;
  r.scheduler = a.tune.scheduler;
  r.state = fleet::job_state_name(job.state());
  r.out_of_time = job.time_limit_reached();
  r.trials = trials_of(job);
  r.budget = job.spec().trials();
  r.estimated_ms = job.estimated_ms();
  r.seconds = seconds;
  for (int i = 0; i < job.workloads_size() && i < static_cast<int>(m.tasks.size()); ++i) {
    const auto& p = job.workloads(i);
    const graph::Task& t = m.tasks[static_cast<size_t>(i)];
    ModelTuneResult::TaskRow row = graph::task_row(t, p.trials_done());
    if (p.best_gflops() > 0) {
      row.best_gflops = p.best_gflops();
      row.best_ms = static_cast<double>(t.flops) / static_cast<double>(t.count) / (p.best_gflops() * 1e9) * 1e3;
      if (!p.best_config_json().empty()) row.best_config = parse_json(p.best_config_json());
    }
    r.tasks.push_back(row);
  }
  return r;
}

// The target the key's boards build for (what `model build --target` takes to use their configs);
// empty when no board of the key is connected now.
std::string target_of_key(TrackerClient& client, const std::string& key) {
  v1::ListDevicesRequest req;
  req.set_device_key(key);
  v1::ListDevicesResponse resp;
  auto ctx = client.context();
  if (!client.stub().ListDevices(ctx.get(), req, &resp).ok() || resp.devices_size() == 0) return "";
  return resp.devices(0).target();
}

}  // namespace

int tune_model_on_fleet(const ModelTuneArgs& a, const ModelTasks& m, ModelTuneResult* out) {
  TrackerClient client(a.tracker);
  const v1::SubmitJobRequest req = model_job_request(a, m);
  if (std::string bad = fleet::invalid_utf8_field(req); !bad.empty()) throw UsageError(bad);
  v1::Job job;
  auto ctx = client.context();
  const auto start = std::chrono::steady_clock::now();
  if (grpc::Status s = client.stub().SubmitJob(ctx.get(), req, &job); !s.ok()) {
    return client.fail("tunefarm model tune", s);
  }
  std::fprintf(
      stderr,
      "model tune: job %lld on %s, key %s: %zu tasks, %lld trials, %s scheduler (tunefarm status %lld; cancel %lld)\n",
      static_cast<long long>(job.id()), client.address().c_str(), a.key.c_str(), m.tasks.size(),
      static_cast<long long>(a.tune.measure.trials), a.tune.scheduler.c_str(), static_cast<long long>(job.id()),
      static_cast<long long>(job.id()));
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  int64_t last_trials = -1;
  std::string last_message;
  // On a terminal every change redraws the line; in a log, a line per twentieth of the budget.
  const int64_t log_step = tty ? 1 : std::max<int64_t>(1, a.tune.measure.trials / 20);
  const grpc::Status s = watch_job(
      client, job.id(),
      [&](const v1::Job& snapshot) {
        job = snapshot;
        const int64_t done = trials_of(job);
        const bool ended = job.state() != v1::QUEUED && job.state() != v1::RUNNING;
        if (!a.quiet && (last_trials < 0 || done >= last_trials + log_step || ended || job.message() != last_message)) {
          std::fprintf(stderr, "%s[%5lld/%lld] estimated %.3g ms  %s  %.0f s%s%s%s", tty ? "\r\033[K" : "",
                       static_cast<long long>(done), static_cast<long long>(job.spec().trials()), job.estimated_ms(),
                       fleet::job_state_name(job.state()), job.elapsed_s(), job.message().empty() ? "" : "  ",
                       fleet::printable(job.message()).c_str(), tty ? "" : "\n");
          std::fflush(stderr);
          last_trials = done;
        }
        last_message = job.message();
      },
      "tunefarm model tune");
  if (tty && !a.quiet) std::fprintf(stderr, "\n");
  if (!s.ok()) return client.fail("tunefarm model tune", s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  *out = result_of(a, m, job, "key " + a.key + " via " + client.address(), seconds);
  out->target = target_of_key(client, a.key);
  return 0;
}

}  // namespace tf::cli
