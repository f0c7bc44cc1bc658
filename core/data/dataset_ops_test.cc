// The dataset and iterator kernels run through a Session, as a program's
// graph runs them: values against hand-computed expectations, the end of a
// sequence, errors (class and message), epochs, shuffle determinism and the
// shutdown of a prefetch thread while it waits.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/kernels/kernel_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AttrBool;
using test::AttrInt;
using test::AttrString;
using test::HasSubstr;

AttrValue TypeList(std::vector<DataType> types) {
  AttrValue v;
  v.mutable_list();
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}

AttrValue ShapeList(std::vector<PartialShape> shapes) {
  AttrValue v;
  v.mutable_list();
  for (const auto& s : shapes) s.ToProto(v.mutable_list()->add_shape());
  return v;
}

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

// A graph of dataset nodes; Iterate() adds an iterator on one of them.
class Pipeline {
 public:
  Pipeline() : g_(std::make_shared<Graph>()) {}

  // A node with the dataset attrs for one int64 scalar component (or the
  // given types and shapes); the int64 scalar arguments become Consts.
  std::string Op(const std::string& op, std::vector<std::string> inputs,
                 const std::vector<int64_t>& args = {}, test::Attrs attrs = {},
                 std::vector<DataType> types = {DT_INT64},
                 std::vector<PartialShape> shapes = {PartialShape({})}) {
    const std::string name = op + "_" + std::to_string(next_++);
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string arg = name + "_arg" + std::to_string(i);
      AddConst(g_.get(), arg, I64(args[i]));
      inputs.push_back(arg);
    }
    const bool t_attr = op == "TensorSliceDataset" || op == "TensorDataset" ||
                        op == "PaddedBatchDatasetV2";
    attrs[t_attr ? "Toutput_types" : "output_types"] = TypeList(types);
    attrs["output_shapes"] = ShapeList(shapes);
    AddOp(g_.get(), op, name, inputs, attrs);
    return name;
  }
  std::string Const(const Tensor& t) {
    const std::string name = "c_" + std::to_string(next_++);
    AddConst(g_.get(), name, t);
    return name;
  }
  std::string Range(int64_t start, int64_t stop, int64_t step = 1) {
    return Op("RangeDataset", {}, {start, stop, step});
  }
  // it (IteratorV2), init (MakeIterator on `dataset`), next (GetNext).
  void Iterate(const std::string& dataset,
               std::vector<DataType> types = {DT_INT64},
               std::vector<PartialShape> shapes = {PartialShape({})}) {
    const test::Attrs attrs = {{"output_types", TypeList(types)},
                               {"output_shapes", ShapeList(shapes)},
                               {"shared_name", AttrString("")},
                               {"container", AttrString("")}};
    AddOp(g_.get(), "IteratorV2", "it", {}, attrs);
    AddOp(g_.get(), "MakeIterator", "init", {dataset, "it"});
    AddOp(g_.get(), "IteratorGetNext", "next", {"it"},
          {{"output_types", TypeList(types)},
           {"output_shapes", ShapeList(shapes)}});
  }
  std::shared_ptr<Graph> graph() const { return g_; }

 private:
  std::shared_ptr<Graph> g_;
  int next_ = 0;
};

SessionOptions Options() {
  SessionOptions options;
  options.inter_op_threads = 2;
  options.intra_op_threads = 1;
  return options;
}

Status Init(Session* s) {
  std::vector<Tensor> out;
  return s->Run({}, {}, {"init"}, &out);
}

Status Next(Session* s, std::vector<Tensor>* out, int components = 1) {
  std::vector<std::string> fetches;
  for (int i = 0; i < components; ++i) {
    fetches.push_back("next:" + std::to_string(i));
  }
  return s->Run({}, fetches, {}, out);
}

// Every int64 scalar element until the end; the end must be OutOfRange
// "End of sequence" (twice: it stays ended).
std::vector<int64_t> Drain(Session* s) {
  std::vector<int64_t> values;
  std::vector<Tensor> out;
  Status st;
  while ((st = Next(s, &out)).ok()) values.push_back(out[0].data<int64_t>()[0]);
  EXPECT_EQ(st.code(), Code::kOutOfRange) << st;
  EXPECT_TRUE(HasSubstr(st.message(), "End of sequence")) << st;
  EXPECT_EQ(Next(s, &out).code(), Code::kOutOfRange);
  return values;
}

std::vector<int64_t> RunAll(const Pipeline& p) {
  Session session(p.graph(), Options());
  Status s = Init(&session);
  EXPECT_TRUE(s.ok()) << s;
  return Drain(&session);
}

std::vector<int64_t> Seq(int64_t a, int64_t b) {
  std::vector<int64_t> v;
  for (int64_t i = a; i < b; ++i) v.push_back(i);
  return v;
}

Status InitError(const Pipeline& p) {
  Session session(p.graph(), Options());
  return Init(&session);
}

TEST(DatasetOpsTest, RangeValuesAndSteps) {
  Pipeline p;
  p.Iterate(p.Range(2, 7));
  EXPECT_EQ(RunAll(p), Seq(2, 7));
  Pipeline q;
  q.Iterate(q.Range(10, 0, -3));
  EXPECT_EQ(RunAll(q), (std::vector<int64_t>{10, 7, 4, 1}));
  Pipeline empty;
  empty.Iterate(empty.Range(5, 5));
  EXPECT_TRUE(RunAll(empty).empty());
  Pipeline zero;
  zero.Iterate(zero.Range(0, 5, 0));
  Status s = InitError(zero);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "RangeDataset")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "step")) << s;
}

TEST(DatasetOpsTest, TensorSlicesOfTwoComponents) {
  Pipeline p;
  const std::string a =
      p.Const(test::MakeTensor<int32_t>(TensorShape({3}), {1, 2, 3}));
  const std::string b =
      p.Const(test::MakeTensor<float>(TensorShape({3, 2}), {1, 2, 3, 4, 5, 6}));
  const std::string ds =
      p.Op("TensorSliceDataset", {a, b}, {}, {}, {DT_INT32, DT_FLOAT},
           {PartialShape({}), PartialShape({2})});
  p.Iterate(ds, {DT_INT32, DT_FLOAT}, {PartialShape({}), PartialShape({2})});
  Session session(p.graph(), Options());
  ASSERT_TRUE(Init(&session).ok());
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    ASSERT_TRUE(Next(&session, &out, 2).ok());
    EXPECT_EQ(out[0].data<int32_t>()[0], i + 1);
    EXPECT_EQ(out[1].shape(), TensorShape({2}));
    EXPECT_EQ(test::ToVector<float>(out[1]),
              (std::vector<float>{2.f * i + 1, 2.f * i + 2}));
  }
  std::vector<Tensor> out;
  EXPECT_EQ(Next(&session, &out, 2).code(), Code::kOutOfRange);
}

TEST(DatasetOpsTest, TensorSliceMismatchedDim0IsInvalidArgument) {
  Pipeline p;
  const std::string a =
      p.Const(test::MakeTensor<int64_t>(TensorShape({3}), {1, 2, 3}));
  const std::string b =
      p.Const(test::MakeTensor<int64_t>(TensorShape({2}), {1, 2}));
  p.Iterate(p.Op("TensorSliceDataset", {a, b}, {}, {}, {DT_INT64, DT_INT64},
                 {PartialShape({}), PartialShape({})}),
            {DT_INT64, DT_INT64}, {PartialShape({}), PartialShape({})});
  Status s = InitError(p);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "TensorSliceDataset")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "has 2")) << s;
}

TEST(DatasetOpsTest, BatchRemainderDropAndErrors) {
  for (bool drop : {false, true}) {
    Pipeline p;
    const std::string range = p.Range(0, 7);
    const std::string size = p.Const(I64(3));
    const std::string flag = p.Const(Tensor::Scalar<bool>(drop));
    const std::string ds = p.Op("BatchDatasetV2", {range, size, flag}, {}, {},
                                {DT_INT64}, {PartialShape({-1})});
    p.Iterate(ds, {DT_INT64}, {PartialShape({-1})});
    Session session(p.graph(), Options());
    ASSERT_TRUE(Init(&session).ok());
    std::vector<std::vector<int64_t>> got;
    std::vector<Tensor> out;
    while (Next(&session, &out).ok()) {
      got.push_back(test::ToVector<int64_t>(out[0]));
    }
    std::vector<std::vector<int64_t>> want = {{0, 1, 2}, {3, 4, 5}};
    if (!drop) want.push_back({6});
    EXPECT_EQ(got, want);
  }
  Pipeline bad;
  const std::string ds = bad.Op("BatchDatasetV2",
                                {bad.Range(0, 7), bad.Const(I64(0)),
                                 bad.Const(Tensor::Scalar<bool>(false))},
                                {}, {}, {DT_INT64}, {PartialShape({-1})});
  bad.Iterate(ds, {DT_INT64}, {PartialShape({-1})});
  Status s = InitError(bad);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "BatchDataset")) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "got 0")) << s;
}

// Elements [0], [0 1], [0 1 2]... (UnknownRank shapes): batching two of
// different lengths fails, and the next GetNext continues.
std::string Ragged(Pipeline* p) {
  std::string ds;
  for (int n = 1; n <= 4; ++n) {
    std::vector<int64_t> v = Seq(0, n);
    const std::string t =
        p->Op("TensorDataset",
              {p->Const(test::MakeTensor<int64_t>(TensorShape({n}), v))}, {},
              {}, {DT_INT64}, {PartialShape({-1})});
    ds = ds.empty() ? t
                    : p->Op("ConcatenateDataset", {ds, t}, {}, {}, {DT_INT64},
                            {PartialShape({-1})});
  }
  return ds;
}

TEST(DatasetOpsTest, BatchOfDifferentShapesFailsAndTheIteratorContinues) {
  Pipeline p;
  const std::string ds =
      p.Op("BatchDatasetV2",
           {Ragged(&p), p.Const(I64(2)), p.Const(Tensor::Scalar<bool>(false))},
           {}, {}, {DT_INT64}, {PartialShape({-1, -1})});
  p.Iterate(ds, {DT_INT64}, {PartialShape({-1, -1})});
  Session session(p.graph(), Options());
  ASSERT_TRUE(Init(&session).ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 2; ++i) {
    Status s = Next(&session, &out);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_TRUE(HasSubstr(s.message(), "different shapes")) << s;
  }
  EXPECT_EQ(Next(&session, &out).code(), Code::kOutOfRange);
}

TEST(DatasetOpsTest, PaddedBatchPadsAndRejectsSmallerShapes) {
  for (int64_t pad : {-1, 5, 2}) {
    Pipeline p;
    const std::string ds =
        p.Op("PaddedBatchDatasetV2",
             {Ragged(&p), p.Const(I64(2)),
              p.Const(test::MakeTensor<int64_t>(TensorShape({1}), {pad})),
              p.Const(I64(-7)), p.Const(Tensor::Scalar<bool>(false))},
             {}, {{"N", AttrInt(1)}}, {DT_INT64}, {PartialShape({-1, -1})});
    p.Iterate(ds, {DT_INT64}, {PartialShape({-1, -1})});
    Session session(p.graph(), Options());
    ASSERT_TRUE(Init(&session).ok());
    std::vector<Tensor> out;
    if (pad == 2) {  // [0 1 2] does not fit in 2: the second batch fails
      EXPECT_TRUE(Next(&session, &out).ok());
      Status s = Next(&session, &out);
      EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
      EXPECT_TRUE(HasSubstr(s.message(), "PaddedBatchDataset")) << s;
      EXPECT_TRUE(HasSubstr(s.message(), "smaller")) << s;
      EXPECT_EQ(Next(&session, &out).code(), Code::kOutOfRange);
      continue;
    }
    ASSERT_TRUE(Next(&session, &out).ok());
    const int64_t w1 = pad < 0 ? 2 : pad;
    std::vector<int64_t> want1(2 * w1, -7);
    want1[0] = 0;
    want1[w1] = 0;
    want1[w1 + 1] = 1;
    EXPECT_EQ(out[0].shape(), TensorShape({2, w1}));
    EXPECT_EQ(test::ToVector<int64_t>(out[0]), want1);
    ASSERT_TRUE(Next(&session, &out).ok());
    const int64_t w2 = pad < 0 ? 4 : pad;
    std::vector<int64_t> want2(2 * w2, -7);
    for (int i = 0; i < 3; ++i) want2[i] = i;
    for (int i = 0; i < 4; ++i) want2[w2 + i] = i;
    EXPECT_EQ(test::ToVector<int64_t>(out[0]), want2);
    EXPECT_EQ(Next(&session, &out).code(), Code::kOutOfRange);
  }
}

TEST(DatasetOpsTest, UnbatchUndoesBatch) {
  Pipeline p;
  const std::string ds = p.Op(
      "BatchDatasetV2",
      {p.Range(0, 7), p.Const(I64(3)), p.Const(Tensor::Scalar<bool>(false))},
      {}, {}, {DT_INT64}, {PartialShape({-1})});
  p.Iterate(p.Op("UnbatchDataset", {ds}));
  EXPECT_EQ(RunAll(p), Seq(0, 7));
}

TEST(DatasetOpsTest, RepeatTakeSkipShardConcatenate) {
  {
    Pipeline p;
    p.Iterate(p.Op("RepeatDataset", {p.Range(0, 3)}, {2}));
    EXPECT_EQ(RunAll(p), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  }
  {
    Pipeline p;  // forever, then take
    p.Iterate(p.Op("TakeDataset",
                   {p.Op("RepeatDataset", {p.Range(0, 3)}, {-1})}, {7}));
    EXPECT_EQ(RunAll(p), (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0}));
  }
  {
    Pipeline p;  // an empty input repeated forever ends
    p.Iterate(p.Op("RepeatDataset", {p.Range(0, 0)}, {-1}));
    EXPECT_TRUE(RunAll(p).empty());
  }
  {
    Pipeline p;
    p.Iterate(p.Op("SkipDataset", {p.Range(0, 6)}, {4}));
    EXPECT_EQ(RunAll(p), (std::vector<int64_t>{4, 5}));
  }
  {
    Pipeline p;
    p.Iterate(p.Op("SkipDataset", {p.Range(0, 6)}, {-1}));
    EXPECT_TRUE(RunAll(p).empty());
  }
  {
    Pipeline p;
    p.Iterate(p.Op("TakeDataset", {p.Range(0, 6)}, {-1}));
    EXPECT_EQ(RunAll(p), Seq(0, 6));
  }
  {
    Pipeline p;
    p.Iterate(p.Op("ShardDataset", {p.Range(0, 10)}, {3, 1}));
    EXPECT_EQ(RunAll(p), (std::vector<int64_t>{1, 4, 7}));
  }
  for (auto [shards, index] :
       {std::pair<int64_t, int64_t>{0, 0}, {2, 2}, {2, -1}}) {
    Pipeline p;
    p.Iterate(p.Op("ShardDataset", {p.Range(0, 10)}, {shards, index}));
    Status s = InitError(p);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_TRUE(HasSubstr(s.message(), "ShardDataset")) << s;
  }
  {
    Pipeline p;
    p.Iterate(p.Op("ConcatenateDataset", {p.Range(0, 2), p.Range(5, 7)}));
    EXPECT_EQ(RunAll(p), (std::vector<int64_t>{0, 1, 5, 6}));
  }
}

TEST(DatasetOpsTest, ZipEndsWithTheShortestInput) {
  Pipeline p;
  const std::string ds = p.Op("ZipDataset", {p.Range(0, 3), p.Range(10, 20)},
                              {}, {{"N", AttrInt(2)}}, {DT_INT64, DT_INT64},
                              {PartialShape({}), PartialShape({})});
  p.Iterate(ds, {DT_INT64, DT_INT64}, {PartialShape({}), PartialShape({})});
  Session session(p.graph(), Options());
  ASSERT_TRUE(Init(&session).ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Next(&session, &out, 2).ok());
    EXPECT_EQ(out[0].data<int64_t>()[0], i);
    EXPECT_EQ(out[1].data<int64_t>()[0], 10 + i);
  }
  EXPECT_EQ(Next(&session, &out, 2).code(), Code::kOutOfRange);
}

std::vector<int64_t> Shuffled(int64_t seed, int64_t seed2, bool reshuffle,
                              int64_t epochs, int64_t buffer = 100) {
  Pipeline p;
  const std::string shuffle =
      p.Op("ShuffleDataset", {p.Range(0, 20)}, {buffer, seed, seed2},
           {{"reshuffle_each_iteration", AttrBool(reshuffle)}});
  p.Iterate(p.Op("RepeatDataset", {shuffle}, {epochs}));
  return RunAll(p);
}

TEST(DatasetOpsTest, ShuffleIsASeededPermutation) {
  const std::vector<int64_t> a = Shuffled(7, 3, true, 1);
  EXPECT_EQ(a, Shuffled(7, 3, true, 1));  // same seeds, same order
  EXPECT_NE(a, Seq(0, 20));
  EXPECT_NE(a, Shuffled(8, 3, true, 1));
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Seq(0, 20));
  // Seeds 0, 0: random (two runs differ, with probability 1 - 1/20!).
  EXPECT_NE(Shuffled(0, 0, true, 1), Shuffled(0, 0, true, 1));
  // A small buffer keeps elements near their place: the first output is one
  // of the first buffer_size elements.
  for (int64_t seed = 1; seed < 20; ++seed) {
    EXPECT_LT(Shuffled(seed, 0, true, 1, 2)[0], 2);
  }
}

TEST(DatasetOpsTest, ShuffleReshufflesEachEpoch) {
  const std::vector<int64_t> two = Shuffled(5, 6, true, 2);
  ASSERT_EQ(two.size(), 40u);
  const std::vector<int64_t> first(two.begin(), two.begin() + 20);
  const std::vector<int64_t> second(two.begin() + 20, two.end());
  EXPECT_NE(first, second);
  EXPECT_EQ(two, Shuffled(5, 6, true, 2));  // deterministic across runs
  const std::vector<int64_t> fixed = Shuffled(5, 6, false, 2);
  EXPECT_EQ(std::vector<int64_t>(fixed.begin(), fixed.begin() + 20),
            std::vector<int64_t>(fixed.begin() + 20, fixed.end()));
}

TEST(DatasetOpsTest, ReinitializingAnIteratorRestarts) {
  Pipeline p;
  p.Iterate(p.Op("ShuffleDataset", {p.Range(0, 10)}, {10, 1, 2}));
  Session session(p.graph(), Options());
  ASSERT_TRUE(Init(&session).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(Next(&session, &out).ok());
  ASSERT_TRUE(Init(&session).ok());
  const std::vector<int64_t> again = Drain(&session);
  EXPECT_EQ(again.size(), 10u);
  ASSERT_TRUE(Init(&session).ok());
  EXPECT_EQ(Drain(&session), again);  // as TensorFlow: the same first epoch
}

TEST(DatasetOpsTest, CacheReplaysTheFirstPass) {
  Pipeline p;  // a cached shuffle gives the same order every epoch
  const std::string cache = p.Op(
      "CacheDataset", {p.Op("ShuffleDataset", {p.Range(0, 10)}, {10, 4, 4}),
                       p.Const(Tensor::Scalar<std::string>(""))});
  p.Iterate(p.Op("RepeatDataset", {cache}, {3}));
  const std::vector<int64_t> all = RunAll(p);
  ASSERT_EQ(all.size(), 30u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(all[i], all[10 + i]);
    EXPECT_EQ(all[i], all[20 + i]);
  }
}

TEST(DatasetOpsTest, CacheFileIsWrittenAndReadBack) {
  const std::string file = ::testing::TempDir() + "/ds_cache_test";
  std::remove((file + ".twcache").c_str());
  auto run = [&file](int64_t stop) {
    Pipeline p;
    p.Iterate(
        p.Op("CacheDataset",
             {p.Range(0, stop), p.Const(Tensor::Scalar<std::string>(file))}));
    return RunAll(p);
  };
  EXPECT_EQ(run(5), Seq(0, 5));
  // The file now holds 0..4: a later dataset reads it, not its input.
  EXPECT_EQ(run(8), Seq(0, 5));
  std::remove((file + ".twcache").c_str());
  EXPECT_EQ(run(3), Seq(0, 3));
  std::remove((file + ".twcache").c_str());
}

TEST(DatasetOpsTest, PrefetchKeepsOrderAndDeliversErrorsInOrder) {
  Pipeline p;
  p.Iterate(p.Op("PrefetchDataset", {p.Range(0, 50)}, {3}));
  EXPECT_EQ(RunAll(p), Seq(0, 50));
  for (int64_t size : {int64_t{-1}, int64_t{0}}) {
    Pipeline q;
    q.Iterate(q.Op("PrefetchDataset", {q.Range(0, 5)}, {size}));
    EXPECT_EQ(RunAll(q), Seq(0, 5));
  }
  Pipeline bad;
  bad.Iterate(bad.Op("PrefetchDataset", {bad.Range(0, 5)}, {-2}));
  Status s = InitError(bad);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "PrefetchDataset")) << s;
  // Batches of the ragged dataset ([0],[0 1] and [0 1 2],[0 1 2 3]) both
  // fail: two errors, then the end, in order through the prefetch thread.
  Pipeline e;
  const std::string batch =
      e.Op("BatchDatasetV2",
           {Ragged(&e), e.Const(I64(2)), e.Const(Tensor::Scalar<bool>(false))},
           {}, {}, {DT_INT64}, {PartialShape({-1, -1})});
  e.Iterate(e.Op("PrefetchDataset", {batch}, {4}, {}, {DT_INT64},
                 {PartialShape({-1, -1})}),
            {DT_INT64}, {PartialShape({-1, -1})});
  Session session(e.graph(), Options());
  ASSERT_TRUE(Init(&session).ok());
  std::vector<Tensor> out;
  EXPECT_EQ(Next(&session, &out).code(), Code::kInvalidArgument);
  EXPECT_EQ(Next(&session, &out).code(), Code::kInvalidArgument);
  EXPECT_EQ(Next(&session, &out).code(), Code::kOutOfRange);
}

TEST(DatasetOpsTest, PrefetchThreadEndsWhileItsBufferIsFull) {
  // An infinite input: the producer fills the buffer and waits for room; a
  // new MakeIterator and then the session's end must stop it (no hang).
  Pipeline p;
  p.Iterate(p.Op("PrefetchDataset",
                 {p.Op("RepeatDataset", {p.Range(0, 3)}, {-1})}, {2}));
  for (int round = 0; round < 3; ++round) {
    auto session = std::make_unique<Session>(p.graph(), Options());
    ASSERT_TRUE(Init(session.get()).ok());
    std::vector<Tensor> out;
    ASSERT_TRUE(Next(session.get(), &out).ok());
    EXPECT_EQ(out[0].data<int64_t>()[0], 0);
    ASSERT_TRUE(Init(session.get()).ok());  // the old thread ends
    ASSERT_TRUE(Next(session.get(), &out).ok());
    EXPECT_EQ(out[0].data<int64_t>()[0], 0);
    session->Close();
    session.reset();  // joins the waiting producer
  }
}

TEST(DatasetOpsTest, IteratorErrors) {
  Pipeline p;
  p.Iterate(p.Range(0, 3));
  AddOp(p.graph().get(), "IteratorToStringHandle", "to_string", {"it"});
  AddOp(p.graph().get(), "IteratorFromStringHandleV2", "from_string",
        {"to_string"},
        {{"output_types", TypeList({DT_INT64})},
         {"output_shapes", ShapeList({PartialShape({})})}});
  AddOp(p.graph().get(), "IteratorFromStringHandleV2", "from_wrong",
        {"to_string"},
        {{"output_types", TypeList({DT_FLOAT})},
         {"output_shapes", ShapeList({PartialShape({})})}});
  AddOp(p.graph().get(), "IteratorGetNext", "next_via_string", {"from_string"},
        {{"output_types", TypeList({DT_INT64})},
         {"output_shapes", ShapeList({PartialShape({})})}});
  const std::string wrong = p.Op("RangeDataset", {}, {0, 3, 1}, {}, {DT_FLOAT});
  AddOp(p.graph().get(), "MakeIterator", "init_wrong", {wrong, "it"});
  const std::string bogus = p.Const(Tensor::Scalar<std::string>("nonsense"));
  AddOp(p.graph().get(), "IteratorGetNext", "next_bogus", {bogus},
        {{"output_types", TypeList({DT_INT64})},
         {"output_shapes", ShapeList({PartialShape({})})}});
  Session session(p.graph(), Options());
  std::vector<Tensor> out;
  Status s = Next(&session, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_TRUE(HasSubstr(s.message(),
                        "GetNext() failed because the iterator has not been "
                        "initialized."))
      << s;
  s = session.Run({}, {}, {"init_wrong"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "float")) << s;
  s = session.Run({}, {"next_bogus:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_TRUE(HasSubstr(s.message(), "nonsense")) << s;
  ASSERT_TRUE(Init(&session).ok());
  ASSERT_TRUE(Next(&session, &out).ok());
  ASSERT_TRUE(session.Run({}, {"next_via_string:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<int64_t>()[0], 1);  // the same iterator
  s = session.Run({}, {"from_wrong:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
}

TEST(DatasetOpsTest, OneShotIteratorAndCardinality) {
  Pipeline p;
  const std::string ds =
      p.Op("BatchDatasetV2",
           {p.Op("RepeatDataset", {p.Range(0, 5)}, {3}), p.Const(I64(4)),
            p.Const(Tensor::Scalar<bool>(false))},
           {}, {}, {DT_INT64}, {PartialShape({-1})});
  AddOp(p.graph().get(), "OneShotIterator", "one_shot", {ds},
        {{"output_types", TypeList({DT_INT64})},
         {"output_shapes", ShapeList({PartialShape({-1})})}});
  AddOp(p.graph().get(), "IteratorGetNext", "next", {"one_shot"},
        {{"output_types", TypeList({DT_INT64})},
         {"output_shapes", ShapeList({PartialShape({-1})})}});
  AddOp(p.graph().get(), "DatasetCardinality", "card", {ds});
  const std::string forever = p.Op("RepeatDataset", {p.Range(0, 5)}, {-1});
  AddOp(p.graph().get(), "DatasetCardinality", "card_forever", {forever});
  Session session(p.graph(), Options());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({}, {"card:0", "card_forever:0"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<int64_t>()[0], 4);  // ceil(15 / 4)
  EXPECT_EQ(out[1].data<int64_t>()[0], -1);
  std::vector<int64_t> all;
  while (Next(&session, &out).ok()) {
    for (int64_t v : test::ToVector<int64_t>(out[0])) all.push_back(v);
  }
  std::vector<int64_t> want;
  for (int e = 0; e < 3; ++e)
    for (int i = 0; i < 5; ++i) want.push_back(i);
  EXPECT_EQ(all, want);
}

}  // namespace
}  // namespace tensorweave
