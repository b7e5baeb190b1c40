#include "http/http_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "text/ascii.h"
#include "wire/unix_socket.h"

namespace gantry::http {
namespace {

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(std::string("sending the request: ") + strerror(errno));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// The body of a "Transfer-Encoding: chunked" answer.
Result<std::string> Dechunk(std::string_view data) {
  std::string body;
  while (true) {
    const size_t eol = data.find("\r\n");
    if (eol == std::string_view::npos) return Unavailable("a chunked answer was cut");
    const std::string size_text(data.substr(0, data.find_first_of(";\r")));
    char* end = nullptr;
    const uint64_t size = std::strtoull(size_text.c_str(), &end, 16);
    if (size_text.empty() || *end != '\0') return Unavailable("a malformed chunk size");
    data.remove_prefix(eol + 2);
    if (size == 0) return body;
    if (data.size() < size + 2) return Unavailable("a chunked answer was cut");
    body.append(data.substr(0, size));
    data.remove_prefix(size + 2);
  }
}

}  // namespace

Result<ClientReply> CallUnixSocket(const std::string& socket_path, const ClientRequest& request,
                                   std::chrono::milliseconds timeout, size_t max_bytes) {
  GANTRY_ASSIGN_OR_RETURN(const int fd, wire::ConnectUnix(socket_path));
  wire::SetTimeouts(fd, static_cast<int>(std::max<int64_t>(1, timeout.count() / 1000)));
  std::string head = request.method + " " + request.target + " HTTP/1.1\r\nHost: localhost\r\n" +
                     "Connection: close\r\nContent-Length: " + std::to_string(request.body.size()) +
                     "\r\n";
  for (const auto& [name, value] : request.headers) {
    if (name.find_first_of("\r\n:") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      close(fd);
      return InvalidArgument("header " + name + ": line breaks are not allowed");
    }
    head.append(name).append(": ").append(value).append("\r\n");
  }
  head += "\r\n";
  Status sent = WriteAll(fd, head);
  if (sent.ok()) sent = WriteAll(fd, request.body);
  if (!sent.ok()) {
    close(fd);
    return sent;
  }
  std::string data;
  char buffer[65536];
  while (true) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return Unavailable(socket_path + ": reading the answer: " + strerror(errno));
    }
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
    if (data.size() > max_bytes) {
      close(fd);
      return Unavailable(socket_path + ": the answer is larger than " + std::to_string(max_bytes) +
                         " bytes");
    }
  }
  close(fd);
  const size_t head_end = data.find("\r\n\r\n");
  if (head_end == std::string::npos || !data.starts_with("HTTP/1.")) {
    return Unavailable(socket_path + ": not an HTTP answer");
  }
  ClientReply reply;
  reply.status = std::atoi(data.c_str() + data.find(' ') + 1);
  size_t at = data.find("\r\n") + 2;
  while (at < head_end) {
    const size_t eol = data.find("\r\n", at);
    const std::string line = data.substr(at, eol - at);
    at = eol + 2;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = text::AsciiToLower(line.substr(0, colon));
    size_t value = colon + 1;
    while (value < line.size() && line[value] == ' ') ++value;
    reply.headers[name] = line.substr(value);
  }
  std::string_view body = data;
  body.remove_prefix(head_end + 4);
  const auto encoding = reply.headers.find("transfer-encoding");
  if (encoding != reply.headers.end() && encoding->second.find("chunked") != std::string::npos) {
    GANTRY_ASSIGN_OR_RETURN(reply.body, Dechunk(body));
  } else {
    reply.body = std::string(body);
  }
  return reply;
}

}  // namespace gantry::http
