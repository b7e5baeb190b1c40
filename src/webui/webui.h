// The web dashboard's files, served by gantry-restd under /ui/ (docs/dashboard.md). The pages are
// static: everything they show comes from the REST API, called from the browser with the
// signed-in user's token, so the files themselves hold nothing private and need no sign-in.
// Thread-safe: the files are constant.
#ifndef GANTRY_WEBUI_WEBUI_H_
#define GANTRY_WEBUI_WEBUI_H_

#include <string_view>
#include <utility>
#include <vector>

#include "http/http_server.h"

namespace gantry::webui {

inline constexpr std::string_view kPrefix = "/ui";

// Whether `path` is the dashboard's ("/ui", "/ui/...").
bool IsDashboardPath(std::string_view path);

// The answer to a GET/HEAD of a dashboard path: "/ui" redirects to "/ui/", "/ui/" is index.html,
// "/ui/NAME" the file NAME (404 when there is none; 405 for other methods). Every answer
// carries a Content-Security-Policy that allows only this origin's scripts, styles and
// connections, and forbids framing.
http::HttpResponse Serve(const http::HttpRequest& request);

// Every file (name, bytes), from webui_assets.cc (generated from assets/).
const std::vector<std::pair<std::string_view, std::string_view>>& EmbeddedFiles();

}  // namespace gantry::webui

#endif  // GANTRY_WEBUI_WEBUI_H_
