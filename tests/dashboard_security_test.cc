// The dashboard against a hostile client (issue 36): headers and responses injected through the
// sign-in redirect, redirects off-site, idle sockets that lock everyone out, DNS rebinding, changes
// forged by pages elsewhere, and sessions made without end.
#include <gtest/gtest.h>

#include "tests/dashboard_client.h"
#include "tests/dashboard_fleet.h"
#include "tests/raw_http_client.h"

namespace tf::fleet_test {
namespace {

using http_test::RawConnection;
using http_test::status_of;
using namespace std::chrono_literals;

class DashboardSecurity : public DashboardFleet {};

TEST_F(DashboardSecurity, IdleConnectionsByTheHundredDoNotKeepOutAnAuthenticatedRequest) {
  Fleet fleet("dashboard-idle");
  start(fleet);
  for (const int flood : {64, 300}) {
    std::vector<RawConnection> idle;
    for (int i = 0; i < flood; ++i) idle.emplace_back(http_port);
    RawConnection c(http_port);
    const auto start = http_test::Clock::now();
    ASSERT_TRUE(c.send("GET /api/jobs HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(http_port) +
                       "\r\nAuthorization: Bearer " + token_of(alice_line) + "\r\n\r\n"));
    const std::string response = c.read_response(1s);
    EXPECT_EQ(status_of(response), 200) << flood << " idle connections: " << response;
    EXPECT_LT(http_test::Clock::now() - start, 1s) << flood << " idle connections";
  }
}

}  // namespace
}  // namespace tf::fleet_test
