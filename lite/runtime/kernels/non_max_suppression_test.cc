#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lite/runtime/testing/op_model.h"

namespace twl {
namespace {

using testing::BuiltinOperator;
using testing::OpModel;
using testing::Options;

Options Nms(OpModel& m, bool center_point_box) {
  return {schema::BuiltinOptions::NonMaxSuppressionOptions,
          schema::CreateNonMaxSuppressionOptions(m.builder().fbb(),
                                                 center_point_box)
              .Union()};
}

// ONNX's NonMaxSuppression node tests' boxes: 0-2 overlap, 3-4 overlap,
// 5 alone.
const std::vector<float> kCornerBoxes = {0, 0,     1, 1,     0, 0.1f, 1, 1.1f,
                                         0, -0.1f, 1, 0.9f,  0, 10,   1, 11,
                                         0, 10.1f, 1, 11.1f, 0, 100,  1, 101};
const std::vector<float> kScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

struct NmsCase {
  std::vector<float> boxes = kCornerBoxes;
  std::vector<float> scores = kScores;
  int classes = 1;
  int64_t max_boxes = 3;
  float iou = 0.5f;
  bool has_score_threshold = true;
  float score_threshold = 0.0f;
  bool center_point_box = false;
};

// Runs NON_MAX_SUPPRESSION on one batch of `c.boxes` with the scalars as
// constants; the selected rows, flattened.
std::vector<int64_t> RunNms(const NmsCase& c, std::vector<int32_t>* shape) {
  OpModel m;
  const int32_t n = static_cast<int32_t>(c.boxes.size() / 4);
  int boxes = m.AddInput(DataType::kFloat32, {1, n, 4});
  int scores = m.AddInput(DataType::kFloat32, {1, c.classes, n});
  int max_boxes = m.AddConst<int64_t>({}, {c.max_boxes});
  int iou = m.AddConst<float>({}, {c.iou});
  std::vector<int32_t> inputs = {boxes, scores, max_boxes, iou};
  if (c.has_score_threshold) {
    inputs.push_back(m.AddConst<float>({1}, {c.score_threshold}));
  }
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::NON_MAX_SUPPRESSION, inputs, {y},
          Nms(m, c.center_point_box));
  Status s = m.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  m.SetInput<float>(0, c.boxes);
  m.SetInput<float>(1, c.scores);
  s = m.Invoke();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.CompareWithReference(), "");
  *shape = m.OutputShape(0);
  return m.GetOutput<int64_t>(0);
}

// Expected rows: ONNX's node tests (test_nonmaxsuppression_*).
TEST(NonMaxSuppressionTest, SuppressByIou) {
  std::vector<int32_t> shape;
  EXPECT_EQ(RunNms(NmsCase(), &shape),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  EXPECT_EQ(shape, (std::vector<int32_t>{3, 3}));
}

TEST(NonMaxSuppressionTest, CenterPointBox) {
  NmsCase c;
  c.boxes = {0.5f, 0.5f,  1, 1, 0.5f, 0.6f,  1, 1, 0.5f, 0.4f,   1, 1,
             0.5f, 10.5f, 1, 1, 0.5f, 10.6f, 1, 1, 0.5f, 100.5f, 1, 1};
  c.center_point_box = true;
  std::vector<int32_t> shape;
  EXPECT_EQ(RunNms(c, &shape),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(NonMaxSuppressionTest, FlippedCorners) {
  NmsCase c;
  c.boxes = {1, 1,  0, 0,  0, 0.1f,  1, 1.1f,  0, 0.9f, 1, -0.1f,
             1, 11, 0, 10, 0, 10.1f, 1, 11.1f, 1, 101,  0, 100};
  std::vector<int32_t> shape;
  EXPECT_EQ(RunNms(c, &shape),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(NonMaxSuppressionTest, ScoreThresholdAndLimit) {
  NmsCase c;
  c.score_threshold = 0.4f;
  std::vector<int32_t> shape;
  EXPECT_EQ(RunNms(c, &shape), (std::vector<int64_t>{0, 0, 3, 0, 0, 0}));
  c = NmsCase();
  c.max_boxes = 2;
  EXPECT_EQ(RunNms(c, &shape), (std::vector<int64_t>{0, 0, 3, 0, 0, 0}));
  c.max_boxes = 0;  // onnx: no output
  EXPECT_EQ(RunNms(c, &shape), (std::vector<int64_t>{}));
  EXPECT_EQ(shape, (std::vector<int32_t>{0, 3}));
  c.max_boxes = -5;
  EXPECT_EQ(RunNms(c, &shape), (std::vector<int64_t>{}));
}

TEST(NonMaxSuppressionTest, TwoClassesAndTiesByIndex) {
  NmsCase c;
  c.classes = 2;
  c.scores = kScores;
  c.scores.insert(c.scores.end(), {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f});
  c.max_boxes = 2;
  c.has_score_threshold = false;
  std::vector<int32_t> shape;
  // Class 1: equal scores, so box 0 then the next box it does not
  // suppress (3).
  EXPECT_EQ(RunNms(c, &shape),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 1, 0, 0, 1, 3}));
}

TEST(NonMaxSuppressionTest, NanScoresSortLastWithoutThreshold) {
  NmsCase c;
  c.scores = {NAN, 0.75f, 0.6f, 0.95f, NAN, 0.3f};
  c.has_score_threshold = false;
  c.max_boxes = 6;
  std::vector<int32_t> shape;
  EXPECT_EQ(RunNms(c, &shape),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 1, 0, 0, 5}));
}

TEST(NonMaxSuppressionTest, BadIouThresholdFailsInvoke) {
  OpModel m;
  int boxes = m.AddInput(DataType::kFloat32, {1, 1, 4});
  int scores = m.AddInput(DataType::kFloat32, {1, 1, 1});
  int max_boxes = m.AddConst<int64_t>({1}, {1});
  int iou = m.AddInput(DataType::kFloat32, {});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::NON_MAX_SUPPRESSION, {boxes, scores, max_boxes, iou},
          {y}, Nms(m, false));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(2, {1.5f});
  Status s = m.Invoke();
  ASSERT_FALSE(s.ok());
  EXPECT_STREQ(s.message(),
               "operator 0 (NON_MAX_SUPPRESSION): iou_threshold must be in "
               "[0, 1], got 1.5");
}

TEST(NonMaxSuppressionTest, MismatchedShapesFailPrepare) {
  OpModel m;
  int boxes = m.AddInput(DataType::kFloat32, {1, 6, 4});
  int scores = m.AddInput(DataType::kFloat32, {1, 1, 5});
  int y = m.AddOutput(DataType::kInt64);
  m.AddOp(BuiltinOperator::NON_MAX_SUPPRESSION, {boxes, scores}, {y},
          Nms(m, false));
  Status s = m.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      std::string(s.message()).find("boxes have 6 boxes per batch, scores 5"),
      std::string::npos)
      << s.message();
}

// A detector's tail: NMS, then the selected box indices (column 2) gather
// the boxes. Each run selects a different number of boxes.
TEST(NonMaxSuppressionTest, GatherOfSelectedBoxesRunsOnTheDynamicTensor) {
  OpModel m;
  int boxes = m.AddInput(DataType::kFloat32, {1, 6, 4});
  int scores = m.AddInput(DataType::kFloat32, {1, 1, 6});
  int max_boxes = m.AddConst<int64_t>({}, {6});
  int iou = m.AddConst<float>({}, {0.5f});
  int threshold = m.AddInput(DataType::kFloat32, {});
  int selected = m.AddTensor(DataType::kInt64);
  int column = m.AddConst<int32_t>({}, {2});
  int box_index = m.AddTensor(DataType::kInt64);
  int shape = m.AddConst<int32_t>({2}, {6, 4});
  int flat_boxes = m.AddTensor(DataType::kFloat32);
  int y = m.AddOutput(DataType::kFloat32);
  m.AddOp(BuiltinOperator::NON_MAX_SUPPRESSION,
          {boxes, scores, max_boxes, iou, threshold}, {selected},
          Nms(m, false));
  m.AddOp(BuiltinOperator::GATHER, {selected, column}, {box_index},
          m.builder().Gather(1));
  m.AddOp(BuiltinOperator::RESHAPE, {boxes, shape}, {flat_boxes});
  m.AddOp(BuiltinOperator::GATHER, {flat_boxes, box_index}, {y},
          m.builder().Gather(0));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, kCornerBoxes);
  m.SetInput<float>(1, kScores);
  const float thresholds[] = {0.0f, 0.92f, 0.99f, 0.0f};
  const std::vector<int> expected[] = {{3, 0, 5}, {3}, {}, {3, 0, 5}};
  for (int run = 0; run < 4; ++run) {
    m.SetInput<float>(2, {thresholds[run]});
    ASSERT_TRUE(m.Invoke().ok()) << m.interpreter()->error_message();
    const int rows = static_cast<int>(expected[run].size());
    EXPECT_EQ(m.OutputShape(0), (std::vector<int32_t>{rows, 4}));
    std::vector<float> want;
    for (int b : expected[run]) {
      want.insert(want.end(), kCornerBoxes.begin() + 4 * b,
                  kCornerBoxes.begin() + 4 * b + 4);
    }
    EXPECT_EQ(m.GetOutput<float>(0), want) << "run " << run;
    EXPECT_EQ(m.CompareWithReference(), "");
  }
  // The static part stays in the arena.
  EXPECT_FALSE(m.interpreter()->tensor(flat_boxes)->is_dynamic);
  EXPECT_TRUE(m.interpreter()->tensor(box_index)->is_dynamic);
}

}  // namespace
}  // namespace twl
