#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/kernels/cwise_ops.h"
#include "core/kernels/kernel_test_util.h"

namespace tensorweave {
namespace {

using test::Attrs;
using test::HasSubstr;
using test::MakeTensor;
using test::RunOpOnPlaceholders;
using test::ToVector;

// numpy's broadcast of two shapes, or false when they do not broadcast.
bool BroadcastShape(const TensorShape& x, const TensorShape& y,
                    TensorShape* out) {
  int rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    int ix = i - (rank - x.rank()), iy = i - (rank - y.rank());
    int64_t dx = ix >= 0 ? x.dim(ix) : 1, dy = iy >= 0 ? y.dim(iy) : 1;
    if (dx != dy && dx != 1 && dy != 1) return false;
    dims[i] = dx == 1 ? dy : dx;
  }
  *out = TensorShape(dims);
  return true;
}

// Index into `in` (of shape `s`, right-aligned to `out`) of output element
// with multi-index `idx`.
int64_t SourceIndex(const std::vector<int64_t>& idx, const TensorShape& out,
                    const TensorShape& s) {
  int64_t flat = 0;
  for (int i = 0; i < s.rank(); ++i) {
    int oi = i + (out.rank() - s.rank());
    int64_t d = s.dim(i);
    flat = flat * d + (d == 1 ? 0 : idx[oi]);
  }
  return flat;
}

template <typename T, typename F>
Tensor ReferenceBinary(const Tensor& x, const Tensor& y, F f) {
  TensorShape shape;
  EXPECT_TRUE(BroadcastShape(x.shape(), y.shape(), &shape));
  Tensor out(DataTypeOf<T>::value, shape);
  std::vector<int64_t> idx(shape.rank(), 0);
  for (int64_t n = 0; n < out.num_elements(); ++n) {
    int64_t rest = n;
    for (int d = shape.rank() - 1; d >= 0; --d) {
      idx[d] = rest % shape.dim(d);
      rest /= shape.dim(d);
    }
    out.data<T>()[n] = f(x.data<T>()[SourceIndex(idx, shape, x.shape())],
                         y.data<T>()[SourceIndex(idx, shape, y.shape())]);
  }
  return out;
}

template <typename T>
T RefAdd(T a, T b) {
  return static_cast<T>(a + b);
}
template <typename T>
T RefSub(T a, T b) {
  return static_cast<T>(a - b);
}
template <typename T>
T RefMul(T a, T b) {
  return static_cast<T>(a * b);
}
template <typename T>
T RefDiv(T a, T b) {
  if (std::is_integral_v<T> && b == 0) return 0;
  return static_cast<T>(a / b);
}

template <typename T>
Tensor Random(const TensorShape& shape, std::mt19937* rng, bool nonzero) {
  Tensor t(DataTypeOf<T>::value, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    T v;
    if constexpr (std::is_floating_point_v<T>) {
      v = std::uniform_real_distribution<T>(-10, 10)(*rng);
      if (nonzero && std::fabs(v) < 0.5) v = 1.25;
    } else if constexpr (std::is_same_v<T, uint8_t>) {
      v = static_cast<T>(std::uniform_int_distribution<int>(0, 15)(*rng));
      if (nonzero && v == 0) v = 3;
    } else {
      v = static_cast<T>(std::uniform_int_distribution<int>(-50, 50)(*rng));
      if (nonzero && v == 0) v = -7;
    }
    t.data<T>()[i] = v;
  }
  return t;
}

// A random pair of shapes that broadcast: y is x with some dims set to 1 and
// some leading dims dropped; the two may be swapped.
std::pair<TensorShape, TensorShape> RandomShapes(std::mt19937* rng) {
  std::uniform_int_distribution<int> rank_dist(0, 4), dim_dist(0, 4),
      coin(0, 3);
  int rank = rank_dist(*rng);
  std::vector<int64_t> x(rank), y;
  for (auto& d : x) d = coin(*rng) == 0 ? 1 : dim_dist(*rng);
  int drop = rank == 0 ? 0 : std::uniform_int_distribution<int>(0, rank)(*rng);
  for (int i = drop; i < rank; ++i) y.push_back(coin(*rng) == 0 ? 1 : x[i]);
  if (coin(*rng) < 2) std::swap(x, y);
  return {TensorShape(x), TensorShape(y)};
}

const std::vector<std::pair<TensorShape, TensorShape>>& FixedShapes() {
  static const auto* shapes =
      new std::vector<std::pair<TensorShape, TensorShape>>{
          {TensorShape({2, 1, 3}), TensorShape({4, 1})},
          {TensorShape({4, 1}), TensorShape({2, 1, 3})},
          {TensorShape(), TensorShape()},
          {TensorShape(), TensorShape({3, 2})},
          {TensorShape({3, 2}), TensorShape()},
          {TensorShape({1}), TensorShape({5})},
          {TensorShape({1, 1}), TensorShape({3})},
          {TensorShape({3}), TensorShape({1, 1, 1})},
          {TensorShape({0, 3}), TensorShape({1, 3})},
          {TensorShape({0}), TensorShape()},
          {TensorShape(), TensorShape({2, 0})},
          {TensorShape({2, 0, 3}), TensorShape({2, 1, 3})},
          {TensorShape({2, 3}), TensorShape({2, 3})},
          {TensorShape({5, 1, 4, 1}), TensorShape({3, 1, 2})},
          {TensorShape({2, 3, 4}), TensorShape({3, 1})},
          {TensorShape({2, 3, 4}), TensorShape({2, 1, 4})},
          {TensorShape({1, 3, 1}), TensorShape({2, 1, 4})},
      };
  return *shapes;
}

template <typename T>
void CheckBinaryOps(std::mt19937* rng) {
  struct OpCase {
    const char* op;
    T (*ref)(T, T);
  };
  const OpCase ops[] = {{"Add", RefAdd<T>},
                        {"Sub", RefSub<T>},
                        {"Mul", RefMul<T>},
                        {"Div", RefDiv<T>}};
  std::vector<std::pair<TensorShape, TensorShape>> shapes = FixedShapes();
  for (int i = 0; i < 25; ++i) shapes.push_back(RandomShapes(rng));
  for (const auto& [xs, ys] : shapes) {
    for (const OpCase& op : ops) {
      const bool is_div = std::string(op.op) == "Div";
      Tensor x = Random<T>(xs, rng, false);
      Tensor y = Random<T>(ys, rng, is_div);
      Tensor expected = ReferenceBinary<T>(x, y, op.ref);
      Tensor x_copy = x.DeepCopy(), y_copy = y.DeepCopy();
      Tensor got;
      Status s = RunOpOnPlaceholders(op.op, {x, y}, {}, &got);
      ASSERT_TRUE(s.ok()) << op.op << " " << xs.ToString() << " "
                          << ys.ToString() << ": " << s.ToString();
      EXPECT_TRUE(got.SameContents(expected))
          << op.op << "<" << DataTypeName(DataTypeOf<T>::value) << "> "
          << xs.ToString() << " vs " << ys.ToString() << "\n got "
          << got.DebugString(20) << "\nwant " << expected.DebugString(20);
      // The inputs, held by the caller, are never written.
      EXPECT_TRUE(x.SameContents(x_copy));
      EXPECT_TRUE(y.SameContents(y_copy));
    }
  }
}

TEST(CwiseOpsTest, BinaryOpsMatchReferenceFloat) {
  std::mt19937 rng(1);
  CheckBinaryOps<float>(&rng);
}
TEST(CwiseOpsTest, BinaryOpsMatchReferenceDouble) {
  std::mt19937 rng(2);
  CheckBinaryOps<double>(&rng);
}
TEST(CwiseOpsTest, BinaryOpsMatchReferenceInt32) {
  std::mt19937 rng(3);
  CheckBinaryOps<int32_t>(&rng);
}
TEST(CwiseOpsTest, BinaryOpsMatchReferenceInt64) {
  std::mt19937 rng(4);
  CheckBinaryOps<int64_t>(&rng);
}
TEST(CwiseOpsTest, BinaryOpsMatchReferenceUint8) {
  std::mt19937 rng(5);
  CheckBinaryOps<uint8_t>(&rng);
}

TEST(CwiseOpsTest, HandComputedBroadcast) {
  // [2,1,3] + [4,1] -> [2,4,3]
  Tensor x = MakeTensor<int32_t>({2, 1, 3}, {0, 1, 2, 100, 101, 102});
  Tensor y = MakeTensor<int32_t>({4, 1}, {10, 20, 30, 40});
  Tensor z;
  TW_ASSERT_OK(RunOpOnPlaceholders("Add", {x, y}, {}, &z));
  EXPECT_EQ(z.shape(), TensorShape({2, 4, 3}));
  EXPECT_EQ(ToVector<int32_t>(z),
            (std::vector<int32_t>{10,  11,  12,  20,  21,  22,  30,  31,
                                  32,  40,  41,  42,  110, 111, 112, 120,
                                  121, 122, 130, 131, 132, 140, 141, 142}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Sub", {Tensor::Scalar<float>(1), MakeTensor<float>({2}, {0.5f, 4})}, {},
      &z));
  EXPECT_EQ(ToVector<float>(z), (std::vector<float>{0.5f, -3}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Mul", {Tensor::Scalar<double>(3), Tensor::Scalar<double>(-2)}, {}, &z));
  EXPECT_EQ(z.rank(), 0);
  EXPECT_EQ(z.data<double>()[0], -6.0);
}

TEST(CwiseOpsTest, IntegerDivision) {
  Tensor z;
  TW_ASSERT_OK(RunOpOnPlaceholders("Div",
                                   {MakeTensor<int32_t>({4}, {7, -7, 7, -7}),
                                    MakeTensor<int32_t>({4}, {2, 2, -2, -2})},
                                   {}, &z));
  EXPECT_EQ(ToVector<int32_t>(z), (std::vector<int32_t>{3, -3, -3, 3}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Div",
      {MakeTensor<uint8_t>({2}, {200, 9}), MakeTensor<uint8_t>({2}, {7, 4})},
      {}, &z));
  EXPECT_EQ(ToVector<uint8_t>(z), (std::vector<uint8_t>{28, 2}));
  // Integer division by zero is an error (as in TensorFlow), never a trap.
  for (const auto& zero_case :
       {std::vector<Tensor>{MakeTensor<int64_t>({3}, {9, -9, 1}),
                            Tensor::Scalar<int64_t>(0)},
        std::vector<Tensor>{MakeTensor<int32_t>({2}, {5, 0}),
                            MakeTensor<int32_t>({2}, {1, 0})}}) {
    Status s = RunOpOnPlaceholders("Div", zero_case, {}, &z);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(HasSubstr(s.message(), "Integer division by zero"))
        << s.ToString();
  }
}

TEST(CwiseOpsTest, IncompatibleShapesAtRunTime) {
  Tensor z;
  Status s = RunOpOnPlaceholders("Add",
                                 {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                  Tensor(DT_FLOAT, TensorShape({3, 2}))},
                                 {}, &z);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(s.message(), "Incompatible shapes: [2,3] vs. [3,2]"))
      << s;
  EXPECT_TRUE(HasSubstr(s.message(), "[[node op")) << s;
}

TEST(CwiseOpsTest, LargeTensorsInParallel) {
  std::mt19937 rng(7);
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({300, 257}), TensorShape({300, 257})},
      {TensorShape({300, 257}), TensorShape({257})},
      {TensorShape({300, 1}), TensorShape({1, 257})},
      {TensorShape({70000}), TensorShape()},
      {TensorShape(), TensorShape({70000})},
  };
  for (const auto& [xs, ys] : shapes) {
    Tensor x = Random<float>(xs, &rng, false);
    Tensor y = Random<float>(ys, &rng, true);
    for (const char* op : {"Add", "Mul", "Div"}) {
      auto ref = std::string(op) == "Add"   ? RefAdd<float>
                 : std::string(op) == "Mul" ? RefMul<float>
                                            : RefDiv<float>;
      Tensor got;
      TW_ASSERT_OK(
          RunOpOnPlaceholders(op, {x, y}, {}, &got, /*intra_op_threads=*/3));
      EXPECT_TRUE(got.SameContents(ReferenceBinary<float>(x, y, ref)))
          << op << " " << xs.ToString() << " " << ys.ToString();
    }
  }
}

// Intermediate results are owned by the step alone, so kernels may write
// their outputs over them; the values must still be right.
TEST(CwiseOpsTest, InPlaceForwardingGivesRightValues) {
  using test::AddConst;
  using test::AddOp;
  using test::AddPlaceholder;
  auto g = std::make_shared<Graph>();
  AddPlaceholder(g.get(), "x", DT_FLOAT);
  AddPlaceholder(g.get(), "row", DT_FLOAT);
  AddConst(g.get(), "one", Tensor::Scalar<float>(1));
  AddOp(g.get(), "Neg", "t1", {"x"});          // fresh buffer
  AddOp(g.get(), "Mul", "t2", {"row", "t1"});  // general: may reuse t1
  AddOp(g.get(), "Add", "t3", {"t2", "one"});  // scalar y: may reuse t2
  AddOp(g.get(), "Sub", "t4", {"t3", "t3"});   // t3 read twice: no reuse
  AddOp(g.get(), "Neg", "t5", {"t3"});
  AddOp(g.get(), "Neg", "nrow", {"row"});     // fresh, shape [3]
  AddOp(g.get(), "Add", "d", {"nrow", "x"});  // nrow too small to reuse
  Session sess(g, SessionOptions());
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = MakeTensor<float>({3}, {10, 20, 30});
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    TW_ASSERT_OK(sess.Run({{"x:0", x}, {"row:0", row}}, {"t4:0", "t5:0", "d:0"},
                          {}, &out));
    EXPECT_EQ(ToVector<float>(out[0]), std::vector<float>(6, 0));
    EXPECT_EQ(ToVector<float>(out[1]),
              (std::vector<float>{9, 39, 89, 39, 99, 179}));
    EXPECT_EQ(ToVector<float>(out[2]),
              (std::vector<float>{-9, -18, -27, -6, -15, -24}));
    std::vector<Tensor> t3;
    TW_ASSERT_OK(sess.Run({{"x:0", x}, {"row:0", row}}, {"t3:0"}, {}, &t3));
    EXPECT_EQ(ToVector<float>(t3[0]),
              (std::vector<float>{-9, -39, -89, -39, -99, -179}));
  }
  // The fed tensors and the constant are untouched.
  EXPECT_EQ(ToVector<float>(x), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(ToVector<float>(row), (std::vector<float>{10, 20, 30}));
  std::vector<Tensor> one;
  TW_ASSERT_OK(sess.Run({}, {"one:0"}, {}, &one));
  EXPECT_EQ(one[0].data<float>()[0], 1.0f);
}

TEST(CwiseOpsTest, Neg) {
  Tensor z;
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Neg", {MakeTensor<float>({3}, {1.5f, -2, 0})}, {}, &z));
  EXPECT_EQ(ToVector<float>(z), (std::vector<float>{-1.5f, 2, -0.0f}));
  EXPECT_TRUE(std::signbit(z.data<float>()[2]));
  TW_ASSERT_OK(
      RunOpOnPlaceholders("Neg", {MakeTensor<double>({1}, {3.25})}, {}, &z));
  EXPECT_EQ(ToVector<double>(z), (std::vector<double>{-3.25}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Neg", {MakeTensor<int32_t>({2, 2}, {1, -2, 3, 0})}, {}, &z));
  EXPECT_EQ(z.shape(), TensorShape({2, 2}));
  EXPECT_EQ(ToVector<int32_t>(z), (std::vector<int32_t>{-1, 2, -3, 0}));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Neg", {Tensor::Scalar<int64_t>(int64_t{1} << 40)}, {}, &z));
  EXPECT_EQ(z.data<int64_t>()[0], -(int64_t{1} << 40));
  TW_ASSERT_OK(RunOpOnPlaceholders(
      "Neg", {Tensor(DT_FLOAT, TensorShape({0, 4}))}, {}, &z));
  EXPECT_EQ(z.shape(), TensorShape({0, 4}));
  // Not for uint8 (the op's allowed types).
  Status s =
      RunOpOnPlaceholders("Neg", {MakeTensor<uint8_t>({1}, {1})}, {}, &z);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(HasSubstr(s.message(), "not in the list of allowed values"));
}

TEST(BroadcastPlanTest, Kinds) {
  BroadcastPlan plan;
  TW_ASSERT_OK(
      MakeBroadcastPlan(TensorShape({2, 3}), TensorShape({2, 3}), &plan));
  EXPECT_EQ(plan.kind, BroadcastPlan::kSameShape);
  TW_ASSERT_OK(MakeBroadcastPlan(TensorShape(), TensorShape({2, 3}), &plan));
  EXPECT_EQ(plan.kind, BroadcastPlan::kScalarX);
  TW_ASSERT_OK(MakeBroadcastPlan(TensorShape({2, 3}), TensorShape({1}), &plan));
  EXPECT_EQ(plan.kind, BroadcastPlan::kScalarY);
  EXPECT_EQ(plan.output, TensorShape({2, 3}));
  TW_ASSERT_OK(
      MakeBroadcastPlan(TensorShape({2, 1, 3}), TensorShape({4, 1}), &plan));
  EXPECT_EQ(plan.kind, BroadcastPlan::kGeneral);
  EXPECT_EQ(plan.output, TensorShape({2, 4, 3}));
  EXPECT_EQ(plan.dims, (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(plan.x_strides, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(plan.y_strides, (std::vector<int64_t>{0, 1, 0}));
  // Adjacent dims that broadcast alike collapse.
  TW_ASSERT_OK(
      MakeBroadcastPlan(TensorShape({2, 3, 4}), TensorShape({4}), &plan));
  EXPECT_EQ(plan.dims, (std::vector<int64_t>{6, 4}));
  EXPECT_FALSE(
      MakeBroadcastPlan(TensorShape({2}), TensorShape({3}), &plan).ok());
}

}  // namespace
}  // namespace tensorweave
