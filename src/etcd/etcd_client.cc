#include "etcd/etcd_client.h"

#include <utility>

#include "rpc/grpc_status.h"

namespace gantry::etcd {
namespace {

KeyValue FromProto(const mvccpb::KeyValue& kv) {
  return KeyValue{kv.key(),          kv.value(),   kv.create_revision(),
                  kv.mod_revision(), kv.version(), kv.lease()};
}

// How long a member not yet connected gets to connect before the others are tried first.
constexpr std::chrono::milliseconds kConnectProbe{300};

bool Unreachable(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

void ToProto(const Op& op, etcdserverpb::RequestOp* out) {
  if (op.value) {
    etcdserverpb::PutRequest* put = out->mutable_request_put();
    put->set_key(op.key);
    put->set_value(*op.value);
    put->set_lease(op.lease);
  } else {
    out->mutable_request_delete_range()->set_key(op.key);
    out->mutable_request_delete_range()->set_range_end(op.range_end);
  }
}

}  // namespace

Compare Missing(std::string key) {
  return Compare{std::move(key), Compare::Target::kCreateRevision, 0, "", true};
}

Compare CreatedAt(std::string key, int64_t revision) {
  return Compare{std::move(key), Compare::Target::kCreateRevision, revision, "", true};
}

std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(end.back() + 1);
      return end;
    }
    end.pop_back();
  }
  end.assign(1, '\0');  // every key
  return end;
}

EtcdClient::EtcdClient(std::vector<std::string> endpoints, std::chrono::milliseconds call_timeout)
    : call_timeout_(call_timeout) {
  for (std::string& endpoint : endpoints) {
    Member m;
    m.endpoint = std::move(endpoint);
    // A member that was down is tried again within a second (gRPC's default backoff grows to
    // two minutes): a failover must find the members that are back.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    args.SetMaxReceiveMessageSize(64 << 20);
    args.SetMaxSendMessageSize(64 << 20);
    m.channel = grpc::CreateCustomChannel(m.endpoint, grpc::InsecureChannelCredentials(), args);
    m.kv = etcdserverpb::KV::NewStub(m.channel);
    m.lease = etcdserverpb::Lease::NewStub(m.channel);
    m.watch = etcdserverpb::Watch::NewStub(m.channel);
    members_.push_back(std::move(m));
  }
}

Status EtcdClient::Call(const std::string& what,
                        const std::function<grpc::Status(Member&, grpc::ClientContext&)>& call) {
  if (members_.empty()) return Unavailable("etcd: no endpoint");
  const size_t first = current_.load();
  grpc::Status status;
  // First the members this client is connected to or connects to at once; then, as a last
  // resort, the others with the whole timeout. A member cut off the network (its connection
  // attempts unanswered) thus costs a failover a moment, not a call timeout.
  std::vector<size_t> later;
  for (int pass = 0; pass < 2; ++pass) {
    const size_t count = pass == 0 ? members_.size() : later.size();
    for (size_t i = 0; i < count; ++i) {
      const size_t at = pass == 0 ? (first + i) % members_.size() : later[i];
      Member& m = members_[at];
      if (pass == 0 && members_.size() > 1 && m.channel->GetState(true) != GRPC_CHANNEL_READY &&
          !m.channel->WaitForConnected(std::chrono::system_clock::now() + kConnectProbe)) {
        later.push_back(at);
        continue;
      }
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + call_timeout_);
      status = call(m, context);
      if (!Unreachable(status)) {
        current_ = at;
        if (status.ok()) return Status::Ok();
        const Status s = rpc::FromGrpcCode(status);
        return {s.code(), "etcd " + what + ": " + status.error_message()};
      }
    }
  }
  return Unavailable("etcd " + what + ": no member answered (" + status.error_message() + ")");
}

Result<int64_t> EtcdClient::Put(const std::string& key, const std::string& value, int64_t lease) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  etcdserverpb::PutResponse reply;
  GANTRY_RETURN_IF_ERROR(Call("put " + key, [&](Member& m, grpc::ClientContext& c) {
    return m.kv->Put(&c, request, &reply);
  }));
  return reply.header().revision();
}

Result<std::optional<KeyValue>> EtcdClient::Get(const std::string& key) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  etcdserverpb::RangeResponse reply;
  GANTRY_RETURN_IF_ERROR(Call("get " + key, [&](Member& m, grpc::ClientContext& c) {
    return m.kv->Range(&c, request, &reply);
  }));
  if (reply.kvs().empty()) return std::optional<KeyValue>();
  return std::optional<KeyValue>(FromProto(reply.kvs(0)));
}

Result<std::vector<KeyValue>> EtcdClient::GetPrefix(const std::string& prefix, int64_t limit,
                                                    const std::string& from) {
  etcdserverpb::RangeRequest request;
  request.set_key(from.empty() ? prefix : from);
  request.set_range_end(PrefixEnd(prefix));
  request.set_limit(limit);
  etcdserverpb::RangeResponse reply;
  GANTRY_RETURN_IF_ERROR(Call("get " + prefix + "*", [&](Member& m, grpc::ClientContext& c) {
    return m.kv->Range(&c, request, &reply);
  }));
  std::vector<KeyValue> out;
  out.reserve(reply.kvs_size());
  for (const mvccpb::KeyValue& kv : reply.kvs()) out.push_back(FromProto(kv));
  return out;
}

Result<std::optional<KeyValue>> EtcdClient::GetLast(const std::string& prefix) {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix);
  request.set_range_end(PrefixEnd(prefix));
  request.set_limit(1);
  request.set_sort_order(2);   // descending
  request.set_sort_target(0);  // by key
  etcdserverpb::RangeResponse reply;
  GANTRY_RETURN_IF_ERROR(
      Call("get the last " + prefix + "*",
           [&](Member& m, grpc::ClientContext& c) { return m.kv->Range(&c, request, &reply); }));
  if (reply.kvs().empty()) return std::optional<KeyValue>();
  return std::optional<KeyValue>(FromProto(reply.kvs(0)));
}

Result<int64_t> EtcdClient::DeletePrefix(const std::string& prefix) {
  etcdserverpb::DeleteRangeRequest request;
  request.set_key(prefix);
  request.set_range_end(PrefixEnd(prefix));
  etcdserverpb::DeleteRangeResponse reply;
  GANTRY_RETURN_IF_ERROR(Call("delete " + prefix + "*", [&](Member& m, grpc::ClientContext& c) {
    return m.kv->DeleteRange(&c, request, &reply);
  }));
  return reply.deleted();
}

Result<TxnResult> EtcdClient::Txn(const std::vector<Compare>& compares,
                                  const std::vector<Op>& success, const std::vector<Op>& failure) {
  etcdserverpb::TxnRequest request;
  for (const Compare& c : compares) {
    etcdserverpb::Compare* out = request.add_compare();
    out->set_key(c.key);
    out->set_result(c.equal ? etcdserverpb::Compare::EQUAL : etcdserverpb::Compare::NOT_EQUAL);
    switch (c.target) {
      case Compare::Target::kCreateRevision:
        out->set_target(etcdserverpb::Compare::CREATE);
        out->set_create_revision(c.number);
        break;
      case Compare::Target::kModRevision:
        out->set_target(etcdserverpb::Compare::MOD);
        out->set_mod_revision(c.number);
        break;
      case Compare::Target::kVersion:
        out->set_target(etcdserverpb::Compare::VERSION);
        out->set_version(c.number);
        break;
      case Compare::Target::kValue:
        out->set_target(etcdserverpb::Compare::VALUE);
        out->set_value(c.value);
        break;
    }
  }
  for (const Op& op : success) ToProto(op, request.add_success());
  for (const Op& op : failure) ToProto(op, request.add_failure());
  etcdserverpb::TxnResponse reply;
  GANTRY_RETURN_IF_ERROR(Call(
      "txn", [&](Member& m, grpc::ClientContext& c) { return m.kv->Txn(&c, request, &reply); }));
  return TxnResult{reply.succeeded(), reply.header().revision()};
}

Result<int64_t> EtcdClient::GrantLease(int64_t ttl_sec) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(ttl_sec);
  etcdserverpb::LeaseGrantResponse reply;
  GANTRY_RETURN_IF_ERROR(Call("lease grant", [&](Member& m, grpc::ClientContext& c) {
    return m.lease->LeaseGrant(&c, request, &reply);
  }));
  if (!reply.error().empty()) return Unavailable("etcd lease grant: " + reply.error());
  return reply.id();
}

Result<int64_t> EtcdClient::KeepAlive(int64_t lease) {
  etcdserverpb::LeaseKeepAliveResponse reply;
  GANTRY_RETURN_IF_ERROR(Call("lease keep-alive", [&](Member& m, grpc::ClientContext& c) {
    auto stream = m.lease->LeaseKeepAlive(&c);
    etcdserverpb::LeaseKeepAliveRequest request;
    request.set_id(lease);
    if (!stream->Write(request) || !stream->Read(&reply)) {
      stream->WritesDone();
      return stream->Finish();
    }
    stream->WritesDone();
    c.TryCancel();  // one renewal per call: the stream is not kept
    (void)stream->Finish();
    return grpc::Status::OK;
  }));
  return reply.ttl() > 0 ? reply.ttl() : 0;
}

Status EtcdClient::RevokeLease(int64_t lease) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseRevokeResponse reply;
  return Call("lease revoke", [&](Member& m, grpc::ClientContext& c) {
    return m.lease->LeaseRevoke(&c, request, &reply);
  });
}

std::unique_ptr<EtcdClient::Watch> EtcdClient::WatchPrefix(
    const std::string& prefix, int64_t start_revision,
    std::function<void(const std::vector<Event>&, int64_t)> on_events,
    std::function<void(const Status&)> on_error) {
  std::unique_ptr<Watch> watch(new Watch());
  watch->client_ = this;
  watch->prefix_ = prefix;
  watch->next_revision_ = start_revision;
  watch->on_events_ = std::move(on_events);
  watch->on_error_ = std::move(on_error);
  watch->thread_ = std::thread([w = watch.get()] { w->Run(); });
  return watch;
}

EtcdClient::Watch::~Watch() {
  stop_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (context_ != nullptr) context_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
}

void EtcdClient::Watch::Run() {
  size_t member = client_->current_.load();
  while (!stop_) {
    Member& m = client_->members_[member % client_->members_.size()];
    grpc::ClientContext context;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      context_ = &context;
    }
    auto stream = m.watch->Watch(&context);
    etcdserverpb::WatchRequest request;
    etcdserverpb::WatchCreateRequest* create = request.mutable_create_request();
    create->set_key(prefix_);
    create->set_range_end(PrefixEnd(prefix_));
    create->set_start_revision(next_revision_);
    bool ended = false;
    if (stream->Write(request)) {
      etcdserverpb::WatchResponse reply;
      while (!stop_ && stream->Read(&reply)) {
        if (reply.compact_revision() != 0 || (reply.canceled() && !reply.created())) {
          if (on_error_) {
            on_error_(Unavailable("etcd watch " + prefix_ + ": " +
                                  (reply.compact_revision() != 0
                                       ? "revision " + std::to_string(next_revision_) +
                                             " was compacted (oldest left: " +
                                             std::to_string(reply.compact_revision()) + ")"
                                       : reply.cancel_reason())));
          }
          ended = true;
          break;
        }
        if (reply.events().empty()) continue;
        std::vector<Event> events;
        events.reserve(reply.events_size());
        for (const mvccpb::Event& e : reply.events()) {
          events.push_back(Event{e.type() == mvccpb::Event::DELETE, FromProto(e.kv())});
        }
        const int64_t revision = reply.events(reply.events_size() - 1).kv().mod_revision();
        next_revision_ = revision + 1;
        on_events_(events, revision);
      }
    }
    context.TryCancel();
    const grpc::Status status = stream->Finish();
    {
      std::lock_guard<std::mutex> lock(mu_);
      context_ = nullptr;
    }
    if (stop_ || ended) return;
    if (on_error_) on_error_(rpc::FromGrpcCode(status));
    ++member;  // the next member, after a pause
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Result<std::optional<int64_t>> Campaign(EtcdClient& client, const std::string& key,
                                        const std::string& value, int64_t lease, KeyValue* holder) {
  GANTRY_ASSIGN_OR_RETURN(const TxnResult won,
                          client.Txn({Missing(key)}, {Op{key, value, lease, ""}}));
  if (won.succeeded) return std::optional<int64_t>(won.revision);
  if (holder != nullptr) {
    GANTRY_ASSIGN_OR_RETURN(std::optional<KeyValue> current, client.Get(key));
    if (current) *holder = *current;
  }
  return std::optional<int64_t>();
}

}  // namespace gantry::etcd
