#include "lite/runtime/arena_planner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace twl {
namespace {

TEST(ArenaPlannerTest, DisjointLifetimesShareMemory) {
  ArenaPlanner planner;
  int a = planner.Add(100, 0, 1);
  int b = planner.Add(100, 2, 3);
  ASSERT_TRUE(planner.Plan().ok());
  EXPECT_EQ(planner.offset(a), 0u);
  EXPECT_EQ(planner.offset(b), 0u);
  EXPECT_EQ(planner.arena_size(), 128u);
}

TEST(ArenaPlannerTest, OverlappingLifetimesDoNotOverlapInMemory) {
  ArenaPlanner planner;
  // A chain a -> b -> c -> d where each buffer lives for two steps.
  int ids[4];
  size_t sizes[4] = {1000, 64, 3000, 10};
  for (int i = 0; i < 4; ++i) ids[i] = planner.Add(sizes[i], i, i + 1);
  ASSERT_TRUE(planner.Plan().ok());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(planner.offset(ids[i]) % kArenaAlignment, 0u);
    for (int j = i + 1; j < 4; ++j) {
      bool alive_together = j == i + 1;
      bool overlap =
          planner.offset(ids[i]) < planner.offset(ids[j]) + sizes[j] &&
          planner.offset(ids[j]) < planner.offset(ids[i]) + sizes[i];
      if (alive_together) EXPECT_FALSE(overlap) << i << " " << j;
    }
  }
  // Greedy by size: 3000 at 0, 1000 fits beside; arena smaller than the sum.
  EXPECT_LT(planner.arena_size(), 1000u + 64 + 3000 + 64);
}

TEST(ArenaPlannerTest, FirstFitUsesGaps) {
  ArenaPlanner planner;
  int big1 = planner.Add(256, 0, 0);
  int big2 = planner.Add(256, 0, 2);
  int small = planner.Add(128, 1, 2);  // big1 is dead by step 1
  ASSERT_TRUE(planner.Plan().ok());
  EXPECT_NE(planner.offset(big1), planner.offset(big2));
  EXPECT_EQ(planner.offset(small), planner.offset(big1));
  EXPECT_EQ(planner.arena_size(), 512u);
}

TEST(ArenaPlannerTest, SizesThatOverflowFailTheirRequest) {
  ArenaPlanner planner;
  planner.Add(128, 0, 1);
  int huge = planner.Add(SIZE_MAX - 10, 0, 1);  // wraps when aligned
  Status status = planner.Plan();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(planner.failed_request(), huge);
  planner.Reset();
  planner.Add(SIZE_MAX / 2 + 1 - 63, 0, 1);  // aligned: just over half
  int second = planner.Add(SIZE_MAX / 2 + 1 - 63, 0, 1);
  status = planner.Plan();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(status.message()).find("offset overflows"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(planner.failed_request(), second);
}

TEST(ArenaPlannerTest, EmptyPlan) {
  ArenaPlanner planner;
  ASSERT_TRUE(planner.Plan().ok());
  EXPECT_EQ(planner.arena_size(), 0u);
}

}  // namespace
}  // namespace twl
