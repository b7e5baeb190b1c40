#include "http/http_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "http/http_server.h"

namespace gantry::http {
namespace {

TEST(HttpClientTest, CallsAServerOnAUnixSocket) {
  const std::string path = "/tmp/gantry-http-client-" + std::to_string(getpid()) + ".sock";
  HttpServer::Options options;
  options.unix_path = path;
  Result<std::unique_ptr<HttpServer>> server =
      HttpServer::Start(options, [](const HttpRequest& request) {
        HttpResponse response{201,
                              "application/json",
                              "{\"method\":\"" + request.method + "\"",
                              {{"X-Seen", request.Header("x-token").value_or("")}},
                              {}};
        response.pieces = {",\"body\":\"" + request.body + "\"}"};
        return response;
      });
  ASSERT_TRUE(server.ok()) << server.status().message();
  Result<ClientReply> reply =
      CallUnixSocket(path, {"POST", "/x?y=1", {{"X-Token", "t1"}}, "hello"});
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 201);
  EXPECT_EQ(reply->body, R"({"method":"POST","body":"hello"})");
  EXPECT_EQ(reply->headers["x-seen"], "t1");
  EXPECT_EQ(reply->headers["content-type"], "application/json");
  // A header that would split the request is refused before anything is sent.
  EXPECT_EQ(CallUnixSocket(path, {"GET", "/", {{"X-A", "1\r\nX-B: 2"}}, ""}).status().code(),
            StatusCode::kInvalidArgument);
  // An answer over the limit is refused.
  EXPECT_FALSE(CallUnixSocket(path, {"GET", "/", {}, ""}, std::chrono::seconds(5), 10).ok());
  (*server)->Stop();
  EXPECT_EQ(CallUnixSocket(path, {"GET", "/", {}, ""}).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace gantry::http
