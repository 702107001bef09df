// tunefarm._client: the tracker's Tuning service from Python (tunefarm.Client wraps it). Records
// come back as the dicts the CLI prints with --json (proto/json_convert.h); a failed call raises
// with the message the CLI prints. It links gRPC and the wire messages, never LLVM.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "proto/channel.h"
#include "proto/json_convert.h"
#include "proto/tokens.h"
#include "proto/tracker_client.h"
#include "proto/utf8.h"
#include "support/json.h"
#include "support/workload_key.h"

namespace py = pybind11;

namespace tf::python {
namespace {

namespace v1 = ::tunefarm::v1;

py::object to_python(const Json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

[[noreturn]] void raise_failure(const std::string& address, const grpc::Status& s) {
  const fleet::CallFailure f = fleet::describe_failure(address, s);
  switch (f.kind) {
    case fleet::CallFailure::kRefused:
      PyErr_SetString(PyExc_PermissionError, f.message.c_str());
      throw py::error_already_set();
    case fleet::CallFailure::kBadRequest: throw py::value_error(f.message);
    case fleet::CallFailure::kUnreachable:
      PyErr_SetString(PyExc_ConnectionError, f.message.c_str());
      throw py::error_already_set();
    case fleet::CallFailure::kTracker: break;
  }
  throw std::runtime_error(f.message);
}

void check_utf8(const google::protobuf::Message& m) {
  if (std::string bad = fleet::invalid_utf8_field(m); !bad.empty()) throw py::value_error(bad);
}

// One unary call with the GIL released; raises on failure.
template <typename Request, typename Response, typename Call>
Response call(fleet::TrackerClient& client, const Request& req, Call method) {
  Response resp;
  grpc::Status s;
  {
    py::gil_scoped_release unlocked;
    auto ctx = client.context();
    s = (client.stub().*method)(ctx.get(), req, &resp);
  }
  if (!s.ok()) raise_failure(client.address(), s);
  return resp;
}

// A job's snapshots, one per next(): from the tracker's WatchJob stream, re-opened for up to a minute
// while the tracker is away (it resumes the job when it restarts). Ctrl-C is noticed while waiting.
class JobWatch {
 public:
  JobWatch(std::shared_ptr<fleet::TrackerClient> client, int64_t id) : client_(std::move(client)), id_(id) {}
  ~JobWatch() { close(); }

  std::optional<py::object> next() {
    while (!ended_) {
      if (!reader_) open();
      v1::Job job;
      if (read(&job)) {
        absences_ = 0;
        return to_python(fleet::job_to_json(job));
      }
      grpc::Status s;
      {
        py::gil_scoped_release unlocked;
        s = reader_->Finish();
      }
      reader_.reset();
      ctx_.reset();
      if (s.ok()) break;
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE || ++absences_ > 60) {
        ended_ = true;
        raise_failure(client_->address(), s);
      }
      wait_interruptibly(std::chrono::seconds(1));
    }
    ended_ = true;
    return std::nullopt;
  }

  void close() {
    if (!reader_) return;
    ctx_->TryCancel();
    py::gil_scoped_release unlocked;
    reader_->Finish();
    reader_.reset();
    ctx_.reset();
    ended_ = true;
  }

 private:
  void open() {
    ctx_ = client_->context(0);
    v1::GetJobRequest req;
    req.set_job_id(id_);
    reader_ = client_->stub().WatchJob(ctx_.get(), req);
  }

  // A blocking Read on another thread, so this one can notice Ctrl-C: then the stream is cancelled.
  bool read(v1::Job* job) {
    auto pending = std::async(std::launch::async, [&] { return reader_->Read(job); });
    for (;;) {
      {
        py::gil_scoped_release unlocked;
        if (pending.wait_for(std::chrono::milliseconds(100)) == std::future_status::ready) break;
      }
      if (PyErr_CheckSignals() != 0) {
        ctx_->TryCancel();
        {
          py::gil_scoped_release unlocked;
          pending.wait();
          reader_->Finish();
        }
        reader_.reset();
        ctx_.reset();
        ended_ = true;
        throw py::error_already_set();
      }
    }
    return pending.get();
  }

  void wait_interruptibly(std::chrono::seconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
      {
        py::gil_scoped_release unlocked;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
  }

  std::shared_ptr<fleet::TrackerClient> client_;
  int64_t id_;
  std::unique_ptr<grpc::ClientContext> ctx_;
  std::unique_ptr<grpc::ClientReader<v1::Job>> reader_;
  int absences_ = 0;
  bool ended_ = false;
};

class Client {
 public:
  Client(const std::string& address, const std::optional<std::string>& token_file,
         const std::optional<std::string>& tls_ca) {
    if (address.empty() || fleet::printable(address) != address)
      throw py::value_error("address: '" + fleet::printable(address) + "' is not HOST:PORT");
    std::string token;
    try {
      token = fleet::caller_token(token_file.value_or(""));
    } catch (const std::exception& e) {
      throw py::value_error(std::string("token_file: ") + e.what());
    }
    std::shared_ptr<grpc::Channel> channel;
    try {
      channel = fleet::open_channel(address, tls_ca.value_or(""));
    } catch (const std::exception& e) {
      throw py::value_error(std::string("tls_ca: ") + e.what());
    }
    client_ = std::make_shared<fleet::TrackerClient>(address, token, channel);
  }

  const std::string& address() const { return client_->address(); }

  // `spec_json`: a job as `tunefarm submit --job` takes it; the tracker checks it.
  py::object submit(const std::string& spec_json) {
    if (std::string bad = fleet::utf8_error(spec_json); !bad.empty())
      throw py::value_error("job: not valid UTF-8: " + bad);
    v1::SubmitJobRequest req;
    req.set_spec_json(spec_json);
    return to_python(fleet::job_to_json(call<v1::SubmitJobRequest, v1::Job>(*client_, req, &Stub::SubmitJob)));
  }

  py::object status(int64_t id) {
    v1::GetJobRequest req;
    req.set_job_id(id);
    return to_python(fleet::job_to_json(call<v1::GetJobRequest, v1::Job>(*client_, req, &Stub::GetJob)));
  }

  py::list jobs(bool active) {
    v1::ListJobsRequest req;
    req.set_active_only(active);
    const auto resp = call<v1::ListJobsRequest, v1::ListJobsResponse>(*client_, req, &Stub::ListJobs);
    py::list out;
    for (const auto& job : resp.jobs()) out.append(to_python(fleet::job_to_json(job)));
    return out;
  }

  py::object cancel(int64_t id) {
    v1::CancelJobRequest req;
    req.set_job_id(id);
    return to_python(fleet::job_to_json(call<v1::CancelJobRequest, v1::Job>(*client_, req, &Stub::CancelJob)));
  }

  py::list devices(const std::string& key) {
    v1::ListDevicesRequest req;
    req.set_device_key(key);
    check_utf8(req);
    const auto resp = call<v1::ListDevicesRequest, v1::ListDevicesResponse>(*client_, req, &Stub::ListDevices);
    py::list out;
    for (const auto& d : resp.devices()) out.append(to_python(fleet::device_to_json(d)));
    return out;
  }

  py::object best(const std::string& key, const std::string& op, const std::vector<int64_t>& shape,
                  const std::string& timing) {
    v1::GetBestRequest req;
    req.mutable_workload()->set_op(op);
    for (int64_t d : shape) req.mutable_workload()->add_shape(d);
    req.set_device_key(key);
    req.set_timing(timing);
    check_utf8(req);
    const auto resp = call<v1::GetBestRequest, v1::GetBestResponse>(*client_, req, &Stub::GetBest);
    if (!resp.found()) return py::none();
    Json config;
    try {
      config = parse_json(resp.config_json());
    } catch (const std::exception&) {
      config = resp.config_json();
    }
    Json costs = Json::array();
    for (double c : resp.costs()) costs.push_back(c);
    return to_python({{"workload", workload_key(op, shape)},
                      {"key", key},
                      {"gflops", resp.gflops()},
                      {"config", config},
                      {"target", resp.target()},
                      {"device", resp.device()},
                      {"job_id", resp.job_id()},
                      {"emulated", resp.emulated()},
                      {"timing", resp.timing()},
                      {"costs", costs}});
  }

  std::unique_ptr<JobWatch> watch(int64_t id) { return std::make_unique<JobWatch>(client_, id); }

 private:
  using Stub = v1::Tuning::Stub;
  std::shared_ptr<fleet::TrackerClient> client_;
};

}  // namespace
}  // namespace tf::python

PYBIND11_MODULE(_client, m) {
  using tf::python::Client;
  using tf::python::JobWatch;
  m.doc() = "tunefarm's tracker client from Python (tunefarm.Client wraps it).";
  py::class_<JobWatch>(m, "JobWatch")
      .def("next", &JobWatch::next, "the next snapshot of the job, or None once it ended")
      .def("close", &JobWatch::close, "stops watching");
  py::class_<Client>(m, "Client")
      .def(py::init<const std::string&, const std::optional<std::string>&, const std::optional<std::string>&>(),
           py::arg("address"), py::arg("token_file") = py::none(), py::arg("tls_ca") = py::none())
      .def_property_readonly("address", &Client::address)
      .def("submit", &Client::submit, py::arg("spec_json"))
      .def("status", &Client::status, py::arg("job_id"))
      .def("jobs", &Client::jobs, py::arg("active") = false)
      .def("cancel", &Client::cancel, py::arg("job_id"))
      .def("devices", &Client::devices, py::arg("key") = "")
      .def("best", &Client::best, py::arg("key"), py::arg("op"), py::arg("shape"), py::arg("timing") = "")
      .def("watch", &Client::watch, py::arg("job_id"));
}
