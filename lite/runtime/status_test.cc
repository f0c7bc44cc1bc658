#include "lite/runtime/status.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace twl {
namespace {

TEST(StatusTest, OkAndError) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = Status::Error(StatusCode::kInvalidModel, "tensor %d bad", 3);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  EXPECT_STREQ(s.message(), "tensor 3 bad");
  EXPECT_STREQ(StatusCodeName(s.code()), "INVALID_MODEL");
}

TEST(StatusTest, PrefixAndTruncation) {
  Status s = Status::Error(StatusCode::kInternal, "inner");
  EXPECT_STREQ(s.WithPrefix("operator %d (%s)", 2, "ADD").message(),
               "operator 2 (ADD): inner");
  std::string long_text(500, 'x');
  Status big = Status::Error(StatusCode::kInternal, "%s", long_text.c_str());
  EXPECT_EQ(strlen(big.message()), Status::kMaxMessage - 1);
  Status prefixed = big.WithPrefix("%s", long_text.c_str());
  EXPECT_EQ(strlen(prefixed.message()), Status::kMaxMessage - 1);
  Status short_prefix = big.WithPrefix("p");
  EXPECT_EQ(std::string(short_prefix.message()).substr(0, 4), "p: x");
  EXPECT_EQ(strlen(short_prefix.message()), Status::kMaxMessage - 1);
}

}  // namespace
}  // namespace twl
