// The client-facing gRPC service: submit, watch, cancel and list jobs; list devices; best configs;
// side-by-side comparisons of kernels on one board (tracker/compare.h).
#pragma once

#include <mutex>

#include "db/database.h"
#include "proto/tunefarm.grpc.pb.h"
#include "tracker/auth.h"
#include "tracker/dispatcher.h"
#include "tracker/job_manager.h"

namespace tf::tracker {

class TuningService final : public v1::Tuning::Service {
 public:
  TuningService(JobManager& jobs, Dispatcher& dispatcher, const Authenticator& auth, const std::string& db_path);

  grpc::Status SubmitJob(grpc::ServerContext* ctx, const v1::SubmitJobRequest* req, v1::Job* out) override;
  grpc::Status GetJob(grpc::ServerContext* ctx, const v1::GetJobRequest* req, v1::Job* out) override;
  grpc::Status WatchJob(grpc::ServerContext* ctx, const v1::GetJobRequest* req,
                        grpc::ServerWriter<v1::Job>* writer) override;
  grpc::Status CancelJob(grpc::ServerContext* ctx, const v1::CancelJobRequest* req, v1::Job* out) override;
  grpc::Status ListJobs(grpc::ServerContext* ctx, const v1::ListJobsRequest* req, v1::ListJobsResponse* out) override;
  grpc::Status ListDevices(grpc::ServerContext* ctx, const v1::ListDevicesRequest* req,
                           v1::ListDevicesResponse* out) override;
  grpc::Status GetBest(grpc::ServerContext* ctx, const v1::GetBestRequest* req, v1::GetBestResponse* out) override;
  grpc::Status Compare(grpc::ServerContext* ctx, const v1::CompareRequest* req, v1::CompareResponse* out) override;

 private:
  grpc::Status reader(grpc::ServerContext* ctx, const char* call, Principal* who);
  grpc::Status best_of(const v1::GetBestRequest* req, v1::GetBestResponse* out);

  JobManager& jobs_;
  Dispatcher& dispatcher_;
  const Authenticator& auth_;
  std::mutex db_mu_;
  db::Database db_;  // for GetBest
};

}  // namespace tf::tracker
