// The tracker's checks of what clients and boards send over gRPC: a SubmitJob request's spec
// (tracker/job_spec.h), a Compare request and a board's or a builder's Register
// (tracker/request_checks.h). The input is a message in protobuf text format, its first line naming
// the message: "job\n" JobSpec, "compare\n" CompareRequest, "board\n" BoardInfo, "builder\n"
// BuilderInfo.
// Text rather than binary keeps the seeds readable; the binary decoding is protobuf's own.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "fuzz/fuzz_check.h"
#include "proto/tunefarm.pb.h"
#include "tracker/job_spec.h"
#include "tracker/request_checks.h"

namespace {

namespace v1 = ::tunefarm::v1;

// Protobuf logs every parse error to stderr; thousands per second would drown the fuzzer's output.
class Quiet : public google::protobuf::io::ErrorCollector {
  void AddError(int, int, const std::string&) override {}
};

void expect_named_refusal(const grpc::Status& s, const char* check) {
  if (!s.ok() && s.error_message().empty()) tf::fuzz::finding(std::string(check) + " refused without a message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  const std::string input = fuzz::as_text(data, size);
  const size_t eol = input.find('\n');
  if (eol == std::string::npos) return 0;
  const std::string kind = input.substr(0, eol), body = input.substr(eol + 1);
  google::protobuf::TextFormat::Parser parser;
  parser.AllowPartialMessage(true);
  static Quiet quiet;
  parser.RecordErrorsTo(&quiet);
  fuzz::expect_refusal_or_success<fuzz::NothingDocumented>([&] {
    if (kind == "job") {
      v1::JobSpec spec;
      if (!parser.ParseFromString(body, &spec)) return;
      expect_named_refusal(tracker::check_job_spec(&spec, [](const std::string&) { return true; }), "check_job_spec");
    } else if (kind == "compare") {
      v1::CompareRequest req;
      if (!parser.ParseFromString(body, &req)) return;
      expect_named_refusal(tracker::check_compare_request(req), "check_compare_request");
    } else if (kind == "board") {
      v1::BoardInfo info;
      if (!parser.ParseFromString(body, &info)) return;
      std::string target;
      const grpc::Status s = tracker::check_board_info(info, &target);
      expect_named_refusal(s, "check_board_info");
      if (s.ok() && target.empty()) fuzz::finding("check_board_info accepted a board without a target");
    } else if (kind == "builder") {
      v1::BuilderInfo info;
      if (!parser.ParseFromString(body, &info)) return;
      const grpc::Status s = tracker::check_builder_info(info);
      expect_named_refusal(s, "check_builder_info");
      if (s.ok() && (info.jobs() < 1 || info.triples_size() == 0))
        fuzz::finding("check_builder_info accepted a builder that builds nothing");
    }
  });
  return 0;
}
