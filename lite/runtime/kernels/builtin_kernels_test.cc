// Registry-wide: every op in the schema has a kernel at every version the
// runtime accepts, and each registration is complete.
#include <gtest/gtest.h>

#include "lite/runtime/op_resolver.h"

namespace twl {
namespace {

TEST(BuiltinKernelsTest, EveryOpHasAKernel) {
  OpResolver resolver;
  ASSERT_TRUE(RegisterBuiltinKernels(&resolver).ok());
  for (int op = static_cast<int>(BuiltinOperator::MIN);
       op <= static_cast<int>(BuiltinOperator::MAX); ++op) {
    auto code = static_cast<BuiltinOperator>(op);
    for (int v = 1; v <= MaxOpVersion(code); ++v) {
      const KernelRegistration* k = resolver.Find(code, v);
      ASSERT_NE(k, nullptr) << OpName(code) << " v" << v;
      EXPECT_NE(k->prepare, nullptr);
      EXPECT_NE(k->eval, nullptr);
      EXPECT_EQ(k->init == nullptr, k->free == nullptr) << OpName(code);
    }
  }
}

}  // namespace
}  // namespace twl
