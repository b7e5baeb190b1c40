// transport_probe: attacks a running cluster's TCP transport the way the security review's H1
// did, and checks that each attack is refused (and that the legitimate call still works).
//
// usage: transport_probe STATE_DIR CLUSTER_NAME NODE_A NODE_B
//   Reads DIR/run/gantryd.addr, DIR/cluster.key and DIR/tls/ (run it as root). NODE_A must be a
//   registered node (its agent is attacked at the address the controller lists); NODE_B another
//   node whose certificate plays the compromised node.
// Prints one line per case ("ok   <case>: <what happened>" or "FAIL <case>: ...") and exits 0
// when every case behaved, 1 otherwise, 2 on bad usage or unreadable files.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <string>

#include "gantry/v1/agent.grpc.pb.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "rpc/credential.h"
#include "sys/files.h"
#include "tls/cluster_tls.h"

namespace {

using namespace gantry;  // NOLINT: a test program

int failures = 0;

std::string Describe(const grpc::Status& s) {
  return s.ok() ? "accepted" : "code " + std::to_string(s.error_code()) + ": " + s.error_message();
}

// Expects `status` to have `code` (and, when not empty, `text` in its message).
void Expect(const std::string& name, const grpc::Status& status, grpc::StatusCode code,
            const std::string& text = "") {
  const bool good = status.error_code() == code &&
                    (text.empty() || status.error_message().find(text) != std::string::npos);
  std::printf("%s %s: %s\n", good ? "ok  " : "FAIL", name.c_str(), Describe(status).c_str());
  if (!good) ++failures;
}

grpc::ClientContext* Fresh(grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  return context;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: transport_probe STATE_DIR CLUSTER_NAME NODE_A NODE_B\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::string cluster = argv[2];
  const std::string node_a = argv[3];
  const std::string node_b = argv[4];
  const tls::TlsPaths paths{dir + "/tls"};
  Result<std::string> addr = sys::ReadText(dir + "/run/gantryd.addr");
  Result<rpc::ClusterKey> key = rpc::LoadClusterKey(dir + "/cluster.key");
  Result<tls::Identity> controller_id =
      tls::LoadIdentity(paths.ca_cert(), paths.controller_cert(), paths.controller_key());
  Result<tls::Identity> node_a_id =
      tls::LoadIdentity(paths.ca_cert(), paths.node_cert(node_a), paths.node_key(node_a));
  Result<tls::Identity> node_b_id =
      tls::LoadIdentity(paths.ca_cert(), paths.node_cert(node_b), paths.node_key(node_b));
  for (const Status& s : {addr.status(), key.status(), controller_id.status(), node_a_id.status(),
                          node_b_id.status()}) {
    if (!s.ok()) {
      std::fprintf(stderr, "transport_probe: %s\n", s.message().c_str());
      return 2;
    }
  }
  std::string address = *addr;
  while (!address.empty() && (address.back() == '\n' || address.back() == ' ')) address.pop_back();

  auto tls_channel = [&](const tls::Identity* client, const std::string& name,
                         const std::string& target) {
    grpc::ChannelArguments args;
    tls::ExpectServerName(&args, name);
    return grpc::CreateCustomChannel(target, tls::ChannelCredentials(controller_id->ca_pem, client),
                                     args);
  };
  auto controller = v1::Controller::NewStub(tls_channel(nullptr, tls::kControllerName, address));
  auto sign = [&](const google::protobuf::Message& request, const std::string& audience) {
    return rpc::SignCredential(*key, 0, 0, std::time(nullptr), rpc::BindCall(request, audience));
  };
  // A credential and the call it claims to be for (the x-gantry-call header).
  auto attach = [&](grpc::ClientContext* context, const std::string& credential,
                    const google::protobuf::Message& claimed) {
    context->AddMetadata(rpc::kCredentialKey, credential);
    context->AddMetadata(rpc::kCallKey, rpc::CallHeader(rpc::BindCall(claimed, cluster)));
  };

  // 1. Plain text is not spoken by the controller.
  {
    auto plain =
        v1::Controller::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    v1::PingReply reply;
    Expect("controller refuses plain text", plain->Ping(Fresh(&context), {}, &reply),
           grpc::StatusCode::UNAVAILABLE);
  }
  // 2. A credential is accepted once, for its own call, body and cluster only.
  v1::SignalJobRequest probe;  // a cancel of a job that does not exist: harmless when accepted
  probe.add_job_ids("4000000");
  const std::string cred = sign(probe, cluster);
  {
    grpc::ClientContext context;
    attach(&context, cred, probe);
    v1::SignalJobReply reply;
    const grpc::Status s = controller->SignalJob(Fresh(&context), probe, &reply);
    const bool authenticated = s.error_code() != grpc::StatusCode::UNAUTHENTICATED &&
                               s.error_code() != grpc::StatusCode::UNAVAILABLE;
    std::printf("%s a fresh credential is accepted: %s\n", authenticated ? "ok  " : "FAIL",
                Describe(s).c_str());
    if (!authenticated) ++failures;
  }
  {
    grpc::ClientContext context;
    attach(&context, cred, probe);
    v1::SignalJobReply reply;
    Expect("the same credential again (replay)",
           controller->SignalJob(Fresh(&context), probe, &reply), grpc::StatusCode::UNAUTHENTICATED,
           "replayed");
  }
  {
    v1::SignalJobRequest other = probe;
    other.set_signal(9);
    grpc::ClientContext context;
    attach(&context, sign(probe, cluster), probe);
    v1::SignalJobReply reply;
    Expect("a credential moved onto another body",
           controller->SignalJob(Fresh(&context), other, &reply), grpc::StatusCode::UNAUTHENTICATED,
           "signature");
  }
  {
    grpc::ClientContext context;
    attach(&context, sign(probe, cluster), probe);
    v1::PingReply reply;
    Expect("a credential moved onto another method",
           controller->Ping(Fresh(&context), v1::PingRequest(), &reply),
           grpc::StatusCode::UNAUTHENTICATED, "signature");
  }
  {
    grpc::ClientContext context;
    attach(&context, sign(probe, cluster + "-other"), probe);
    v1::SignalJobReply reply;
    Expect("a credential made for another cluster",
           controller->SignalJob(Fresh(&context), probe, &reply), grpc::StatusCode::UNAUTHENTICATED,
           "signature");
  }
  {
    grpc::ClientContext context;
    attach(&context,
           rpc::SignCredential(*key, 0, 0, std::time(nullptr) - 120, rpc::BindCall(probe, cluster)),
           probe);
    v1::SignalJobReply reply;
    Expect("a credential two minutes old", controller->SignalJob(Fresh(&context), probe, &reply),
           grpc::StatusCode::UNAUTHENTICATED, "expired");
  }
  // 2b. Without a credential that holds, a large request is refused from its headers, before
  // gantryd reads it (review M7).
  {
    v1::SubmitJobRequest big;
    big.mutable_payload()->set_script("#!/bin/sh\n" + std::string(size_t{32} << 20, '#'));
    const std::string forged = "v2:0:0:" + std::to_string(std::time(nullptr)) + ":" +
                               std::string(32, 'a') + ":" + std::string(64, '0');
    grpc::ClientContext forged_context;
    attach(&forged_context, forged, big);
    v1::SubmitJobReply reply;
    Expect("a forged credential on a 32 MiB submission",
           controller->SubmitJob(Fresh(&forged_context), big, &reply),
           grpc::StatusCode::UNAUTHENTICATED,
           "refused before the request was read: credential "
           "signature does not match");
    grpc::ClientContext munge_context;
    munge_context.AddMetadata(rpc::kMungeKey, "MUNGE:" + std::string(200, 'A') + ":");
    munge_context.AddMetadata(rpc::kCallKey, rpc::CallHeader(rpc::BindCall(big, cluster)));
    Expect("a forged MUNGE credential on a 32 MiB submission",
           controller->SubmitJob(Fresh(&munge_context), big, &reply),
           grpc::StatusCode::UNAUTHENTICATED,
           "refused before the request was read: munge credential refused");
    grpc::ClientContext bare_context;
    Expect("no credential on a 32 MiB submission",
           controller->SubmitJob(Fresh(&bare_context), big, &reply),
           grpc::StatusCode::UNAUTHENTICATED, "refused before the request was read: no credential");
  }
  // 3. Only a node's own certificate speaks for it on NodeLink.
  v1::RegisterRequest hijack;
  hijack.set_node(node_a);
  hijack.set_address("127.0.0.1:1");
  {
    auto link = v1::NodeLink::NewStub(tls_channel(&*node_b_id, tls::kControllerName, address));
    grpc::ClientContext context;
    v1::RegisterReply reply;
    Expect("node " + node_b + "'s certificate registers " + node_a,
           link->Register(Fresh(&context), hijack, &reply), grpc::StatusCode::UNAUTHENTICATED,
           "may not speak for node " + node_a);
  }
  {
    auto link = v1::NodeLink::NewStub(tls_channel(nullptr, tls::kControllerName, address));
    grpc::ClientContext context;
    attach(&context, sign(hijack, cluster), hijack);
    v1::RegisterReply reply;
    Expect("the cluster key registers " + node_a + " without its certificate",
           link->Register(Fresh(&context), hijack, &reply), grpc::StatusCode::UNAUTHENTICATED,
           "no certificate");
  }
  // 4. An agent obeys only the controller's certificate.
  std::string agent_address;
  {
    v1::GetNodesRequest request;
    grpc::ClientContext context;
    attach(&context, sign(request, cluster), request);
    v1::GetNodesReply reply;
    const grpc::Status s = controller->GetNodes(Fresh(&context), request, &reply);
    for (const v1::Node& n : reply.nodes()) {
      if (n.name() == node_a) agent_address = n.address();
    }
    if (!s.ok() || agent_address.empty()) {
      std::printf("FAIL listing %s's address: %s\n", node_a.c_str(), Describe(s).c_str());
      ++failures;
    }
  }
  if (!agent_address.empty()) {
    auto as_node =
        v1::Agent::NewStub(tls_channel(&*node_b_id, tls::NodeCertName(node_a), agent_address));
    grpc::ClientContext context;
    v1::AgentPingReply reply;
    Expect("node " + node_b + "'s certificate calls " + node_a + "'s agent",
           as_node->Ping(Fresh(&context), {}, &reply), grpc::StatusCode::PERMISSION_DENIED,
           "is not the controller's");
    auto anonymous =
        v1::Agent::NewStub(tls_channel(nullptr, tls::NodeCertName(node_a), agent_address));
    grpc::ClientContext c2;
    Expect("no certificate calls " + node_a + "'s agent", anonymous->Ping(Fresh(&c2), {}, &reply),
           grpc::StatusCode::UNAVAILABLE);
    auto plain =
        v1::Agent::NewStub(grpc::CreateChannel(agent_address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext c3;
    Expect("plain text to " + node_a + "'s agent", plain->Ping(Fresh(&c3), {}, &reply),
           grpc::StatusCode::UNAVAILABLE);
    auto as_controller =
        v1::Agent::NewStub(tls_channel(&*controller_id, tls::NodeCertName(node_a), agent_address));
    grpc::ClientContext c4;
    Expect("the controller's certificate calls " + node_a + "'s agent",
           as_controller->Ping(Fresh(&c4), {}, &reply), grpc::StatusCode::OK);
  }
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
