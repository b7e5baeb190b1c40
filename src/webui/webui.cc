#include "webui/webui.h"

#include <string>

namespace gantry::webui {
namespace {

std::string ContentTypeOf(std::string_view name) {
  static const std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".json", "application/json"},
  };
  for (const auto& [suffix, type] : kTypes) {
    if (name.ends_with(suffix)) return std::string(type);
  }
  return "application/octet-stream";
}

http::HttpResponse Answer(int status, std::string type, std::string body) {
  http::HttpResponse response{status, std::move(type), std::move(body), {}, {}};
  response.headers["Content-Security-Policy"] =
      "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
      "frame-ancestors 'none'; form-action 'self'";
  response.headers["X-Content-Type-Options"] = "nosniff";
  response.headers["Referrer-Policy"] = "no-referrer";
  response.headers["Cache-Control"] = "no-cache";
  return response;
}

}  // namespace

bool IsDashboardPath(std::string_view path) {
  return path == kPrefix || (path.starts_with(kPrefix) && path[kPrefix.size()] == '/');
}

http::HttpResponse Serve(const http::HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    return Answer(405, "text/plain; charset=utf-8", "the dashboard's files are read-only\n");
  }
  if (request.path == kPrefix) {
    http::HttpResponse moved = Answer(301, "text/plain; charset=utf-8", "/ui/\n");
    moved.headers["Location"] = "/ui/";
    return moved;
  }
  std::string_view name = request.path;
  name.remove_prefix(kPrefix.size() + 1);
  if (name.empty()) name = "index.html";
  for (const auto& [file, bytes] : EmbeddedFiles()) {
    if (file == name) return Answer(200, ContentTypeOf(name), std::string(bytes));
  }
  return Answer(404, "text/plain; charset=utf-8", "no such file in the dashboard\n");
}

}  // namespace gantry::webui
