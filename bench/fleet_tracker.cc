#include "bench/fleet_tracker.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "proto/channel.h"
#include "support/files.h"

namespace tf::bench {

bool wait_until(const std::function<bool()>& ok, double seconds) {
  return poll_until(ok, std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

BenchTracker::BenchTracker(const std::string& dir, const std::string& db, int build_threads,
                           const std::vector<std::string>& extra)
    : port_(free_loopback_port()) {
  const std::string port_file = dir + "/port";
  std::remove(port_file.c_str());
  std::vector<std::string> argv{TF_TRACKER,
                                "--listen",
                                address(),
                                "--db",
                                db,
                                "--port-file",
                                port_file,
                                "--build-threads",
                                std::to_string(build_threads)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  process_ = std::make_unique<Subprocess>(argv, dir + "/tracker-" + std::to_string(port_) + ".log");
  if (!wait_until([&] { return std::ifstream(port_file).good(); }, 30)) {
    throw std::runtime_error("the tracker did not start:\n" + process_->output());
  }
  stub_ = v1::Tuning::NewStub(fleet::open_channel(address(), ""));
}

int BenchTracker::devices(const std::string& key) {
  grpc::ClientContext ctx;
  v1::ListDevicesRequest req;
  req.set_device_key(key);
  v1::ListDevicesResponse r;
  return stub_->ListDevices(&ctx, req, &r).ok() ? r.devices_size() : -1;
}

v1::Job BenchTracker::run(const v1::JobSpec& spec) {
  v1::SubmitJobRequest req;
  *req.mutable_spec() = spec;
  v1::Job job;
  {
    grpc::ClientContext ctx;
    grpc::Status s = stub_->SubmitJob(&ctx, req, &job);
    if (!s.ok()) throw std::runtime_error("submit: " + s.error_message());
  }
  grpc::ClientContext ctx;
  v1::GetJobRequest get;
  get.set_job_id(job.id());
  auto reader = stub_->WatchJob(&ctx, get);
  while (reader->Read(&job)) {
  }
  reader->Finish();
  if (job.state() != v1::DONE) throw std::runtime_error("job " + std::to_string(job.id()) + " ended " + job.message());
  return job;
}

double BenchTracker::cpu_seconds() const {
  std::ifstream stat("/proc/" + std::to_string(process_->pid()) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

v1::JobSpec dense_spec(const std::string& key, std::vector<int64_t> shape, int64_t trials, int batch, double min_ms,
                       uint64_t seed) {
  v1::JobSpec spec;
  auto* w = spec.add_workloads();
  w->set_op("dense");
  for (int64_t d : shape) w->add_shape(d);
  spec.set_device_key(key);
  spec.set_trials(trials);
  spec.set_tuner("random");
  spec.set_seed(seed);
  spec.set_batch(batch);
  spec.mutable_measure()->set_min_repeat_ms(min_ms);
  spec.mutable_measure()->set_repeat(3);
  return spec;
}

}  // namespace tf::bench
