// GetSessionHandle / GetSessionTensor / DeleteSessionTensor: a tensor kept by
// one step is read by later ones until deleted; unknown and deleted handles
// and dtype mismatches are errors naming the handle and the node.
#include <vector>

#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddPlaceholder;
using test::AttrType;
using test::HasSubstr;

// c = [1, 2, 3] (float), keep = GetSessionHandle(c), h (a fed string),
// get = GetSessionTensor(h) as float, get_int the same as int32,
// del = DeleteSessionTensor(h).
std::shared_ptr<Graph> HandleGraph() {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "c", test::MakeTensor<float>(TensorShape({3}), {1, 2, 3}));
  AddOp(g.get(), "GetSessionHandle", "keep", {"c"});
  AddOp(g.get(), "GetSessionHandleV2", "keep2", {"c"});
  AddPlaceholder(g.get(), "h", DT_STRING);
  AddOp(g.get(), "GetSessionTensor", "get", {"h"},
        {{"dtype", AttrType(DT_FLOAT)}});
  AddOp(g.get(), "GetSessionTensor", "get_int", {"h"},
        {{"dtype", AttrType(DT_INT32)}});
  AddOp(g.get(), "DeleteSessionTensor", "del", {"h"});
  return g;
}

Status Keep(Session* s, const std::string& node, std::string* handle) {
  std::vector<Tensor> out;
  TW_RETURN_IF_ERROR(s->Run({}, {node + ":0"}, {}, &out));
  *handle = out[0].data<std::string>()[0];
  return Status::OK();
}

Status Get(Session* s, const std::string& node, const std::string& handle,
           Tensor* value) {
  std::vector<Tensor> out;
  TW_RETURN_IF_ERROR(s->Run({{"h:0", Tensor::Scalar<std::string>(handle)}},
                            {node + ":0"}, {}, &out));
  *value = out[0];
  return Status::OK();
}

Status Delete(Session* s, const std::string& handle) {
  std::vector<Tensor> out;
  return s->Run({{"h:0", Tensor::Scalar<std::string>(handle)}}, {}, {"del"},
                &out);
}

TEST(SessionOpsTest, AKeptTensorIsReadByLaterStepsUntilDeleted) {
  Session session(HandleGraph(), SessionOptions());
  std::string h0, h1;
  ASSERT_TRUE(Keep(&session, "keep", &h0).ok());
  ASSERT_TRUE(Keep(&session, "keep2", &h1).ok());
  EXPECT_EQ(h0, "keep;0;/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(h1, "keep2;1;/job:localhost/replica:0/task:0/device:CPU:0");
  Tensor value;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(Get(&session, "get", h0, &value).ok());
    EXPECT_EQ(test::ToVector<float>(value), std::vector<float>({1, 2, 3}));
  }
  ASSERT_TRUE(Delete(&session, h0).ok());
  Status s = Get(&session, "get", h0, &value);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "The tensor with handle '" + h0 +
                                         "' is not in the session store."))
      << s;
  EXPECT_TRUE(HasSubstr(s.message(), "get")) << s;
  s = Delete(&session, h0);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "Failed to delete a tensor with handle '" +
                                         h0 + "' in the session store."))
      << s;
  ASSERT_TRUE(Get(&session, "get", h1, &value).ok());  // the other one stays
}

TEST(SessionOpsTest, AnotherDtypeOrABadHandleIsAnError) {
  Session session(HandleGraph(), SessionOptions());
  std::string h;
  ASSERT_TRUE(Keep(&session, "keep", &h).ok());
  Tensor value;
  Status s = Get(&session, "get_int", h, &value);
  EXPECT_EQ(s.code(), Code::kInternal) << s;
  EXPECT_TRUE(HasSubstr(s.message(),
                        "Output 0 of type float32 does not match "
                        "declared output type int32"))
      << s;
  EXPECT_TRUE(HasSubstr(s.message(), "get_int")) << s;
  s = Get(&session, "get", "no such handle", &value);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "'no such handle'")) << s;
  std::vector<Tensor> out;
  s = session.Run(
      {{"h:0", test::MakeTensor<std::string>(TensorShape({2}), {h, h})}},
      {"get:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "must be a string scalar")) << s;
}

TEST(SessionOpsTest, SessionsHaveTheirOwnStores) {
  auto g = HandleGraph();
  Session a(g, SessionOptions()), b(g, SessionOptions());
  std::string h;
  ASSERT_TRUE(Keep(&a, "keep", &h).ok());
  Tensor value;
  EXPECT_EQ(Get(&b, "get", h, &value).code(), Code::kInvalidArgument);
  EXPECT_TRUE(Get(&a, "get", h, &value).ok());
}

}  // namespace
}  // namespace tensorweave
