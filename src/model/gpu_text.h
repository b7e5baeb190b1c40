// How scontrol show job -d names a job's GPUs (Job.node_gpus). Pure; thread-safe.
#ifndef GANTRY_MODEL_GPU_TEXT_H_
#define GANTRY_MODEL_GPU_TEXT_H_

#include <string>

#include "gantry/v1/job.pb.h"

namespace gantry::model {

// A node's share with its device indices, "gpu:b200:4(IDX:0-3)"; "" when it holds none.
std::string FormatGresWithIndexes(const v1::NodeGpus& gpus);

// JOB_GRES=: the GPUs of every node together, named as the nodes name them ("gpu:b200:8" for
// 4 on each of two nodes); "" when it holds none.
std::string JobGresTotal(const v1::Job& job);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_GPU_TEXT_H_
