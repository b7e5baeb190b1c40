// squeue --json and sinfo --json: the documents Slurm 22.05 prints through its openapi/v0.0.38
// plugin, built as nlohmann::ordered_json (keys in Slurm's order) and written the way json-c's
// pretty printer writes them:
//  * two-space indentation, "key": value, one member or element per line;
//  * empty arrays and objects still open a line ("[\n    ]");
//  * '/' is escaped as "\/", control characters as \n \t ... or \u00XX; other bytes as they are;
//  * reals keep a fraction ("1.0"); no newline after the closing brace.
// The document is {"meta": {plugin, Slurm version}, "errors": [], "jobs"|"nodes": [...]}. As in
// Slurm 22.05, the commands dump every job/node: filtering and formatting options are ignored.
//
// Job and node members follow Slurm's names and order. Values Gantry does not hold print as
// Slurm prints them for a job or node that lacks them (null, "", 0, as in the reference
// cluster's output): association_id 0, gres_detail [], nice null unless set, ...
// job_resources (started jobs only) lays the job's CPUs of each node over that node's sockets
// and cores, lowest first, as Slurm does for a job allocated from a whole node's first cores.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_OPENAPI_JSON_H_
#define GANTRY_SLURM_OPENAPI_JSON_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"

namespace gantry::slurm {

// json-c's JSON_C_TO_STRING_PRETTY output of `value`, without a trailing newline.
std::string DumpSlurmJson(const nlohmann::ordered_json& value);

// {"meta": ..., "errors": []} with the plugin and version of Slurm 22.05.8.
nlohmann::ordered_json OpenapiDocument();

struct OpenapiJobContext {
  std::string cluster;                 // "cluster" member
  std::vector<const v1::Node*> nodes;  // for job_resources' sockets and cores; not owned
};
nlohmann::ordered_json JobToOpenapi(const v1::Job& job, const OpenapiJobContext& ctx);

struct OpenapiNodeContext {
  // uid -> name for reason_set_by_user; empty or nullopt: the uid as a number.
  std::function<std::optional<std::string>(uint32_t)> user_name;
};
nlohmann::ordered_json NodeToOpenapi(const v1::Node& node, const OpenapiNodeContext& ctx);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_OPENAPI_JSON_H_
