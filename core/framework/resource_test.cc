#include "core/framework/resource.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/framework/graph_test_util.h"

namespace tensorweave {
namespace {

class Counter : public ResourceBase {
 public:
  std::string DebugString() const override { return "Counter"; }
  int value = 0;
};

Status GetCounter(ResourceMgr* mgr, const std::string& container,
                  std::shared_ptr<Counter>* out) {
  return mgr->LookupOrCreate<Counter>(
      container, "n",
      [](std::shared_ptr<Counter>* c) {
        *c = std::make_shared<Counter>();
        return Status::OK();
      },
      out);
}

TEST(ResourceMgrTest, VariablesAreKeptApartByContainer) {
  ResourceMgr mgr;
  Var *a, *b, *d, *local;
  TW_ASSERT_OK(mgr.LookupOrCreateVar("a", "v", DT_FLOAT, PartialShape(), &a));
  TW_ASSERT_OK(mgr.LookupOrCreateVar("b", "v", DT_INT32, PartialShape(), &b));
  TW_ASSERT_OK(mgr.LookupOrCreateVar("", "v", DT_FLOAT, PartialShape(), &d));
  EXPECT_NE(a, b);
  EXPECT_NE(a, d);
  EXPECT_EQ(a->name(), "v");
  // "" is the default container, "localhost".
  TW_ASSERT_OK(mgr.LookupOrCreateVar("localhost", "v", DT_FLOAT, PartialShape(),
                                     &local));
  EXPECT_EQ(local, d);
  EXPECT_EQ(mgr.FindVar("a", "v"), a);
  EXPECT_EQ(mgr.FindVar("c", "v"), nullptr);
  // Another dtype under the same (container, name) is an error.
  Var* other;
  EXPECT_EQ(
      mgr.LookupOrCreateVar("a", "v", DT_INT32, PartialShape(), &other).code(),
      Code::kInvalidArgument);
}

TEST(ResourceMgrTest, ClearFreesOnlyTheNamedContainers) {
  ResourceMgr mgr;
  Var* var;
  for (const char* c : {"a", "b", "", "ab"}) {
    TW_ASSERT_OK(mgr.LookupOrCreateVar(c, "v", DT_FLOAT, PartialShape(), &var));
    std::shared_ptr<Counter> counter;
    TW_ASSERT_OK(GetCounter(&mgr, c, &counter));
    counter->value = 7;
  }
  mgr.Clear({"a", "no-such-container"});
  EXPECT_EQ(mgr.FindVar("a", "v"), nullptr);
  EXPECT_NE(mgr.FindVar("ab", "v"), nullptr);
  EXPECT_NE(mgr.FindVar("b", "v"), nullptr);
  std::shared_ptr<Counter> counter;
  EXPECT_EQ(mgr.Lookup("a", "n", &counter).code(), Code::kNotFound);
  TW_ASSERT_OK(mgr.Lookup("b", "n", &counter));
  EXPECT_EQ(counter->value, 7);
  TW_ASSERT_OK(GetCounter(&mgr, "a", &counter));  // made again, new
  EXPECT_EQ(counter->value, 0);
  // "" names the default container.
  mgr.Clear({""});
  EXPECT_EQ(mgr.FindVar("", "v"), nullptr);
  EXPECT_EQ(mgr.Lookup("localhost", "n", &counter).code(), Code::kNotFound);
  EXPECT_NE(mgr.FindVar("b", "v"), nullptr);
  mgr.Clear();
  EXPECT_EQ(mgr.FindVar("b", "v"), nullptr);
  EXPECT_EQ(mgr.FindVar("ab", "v"), nullptr);
}

}  // namespace
}  // namespace tensorweave
