// The dashboard server's connection caps: who makes room for a newcomer, and who never does.
#include <gtest/gtest.h>

#include "tracker/http/connection_registry.h"

namespace tf::tracker::http {
namespace {

struct Closed {
  std::vector<int> ids;
  ConnectionRegistry::Close closer(int name) {
    return [this, name] { ids.push_back(name); };
  }
};

uint64_t admit(ConnectionRegistry& r, const std::string& address, Closed& closed, int name) {
  std::vector<ConnectionRegistry::Close> evicted;
  const uint64_t id = r.admit(address, closed.closer(name), &evicted);
  for (const auto& close : evicted) close();
  return id;
}

TEST(HttpConnectionRegistry, AFullAddressMakesRoomByClosingItsLongestWaiting) {
  ConnectionRegistry r(100, 3);
  Closed closed;
  const uint64_t a = admit(r, "10.0.0.1", closed, 1);
  admit(r, "10.0.0.1", closed, 2);
  admit(r, "10.0.0.1", closed, 3);
  ASSERT_TRUE(r.busy(a));  // 1 has a request: it stays
  admit(r, "10.0.0.2", closed, 9);
  EXPECT_NE(admit(r, "10.0.0.1", closed, 4), 0u);
  EXPECT_EQ(closed.ids, std::vector<int>({2}));
  EXPECT_NE(admit(r, "10.0.0.1", closed, 5), 0u);
  EXPECT_EQ(closed.ids, std::vector<int>({2, 3}));
  EXPECT_EQ(r.size(), 4);
}

TEST(HttpConnectionRegistry, WaitingAgainAfterAnAnswerCountsFromThen) {
  ConnectionRegistry r(100, 2);
  Closed closed;
  const uint64_t a = admit(r, "x", closed, 1);
  admit(r, "x", closed, 2);
  ASSERT_TRUE(r.busy(a));
  ASSERT_TRUE(r.waiting(a));  // answered; now waits for its next request, after 2 began waiting
  admit(r, "x", closed, 3);
  EXPECT_EQ(closed.ids, std::vector<int>({2}));
}

TEST(HttpConnectionRegistry, AFullServerMakesRoomFromAnyAddress) {
  ConnectionRegistry r(3, 3);
  Closed closed;
  admit(r, "a", closed, 1);
  admit(r, "b", closed, 2);
  admit(r, "c", closed, 3);
  EXPECT_NE(admit(r, "d", closed, 4), 0u);
  EXPECT_EQ(closed.ids, std::vector<int>({1}));
  EXPECT_EQ(r.size(), 3);
}

TEST(HttpConnectionRegistry, WhenEveryoneIsBusyTheNewcomerIsTurnedAway) {
  ConnectionRegistry r(2, 2);
  Closed closed;
  ASSERT_TRUE(r.busy(admit(r, "a", closed, 1)));
  ASSERT_TRUE(r.busy(admit(r, "b", closed, 2)));
  EXPECT_EQ(admit(r, "c", closed, 3), 0u);
  EXPECT_TRUE(closed.ids.empty());
}

TEST(HttpConnectionRegistry, AnEvictedConnectionHearsItWhenItNextReports) {
  ConnectionRegistry r(1, 1);
  Closed closed;
  const uint64_t a = admit(r, "a", closed, 1);
  admit(r, "a", closed, 2);
  EXPECT_FALSE(r.busy(a)) << "1 was closed to make room: it must not start a handler";
  EXPECT_FALSE(r.waiting(a));
  r.remove(a);  // harmless
  EXPECT_EQ(r.size(), 1);
}

TEST(HttpConnectionRegistry, StopClosesEveryoneAndAdmitsNoMore) {
  ConnectionRegistry r(10, 10);
  Closed closed;
  const uint64_t a = admit(r, "a", closed, 1);
  ASSERT_TRUE(r.busy(a));
  admit(r, "b", closed, 2);
  for (const auto& close : r.stop()) close();
  EXPECT_EQ(closed.ids.size(), 2u);
  EXPECT_EQ(admit(r, "c", closed, 3), 0u);
  EXPECT_FALSE(r.waiting(a));
}

}  // namespace
}  // namespace tf::tracker::http
