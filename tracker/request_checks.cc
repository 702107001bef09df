#include "tracker/request_checks.h"

#include <algorithm>
#include <cctype>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "compiler/ops/operator.h"
#include "proto/measure_wire.h"
#include "proto/utf8.h"
#include "runtime/measure.h"
#include "tracker/job_spec.h"

namespace tf::tracker {
namespace {

// A CI run compares a handful of builds; more would hold a board for long.
constexpr int kMaxCompareKernels = 16;

grpc::Status invalid(const std::string& what) { return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, what); }

}  // namespace

std::string board_target(const v1::BoardInfo& info) {
  std::vector<std::string> flags(info.cpu_features().begin(), info.cpu_features().end());
  return codegen::target_from_cpu_flags(info.target_triple(), flags).str();
}

grpc::Status check_board_info(const v1::BoardInfo& info, std::string* target) {
  if (info.protocol_version() != kBoardProtocolVersion) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "board speaks protocol " + std::to_string(info.protocol_version()) + ", this tracker " +
                            std::to_string(kBoardProtocolVersion) + "; upgrade the older side");
  }
  if (!valid_device_key(info.device_key())) {
    return invalid("key: '" + fleet::printable(info.device_key()) +
                   "' is not a device key (letters, digits, '.', '_', '-'; at most 64)");
  }
  if (info.threads() < 1 || info.threads() > 1024) return invalid("threads: must be 1 to 1024");
  try {
    *target = board_target(info);
  } catch (const CompileError& e) {
    return invalid(std::string("target: ") + e.what());
  }
  return grpc::Status::OK;
}

grpc::Status check_builder_info(const v1::BuilderInfo& info) {
  if (info.protocol_version() != kBuilderProtocolVersion) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "builder speaks protocol " + std::to_string(info.protocol_version()) + ", this tracker " +
                            std::to_string(kBuilderProtocolVersion) + "; upgrade the older side");
  }
  if (info.jobs() < 1 || info.jobs() > 256) return invalid("jobs: " + std::to_string(info.jobs()) + " (1..256)");
  if (info.hostname().empty() || info.hostname().size() > 255 || fleet::printable(info.hostname()) != info.hostname())
    return invalid("hostname: '" + fleet::printable(info.hostname().substr(0, 255)) + "' is not a host name");
  if (info.triples_size() < 1 || info.triples_size() > 16)
    return invalid("triples: " + std::to_string(info.triples_size()) + " given, 1..16 allowed");
  for (const std::string& t : info.triples()) {
    const bool plain = !t.empty() && t.size() <= 128 && std::all_of(t.begin(), t.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
    if (!plain) return invalid("triples: '" + fleet::printable(t.substr(0, 128)) + "' is not a target triple");
  }
  if (info.compiler_version().size() > 256) return invalid("compiler_version: longer than 256 bytes");
  return grpc::Status::OK;
}

grpc::Status check_compare_request(const v1::CompareRequest& req) {
  if (req.device_key().empty()) return invalid("device_key: missing");
  const ops::Workload workload{req.workload().op(), {req.workload().shape().begin(), req.workload().shape().end()}};
  try {
    ops::check_workload(workload);
  } catch (const std::exception& e) {
    return invalid(std::string("workload: ") + e.what());
  }
  if (req.kernels_size() < 1 || req.kernels_size() > kMaxCompareKernels) {
    return invalid("kernels: " + std::to_string(req.kernels_size()) + " given, 1.." +
                   std::to_string(kMaxCompareKernels) + " allowed");
  }
  for (int k = 0; k < req.kernels_size(); ++k) {
    const auto& kernel = req.kernels(k);
    if (kernel.library().empty()) return invalid("kernels[" + std::to_string(k) + "].library: empty");
    if (kernel.entry_symbol().empty()) return invalid("kernels[" + std::to_string(k) + "].entry_symbol: empty");
  }
  if (req.rounds() < 1 || req.rounds() > 1000) return invalid("rounds: " + std::to_string(req.rounds()) + " (1..1000)");
  if (std::string bad = runtime::measure_options_error(fleet::from_wire(req.measure())); !bad.empty())
    return invalid("measure." + bad);
  return grpc::Status::OK;
}

}  // namespace tf::tracker
