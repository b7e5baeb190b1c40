// What every gantry-restd route works with: the daemon's settings, one call (the HTTP request,
// its path parameters, a controller client acting as the caller) and its reply, written in
// slurmrestd's envelope:
//   {<payload members>, "meta": {plugin, client, command, slurm {version, release, cluster}},
//    "errors": [{description, error_number, error, source}], "warnings": [{description, source}]}
// A handler writes its payload members with Reply::out() (required members even when it fails,
// so that an error reply still has the response schema's shape) and records errors and warnings;
// the router adds meta, errors and warnings and closes the object.
//
// Errors from gantryd keep Slurm's texts: `error` is the text (what the commands print),
// `error_number` Slurm's number for it, `description` what the route was doing, `source` where
// in the request the problem is ("#/job/time_limit") or the route. HTTP status codes as
// slurmrestd's (HttpStatusOf).
// Thread-compatible: one Call and Reply per request.
#ifndef GANTRY_REST_API_H_
#define GANTRY_REST_API_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "gantry/v1/controller.pb.h"
#include "http/http_server.h"
#include "rest/json_out.h"
#include "slurm/controller_client.h"

namespace gantry::rest {

using http::HttpRequest;
using http::HttpResponse;

// The Slurm release whose API (v0.0.42, the 24.11 one) gantry-restd serves: clients choose what to
// call by meta.slurm.release.
inline constexpr char kApiVersion[] = "v0.0.42";
inline constexpr char kSlurmMajor[] = "24";
inline constexpr char kSlurmMinor[] = "11";
inline constexpr char kSlurmMicro[] = "0";

struct RestConfig {
  std::string cluster_name;
  std::string command_socket;  // gantryd's (wire/frame.h)
  uid_t own_uid = 0;           // unix-socket clients of this uid need no token
  std::string version;         // Gantry's
  std::string hostname;        // this host's short name (SubmitHost of submissions)
};

struct ApiError {
  std::string description;
  int error_number = 0;
  std::string error;
  std::string source;
};

struct ApiWarning {
  std::string description;
  std::string source;
};

class Reply {
 public:
  Reply() { out_.Reserve(4096); }
  // The payload's members go here (the router has opened the object).
  JsonOut& out() { return out_; }

  // Records a failure: the first one sets the HTTP status.
  void Fail(int http_status, ApiError error);
  // Records gantryd's refusal `status` of what `description` says was being done.
  void Fail(const Status& status, std::string description, std::string source);
  void Warn(std::string description, std::string source);

  int status() const { return status_; }
  bool failed() const { return !errors_.empty(); }
  const std::vector<ApiError>& errors() const { return errors_; }
  const std::vector<ApiWarning>& warnings() const { return warnings_; }
  // Responses that are not the JSON envelope (/openapi.json is, /ui's files are not).
  void SetRaw(HttpResponse response) { raw_ = std::move(response); }
  std::optional<HttpResponse>& raw() { return raw_; }

 private:
  JsonOut out_;
  int status_ = 200;
  std::vector<ApiError> errors_;
  std::vector<ApiWarning> warnings_;
  std::optional<HttpResponse> raw_;
};

struct Call {
  const HttpRequest& request;
  const RestConfig& config;
  std::map<std::string, std::string> params;  // the path's {parameters}
  // gantryd, as the caller; null for routes that need no controller.
  slurm::ControllerClient* controller = nullptr;
  std::string user;    // the caller's name, for meta.client
  std::string source;  // where the request came from, for meta.client

  // The path parameter `name` (the route declares it).
  const std::string& Param(const std::string& name) const { return params.at(name); }
};

// slurmrestd's HTTP status for a refusal: 404 for what does not exist, 400 for bad input, 403 for
// a permission refused, 409 for the wrong state, 429 for too many, 502 when gantryd is
// unreachable, 500 otherwise.
int HttpStatusOf(const Status& status);

// A job id in a path or query ("12"): 1 to 2^32-1; nullopt for anything else.
std::optional<uint32_t> ParseJobId(const std::string& text);

// A per-job refusal in a SignalJob/UpdateJob reply (its code is a gRPC code) as a Status whose
// message is Slurm's text without the command's prefix ("Kill job error on job id 12: ").
Status StatusOfJobError(const v1::JobError& error);

}  // namespace gantry::rest

#endif  // GANTRY_REST_API_H_
