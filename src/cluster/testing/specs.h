// Small local cluster specs for the lifecycle tests: cluster "t", login pool "login" (1 node),
// compute pool "cpu" with `nodes` nodes (t-cpu-0 ...), partitions "cpu" (default) and "debug".
#ifndef GANTRY_CLUSTER_TESTING_SPECS_H_
#define GANTRY_CLUSTER_TESTING_SPECS_H_

#include <string>

namespace gantry::cluster::testing {

inline std::string SmallSpecText(int nodes, const std::string& name = "t",
                                 const std::string& machine_type = "n2-standard-4") {
  const std::string n = std::to_string(nodes);
  return R"({
  "display_name": ")" +
         name + R"(",
  "node_pools": [
    {"id": "login", "machine_spec": {"machine_type": "n2-standard-2"},
     "scaling_spec": {"min_node_count": 1, "max_node_count": 1}},
    {"id": "cpu", "machine_spec": {"machine_type": ")" +
         machine_type + R"("},
     "scaling_spec": {"min_node_count": )" +
         n + R"(, "max_node_count": )" + n + R"(}}
  ],
  "orchestrator_spec": {"slurm_spec": {
    "login_node_pool_id": "login",
    "home_directory_storage": "/home",
    "partitions": [{"id": "cpu", "node_pool_ids": ["cpu"]},
                   {"id": "debug", "node_pool_ids": ["cpu"], "config": {"MaxTime": "30"}}]
  }}
}
)";
}

}  // namespace gantry::cluster::testing

#endif  // GANTRY_CLUSTER_TESTING_SPECS_H_
