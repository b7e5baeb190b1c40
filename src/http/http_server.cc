#include "http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <vector>

namespace gantry::http {
namespace {

// What MHD keeps for a request while its body arrives.
struct Pending {
  HttpRequest request;
  bool too_large = false;
};

std::string Lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

MHD_Result CollectHeader(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
  static_cast<HttpRequest*>(cls)->headers.emplace(Lower(key), value ? value : "");
  return MHD_YES;
}

MHD_Result CollectQuery(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
  static_cast<HttpRequest*>(cls)->query.emplace(key, value ? value : "");
  return MHD_YES;
}

void FreeResponse(void* cls) { delete static_cast<HttpResponse*>(cls); }

MHD_Result Send(MHD_Connection* connection, HttpResponse response) {
  // The response lives until MHD has sent it: its strings are sent where they are.
  auto* kept = new HttpResponse(std::move(response));
  std::vector<MHD_IoVec> pieces;
  pieces.reserve(kept->pieces.size() + 1);
  if (!kept->body.empty()) pieces.push_back({kept->body.data(), kept->body.size()});
  for (const std::string& piece : kept->pieces) {
    if (!piece.empty()) pieces.push_back({piece.data(), piece.size()});
  }
  MHD_Response* reply = MHD_create_response_from_iovec(
      pieces.data(), static_cast<unsigned>(pieces.size()), &FreeResponse, kept);
  if (reply == nullptr) {
    delete kept;
    return MHD_NO;
  }
  const HttpResponse& response_kept = *kept;
  MHD_add_response_header(reply, MHD_HTTP_HEADER_CONTENT_TYPE, response_kept.content_type.c_str());
  for (const auto& [name, value] : response_kept.headers) {
    MHD_add_response_header(reply, name.c_str(), value.c_str());
  }
  const MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned>(response_kept.status), reply);
  MHD_destroy_response(reply);
  return queued;
}

void Completed(void* /*cls*/, MHD_Connection* /*connection*/, void** con_cls,
               MHD_RequestTerminationCode /*code*/) {
  delete static_cast<Pending*>(*con_cls);
  *con_cls = nullptr;
}

void LogError(void* /*cls*/, const char* format, va_list args) {
  std::fputs("http: ", stderr);
  std::vfprintf(stderr, format, args);
}

}  // namespace

std::optional<std::string> HttpRequest::Query(const std::string& name) const {
  const auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> HttpRequest::Header(const std::string& name) const {
  const auto it = headers.find(name);
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

struct HttpServer::Listener {
  HttpServer* server = nullptr;
  bool tls = false;
  bool unix_socket = false;
  int fd = -1;
  MHD_Daemon* daemon = nullptr;

  static MHD_Result Access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char* /*version*/, const char* upload_data,
                           size_t* upload_data_size, void** con_cls) {
    auto* self = static_cast<Listener*>(cls);
    auto* pending = static_cast<Pending*>(*con_cls);
    if (pending == nullptr) {  // the headers are in: start the request
      pending = new Pending();
      *con_cls = pending;
      HttpRequest& request = pending->request;
      request.method = method;
      request.path = url;
      request.tls = self->tls;
      MHD_get_connection_values(connection, MHD_HEADER_KIND, &CollectHeader, &request);
      MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &CollectQuery, &request);
      if (self->unix_socket) {
        const MHD_ConnectionInfo* info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info != nullptr) {
          Result<wire::PeerIdentity> peer = wire::PeerOf(info->connect_fd);
          if (peer.ok()) request.peer = *peer;
        }
      }
      return MHD_YES;
    }
    if (*upload_data_size > 0) {  // a piece of the body
      if (pending->request.body.size() + *upload_data_size > self->server->max_body_bytes_) {
        pending->too_large = true;
      } else if (!pending->too_large) {
        pending->request.body.append(upload_data, *upload_data_size);
      }
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (pending->too_large) {
      return Send(connection, {413,
                               "text/plain",
                               "request body over " +
                                   std::to_string(self->server->max_body_bytes_) + " bytes\n",
                               {},
                               {}});
    }
    HttpResponse response;
    try {
      response = self->server->handler_(pending->request);
    } catch (const std::exception& e) {
      response = {500, "text/plain", std::string("internal error: ") + e.what() + "\n", {}, {}};
    } catch (...) {
      response = {500, "text/plain", "internal error\n", {}, {}};
    }
    return Send(connection, std::move(response));
  }
};

Result<std::optional<std::string>> TokenOf(const HttpRequest& request) {
  std::optional<std::string> token = request.Header("x-slurm-user-token");
  const std::optional<std::string> bearer = request.Header("authorization");
  if (!bearer) return token;
  if (token) {
    return Unauthenticated("X-SLURM-USER-TOKEN and Authorization: Bearer may not be sent together");
  }
  if (!bearer->starts_with("Bearer ")) {
    return Unauthenticated("Authorization: only the Bearer scheme is accepted");
  }
  return std::optional<std::string>(bearer->substr(7));
}

std::optional<HttpResponse> HealthPage(const HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    return HttpResponse{405, "text/plain", "only GET\n", {}, {}};
  }
  if (request.path == "/livez" || request.path == "/readyz" || request.path == "/healthz") {
    return HttpResponse{200, "text/plain", "ok\n", {}, {}};
  }
  return std::nullopt;
}

int HttpStatusOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return 400;
    case StatusCode::kUnauthenticated:
      return 401;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kResourceExhausted:
      return 429;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

Result<int> ListenTcp(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgument("listen address \"" + address + "\": expected HOST:PORT");
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc =
          getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
      rc != 0) {
    return InvalidArgument("listen address \"" + address + "\": " + gai_strerror(rc));
  }
  std::string error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0) {
      freeaddrinfo(found);
      return fd;
    }
    error = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return Unavailable("cannot listen on " + address + ": " + error);
}

HttpServer::HttpServer(Handler handler, size_t max_body_bytes)
    : handler_(std::move(handler)), max_body_bytes_(max_body_bytes) {}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const Options& options, Handler handler) {
  if (options.unix_path.empty() && options.tcp.empty()) {
    return InvalidArgument("gantry-restd needs a unix socket or a TCP address to listen on");
  }
  if (options.tls_cert_pem.empty() != options.tls_key_pem.empty()) {
    return InvalidArgument("TLS needs both a certificate and its key");
  }
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(handler), options.max_body_bytes));
  if (!options.unix_path.empty()) {
    GANTRY_ASSIGN_OR_RETURN(const int fd, wire::ListenUnix(options.unix_path));
    server->unix_path_ = options.unix_path;
    GANTRY_RETURN_IF_ERROR(server->Listen(fd, /*tls=*/false, options));
    server->listeners_.back()->unix_socket = true;
  }
  if (!options.tcp.empty()) {
    GANTRY_ASSIGN_OR_RETURN(const int fd, ListenTcp(options.tcp));
    sockaddr_storage bound{};
    socklen_t length = sizeof(bound);
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    server->tcp_port_ =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    GANTRY_RETURN_IF_ERROR(server->Listen(fd, !options.tls_cert_pem.empty(), options));
  }
  return server;
}

Status HttpServer::Listen(int fd, bool tls, const Options& options) {
  auto listener = std::make_unique<Listener>();
  listener->server = this;
  listener->tls = tls;
  listener->fd = fd;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                   MHD_USE_ERROR_LOG | MHD_USE_POLL;
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&LogError), nullptr},
      {MHD_OPTION_LISTEN_SOCKET, fd, nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, options.max_connections, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, options.connection_timeout_seconds, nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&Completed), nullptr},
  };
  if (tls) {
    flags |= MHD_USE_TLS;
    items.push_back(
        {MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(options.tls_cert_pem.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(options.tls_key_pem.c_str())});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  listener->daemon = MHD_start_daemon(flags, 0, nullptr, nullptr, &Listener::Access, listener.get(),
                                      MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (listener->daemon == nullptr) {
    close(fd);
    return Unavailable("the HTTP server did not start on its socket");
  }
  listeners_.push_back(std::move(listener));
  return Status::Ok();
}

void HttpServer::Stop() {
  for (auto& listener : listeners_) {
    if (listener->daemon != nullptr) {
      MHD_stop_daemon(listener->daemon);  // closes the listening socket
      listener->daemon = nullptr;
    }
  }
  if (!unix_path_.empty()) {
    unlink(unix_path_.c_str());
    unix_path_.clear();
  }
}

HttpServer::~HttpServer() { Stop(); }

}  // namespace gantry::http
