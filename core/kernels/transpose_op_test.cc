#include <gtest/gtest.h>

#include <numeric>

#include "core/kernels/array_kernels_test_util.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::MakeTensor;
using test::RunFetches;
using test::ToVector;

// numpy's transpose, element by element.
std::vector<float> Reference(const std::vector<int64_t>& dims,
                             const std::vector<int32_t>& perm,
                             const std::vector<float>& in) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> strides(rank, 1), out_dims(rank);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  for (int d = 0; d < rank; ++d) out_dims[d] = dims[perm[d]];
  std::vector<float> out(in.size());
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t rest = i, offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      offset += (rest % out_dims[d]) * strides[perm[d]];
      rest /= out_dims[d];
    }
    out[i] = in[offset];
  }
  return out;
}

struct Case {
  std::vector<int64_t> dims;
  std::vector<int32_t> perm;
};

TEST(TransposeOpTest, FastPathsAndGeneralMatchReference) {
  const std::vector<Case> cases = {
      {{300, 517}, {1, 0}},             // 2-D, blocked, parallel
      {{4, 33, 17, 40}, {0, 3, 1, 2}},  // NHWC -> NCHW
      {{4, 40, 33, 17}, {0, 2, 3, 1}},  // NCHW -> NHWC
      {{5, 6, 7, 8}, {3, 1, 0, 2}},     // general
      {{2, 3, 4}, {0, 1, 2}},           // identity
      {{1, 50, 1, 60}, {3, 2, 1, 0}},   // size-1 dims
      {{0, 3}, {1, 0}},                 // empty
  };
  for (const Case& c : cases) {
    TensorShape shape(c.dims);
    std::vector<float> values(shape.num_elements());
    std::iota(values.begin(), values.end(), 0.0f);
    auto g = std::make_shared<Graph>();
    AddConst(g.get(), "x", MakeTensor<float>(shape, values));
    AddConst(g.get(), "perm", Tensor::Vector<int32_t>(c.perm));
    AddOp(g.get(), "Transpose", "t", {"x", "perm"});
    for (int intra : {1, 4}) {
      std::vector<Tensor> out;
      TW_ASSERT_OK(RunFetches(g, {"t:0"}, &out, intra));
      EXPECT_EQ(ToVector<float>(out[0]), Reference(c.dims, c.perm, values))
          << shape.ToString();
    }
  }
}

TEST(TransposeOpTest, BadPermutationIsAnErrorNamingTheNode) {
  auto g = std::make_shared<Graph>();
  AddConst(g.get(), "x", Tensor(DT_FLOAT, TensorShape({2, 3})));
  test::AddPlaceholder(g.get(), "perm", DT_INT32, PartialShape({2}));
  AddOp(g.get(), "Transpose", "t", {"x", "perm"});
  Session session(g, SessionOptions());
  std::vector<Tensor> out;
  Status s = session.Run({{"perm:0", Tensor::Vector<int32_t>({1, 1})}}, {"t:0"},
                         {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(test::HasSubstr(s.message(), "repeated")) << s.message();
  EXPECT_TRUE(test::HasSubstr(s.message(), "[[node t")) << s.message();
}

}  // namespace
}  // namespace tensorweave
