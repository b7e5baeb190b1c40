// gantry-slurm-remote: the Slurm commands with the gRPC transport, for controllers on other hosts
// (TCP, credentials). gantry-slurm hands over to it when the controller in effect needs that.
#include "slurm/commands.h"
#include "slurm_remote/grpc_transport.h"

int main(int argc, char** argv) {
  gantry::slurm::UseGrpcForRemoteControllers();
  return gantry::slurm::SlurmMain(argc, argv);
}
