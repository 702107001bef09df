// Where a sign-in may redirect.
#include <gtest/gtest.h>

#include "tracker/http/redirect.h"

namespace tf::tracker::http {
namespace {

TEST(HttpRedirect, OnlyAPathOnThisDashboardIsKeptReencoded) {
  EXPECT_EQ(same_origin_location("/"), "/");
  EXPECT_EQ(same_origin_location("/jobs/12"), "/jobs/12");
  EXPECT_EQ(same_origin_location("/jobs/a b?c#d%e"), "/jobs/a%20b%3Fc%23d%25e");
  EXPECT_EQ(same_origin_location("/caf\xc3\xa9"), "/caf%C3%A9");
  for (const std::string& foreign : std::vector<std::string>{"//evil.example", "//evil.example/x", "/\\evil.example", "/x\\y", "https://evil.example",
                                                              "javascript:alert(1)", "evil.example", "", "/\r\nSet-Cookie: x=1",
                                                              "/a\nb", "/a\tb", std::string("/a\0b", 4), "/a\x7f"}) {
    EXPECT_EQ(same_origin_location(foreign), "/") << foreign;
  }
}

}  // namespace
}  // namespace tf::tracker::http
