// The dashboard's browser sessions and their secrets: capped, random, compared in constant time.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "proto/secrets.h"
#include "tracker/http/sessions.h"

namespace tf::tracker::http {
namespace {

Principal named(const std::string& name) {
  Principal p;
  p.name = name;
  p.role = fleet::Role::Client;
  return p;
}

TEST(HttpSessions, SigningInAgainAndAgainKeepsOnlyTheNewestSessionsOfThatPrincipal) {
  Sessions s(std::chrono::hours(1), SessionCaps{3, 100});
  const std::string bob = s.open(named("bob"));
  std::vector<std::string> alice;
  for (int i = 0; i < 1000; ++i) alice.push_back(s.open(named("alice")));
  EXPECT_EQ(s.size(), 4u);
  EXPECT_FALSE(s.find(alice.front()));
  EXPECT_FALSE(s.find(alice[996]));
  for (size_t i = 997; i < 1000; ++i) EXPECT_TRUE(s.find(alice[i])) << i;
  EXPECT_TRUE(s.find(bob)) << "alice's sign-ins closed only alice's sessions";
}

TEST(HttpSessions, TheOldestSessionOfAnyoneMakesRoomWhenAllAreTaken) {
  Sessions s(std::chrono::hours(1), SessionCaps{10, 3});
  const std::string first = s.open(named("a"));
  const std::string second = s.open(named("b"));
  const std::string third = s.open(named("c"));
  const std::string fourth = s.open(named("d"));
  EXPECT_EQ(s.size(), 3u);
  EXPECT_FALSE(s.find(first));
  EXPECT_TRUE(s.find(second));
  EXPECT_TRUE(s.find(third));
  EXPECT_EQ(s.find(fourth)->who.name, "d");
}

TEST(HttpSessions, IdsAndCsrfTokensAreLongRandomAndUnguessable) {
  Sessions s;
  std::set<std::string> ids, tokens;
  for (int i = 0; i < 100; ++i) {
    const std::string id = s.open(named("x"));
    EXPECT_EQ(id.size(), 96u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    ids.insert(id);
    const auto found = s.find(id);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->csrf_token.size(), 64u);
    tokens.insert(found->csrf_token);
  }
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(tokens.size(), 100u);
  const std::string id = s.open(named("y"));
  std::string forged = id;
  forged.back() = forged.back() == '0' ? '1' : '0';
  EXPECT_FALSE(s.find(forged)) << "the right selector with a wrong verifier";
  EXPECT_FALSE(s.find(id.substr(0, 32)));
  EXPECT_FALSE(s.find(""));
}

TEST(HttpSessions, AnExpiredSessionIsGone) {
  Sessions s(std::chrono::seconds(0));
  const std::string id = s.open(named("x"));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(s.find(id));
}

TEST(HttpSecrets, OnlyTheSameNonEmptySecretMatches) {
  const std::string secret = fleet::random_hex(32);
  EXPECT_EQ(secret.size(), 64u);
  EXPECT_NE(secret, fleet::random_hex(32));
  EXPECT_TRUE(fleet::same_secret(secret, secret));
  EXPECT_FALSE(fleet::same_secret(secret.substr(1), secret));
  EXPECT_FALSE(fleet::same_secret(secret + "0", secret));
  EXPECT_FALSE(fleet::same_secret("", ""));
  std::string other = secret;
  other[10] = other[10] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(fleet::same_secret(other, secret));
}

}  // namespace
}  // namespace tf::tracker::http
