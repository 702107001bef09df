// What the tracker accepts from boards registering and from clients asking for a Compare, checked
// apart from the services that act on it, so that a fuzzer can feed it anything a peer might send
// (fuzz/job_request_fuzz.cc). Job specs are checked in tracker/job_spec.h.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

#include "proto/tunefarm.pb.h"

namespace tf::tracker {

namespace v1 = ::tunefarm::v1;

// The board protocol this tracker speaks (BoardInfo.protocol_version).
constexpr int kBoardProtocolVersion = 1;

// A board's Register message: its protocol, key, threads and target. OK fills `target` with the
// target string its candidates are built for; otherwise the status names the field.
grpc::Status check_board_info(const v1::BoardInfo& info, std::string* target);

// The target string candidates for a board are built for, from what it registered. Throws
// tf::CompileError when LLVM cannot build for it.
std::string board_target(const v1::BoardInfo& info);

// The builder protocol this tracker speaks (BuilderInfo.protocol_version).
constexpr int kBuilderProtocolVersion = 1;

// A builder's Register message: its protocol, parallel builds, host name and target triples
// (INVALID_ARGUMENT or FAILED_PRECONDITION naming the field). The compiler version is the build
// pool's to compare.
grpc::Status check_builder_info(const v1::BuilderInfo& info);

// A Compare request's fields, before any board is asked: INVALID_ARGUMENT naming the field.
grpc::Status check_compare_request(const v1::CompareRequest& req);

}  // namespace tf::tracker
