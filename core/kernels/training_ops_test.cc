// Fused optimizer updates against a plain scalar reference of TensorFlow's
// formulas, their failure paths, copy-on-write and concurrent updates.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/graph_test_util.h"
#include "core/runtime/session.h"

namespace tensorweave {
namespace {

using test::AddConst;
using test::AddOp;
using test::AddVariable;
using test::AttrBool;
using test::ToVector;

SessionOptions Opts(int intra = 2) {
  SessionOptions o;
  o.inter_op_threads = 2;
  o.intra_op_threads = intra;
  return o;
}

// A graph with variables `names` of `shape`, their initializers
// ("<name>/init" from constant `init[i]`) and a constant gradient "grad".
template <typename T>
std::shared_ptr<Graph> GraphWithVars(const std::vector<std::string>& names,
                                     const std::vector<std::vector<T>>& init,
                                     const std::vector<T>& grad) {
  auto g = std::make_shared<Graph>();
  TensorShape shape({static_cast<int64_t>(grad.size())});
  for (size_t i = 0; i < names.size(); ++i) {
    AddVariable(g.get(), names[i], DataTypeOf<T>::value, PartialShape(shape));
    AddConst(g.get(), names[i] + "/value", test::MakeTensor<T>(shape, init[i]));
    AddOp(g.get(), "Assign", names[i] + "/init",
          {names[i], names[i] + "/value"});
  }
  AddConst(g.get(), "grad", test::MakeTensor<T>(shape, grad));
  return g;
}

template <typename T>
void AddScalar(Graph* g, const std::string& name, T value) {
  AddConst(g, name, Tensor::Scalar<T>(value));
}

std::vector<std::string> InitTargets(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(n + "/init");
  return out;
}

template <typename T>
std::vector<T> Fetch(Session* sess, const std::string& name) {
  std::vector<Tensor> out;
  Status s = sess->Run({}, {name + ":0"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? ToVector<T>(out[0]) : std::vector<T>();
}

template <typename T>
void ExpectNear(const std::vector<T>& got, const std::vector<double>& want,
                double rtol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], rtol * std::max(1.0, std::abs(want[i])))
        << "element " << i;
  }
}

const std::vector<double> kVar = {1.0, -2.0, 0.5, 3.0};
const std::vector<double> kGrad = {0.1, -0.4, 2.0, -0.05};

template <typename T>
std::vector<T> As(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T>
class TrainingOpsTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrainingOpsTest, FloatTypes);

TYPED_TEST(TrainingOpsTest, GradientDescent) {
  using T = TypeParam;
  auto g = GraphWithVars<T>({"var"}, {As<T>(kVar)}, As<T>(kGrad));
  AddScalar<T>(g.get(), "alpha", T(0.5));
  AddOp(g.get(), "ApplyGradientDescent", "apply", {"var", "alpha", "grad"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, InitTargets({"var"}), &out));
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(sess.Run({}, {"apply:0"}, {}, &out));
  }
  std::vector<double> want = kVar;
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < want.size(); ++i) want[i] -= 0.5 * kGrad[i];
  }
  ExpectNear(ToVector<T>(out[0]), want, 1e-6);
}

TYPED_TEST(TrainingOpsTest, Momentum) {
  using T = TypeParam;
  for (bool nesterov : {false, true}) {
    auto g = GraphWithVars<T>({"var", "accum"}, {As<T>(kVar), {0, 0, 0, 0}},
                              As<T>(kGrad));
    AddScalar<T>(g.get(), "lr", T(0.1));
    AddScalar<T>(g.get(), "momentum", T(0.9));
    AddOp(g.get(), "ApplyMomentum", "apply",
          {"var", "accum", "lr", "grad", "momentum"},
          {{"use_nesterov", AttrBool(nesterov)}});
    Session sess(g, Opts());
    std::vector<Tensor> out;
    TW_ASSERT_OK(sess.Run({}, {}, InitTargets({"var", "accum"}), &out));
    std::vector<double> var = kVar, accum(4, 0.0);
    for (int step = 0; step < 3; ++step) {
      TW_ASSERT_OK(sess.Run({}, {}, {"apply"}, &out));
      for (size_t i = 0; i < var.size(); ++i) {
        accum[i] = accum[i] * 0.9 + kGrad[i];
        var[i] -=
            nesterov ? kGrad[i] * 0.1 + accum[i] * 0.9 * 0.1 : 0.1 * accum[i];
      }
    }
    ExpectNear(Fetch<T>(&sess, "var"), var, 1e-6);
    ExpectNear(Fetch<T>(&sess, "accum"), accum, 1e-6);
  }
}

TYPED_TEST(TrainingOpsTest, Adagrad) {
  using T = TypeParam;
  for (bool update_slots : {true, false}) {
    auto g = GraphWithVars<T>(
        {"var", "accum"}, {As<T>(kVar), {0.1, 0.1, 0.1, 0.1}}, As<T>(kGrad));
    AddScalar<T>(g.get(), "lr", T(0.2));
    AddOp(g.get(), "ApplyAdagrad", "apply", {"var", "accum", "lr", "grad"},
          {{"update_slots", AttrBool(update_slots)}});
    Session sess(g, Opts());
    std::vector<Tensor> out;
    TW_ASSERT_OK(sess.Run({}, {}, InitTargets({"var", "accum"}), &out));
    std::vector<double> var = kVar, accum(4, 0.1);
    for (int step = 0; step < 3; ++step) {
      TW_ASSERT_OK(sess.Run({}, {}, {"apply"}, &out));
      for (size_t i = 0; i < var.size(); ++i) {
        if (update_slots) accum[i] += kGrad[i] * kGrad[i];
        var[i] -= 0.2 * kGrad[i] / std::sqrt(accum[i]);
      }
    }
    ExpectNear(Fetch<T>(&sess, "var"), var, 1e-5);
    ExpectNear(Fetch<T>(&sess, "accum"), accum, 1e-6);
  }
}

TYPED_TEST(TrainingOpsTest, RMSProp) {
  using T = TypeParam;
  auto g =
      GraphWithVars<T>({"var", "ms", "mom"},
                       {As<T>(kVar), {1, 1, 1, 1}, {0, 0, 0, 0}}, As<T>(kGrad));
  AddScalar<T>(g.get(), "lr", T(0.01));
  AddScalar<T>(g.get(), "rho", T(0.9));
  AddScalar<T>(g.get(), "momentum", T(0.5));
  AddScalar<T>(g.get(), "epsilon", T(1e-7));
  AddOp(g.get(), "ApplyRMSProp", "apply",
        {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, InitTargets({"var", "ms", "mom"}), &out));
  std::vector<double> var = kVar, ms(4, 1.0), mom(4, 0.0);
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(sess.Run({}, {}, {"apply"}, &out));
    for (size_t i = 0; i < var.size(); ++i) {
      ms[i] += (kGrad[i] * kGrad[i] - ms[i]) * (1 - 0.9);
      mom[i] = mom[i] * 0.5 + 0.01 * kGrad[i] / std::sqrt(ms[i] + 1e-7);
      var[i] -= mom[i];
    }
  }
  ExpectNear(Fetch<T>(&sess, "var"), var, 1e-6);
  ExpectNear(Fetch<T>(&sess, "ms"), ms, 1e-6);
  ExpectNear(Fetch<T>(&sess, "mom"), mom, 1e-5);
}

TYPED_TEST(TrainingOpsTest, CenteredRMSProp) {
  using T = TypeParam;
  auto g = GraphWithVars<T>(
      {"var", "mg", "ms", "mom"},
      {As<T>(kVar), {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}}, As<T>(kGrad));
  AddScalar<T>(g.get(), "lr", T(0.01));
  AddScalar<T>(g.get(), "rho", T(0.9));
  AddScalar<T>(g.get(), "momentum", T(0.5));
  AddScalar<T>(g.get(), "epsilon", T(1e-7));
  AddOp(g.get(), "ApplyCenteredRMSProp", "apply",
        {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, InitTargets({"var", "mg", "ms", "mom"}), &out));
  std::vector<double> var = kVar, mg(4, 0.0), ms(4, 1.0), mom(4, 0.0);
  for (int step = 0; step < 3; ++step) {
    TW_ASSERT_OK(sess.Run({}, {}, {"apply"}, &out));
    for (size_t i = 0; i < var.size(); ++i) {
      ms[i] += (kGrad[i] * kGrad[i] - ms[i]) * (1 - 0.9);
      mg[i] += (kGrad[i] - mg[i]) * (1 - 0.9);
      mom[i] = mom[i] * 0.5 +
               0.01 * kGrad[i] / std::sqrt(ms[i] - mg[i] * mg[i] + 1e-7);
      var[i] -= mom[i];
    }
  }
  ExpectNear(Fetch<T>(&sess, "var"), var, 1e-6);
  ExpectNear(Fetch<T>(&sess, "mg"), mg, 1e-6);
  ExpectNear(Fetch<T>(&sess, "mom"), mom, 1e-5);
}

TYPED_TEST(TrainingOpsTest, Adam) {
  using T = TypeParam;
  for (bool nesterov : {false, true}) {
    auto g = GraphWithVars<T>({"var", "m", "v"},
                              {As<T>(kVar), {0, 0, 0, 0}, {0, 0, 0, 0}},
                              As<T>(kGrad));
    AddScalar<T>(g.get(), "beta1_power", T(0.9));
    AddScalar<T>(g.get(), "beta2_power", T(0.999));
    AddScalar<T>(g.get(), "lr", T(0.001));
    AddScalar<T>(g.get(), "beta1", T(0.9));
    AddScalar<T>(g.get(), "beta2", T(0.999));
    AddScalar<T>(g.get(), "epsilon", T(1e-8));
    AddOp(g.get(), "ApplyAdam", "apply",
          {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1",
           "beta2", "epsilon", "grad"},
          {{"use_nesterov", AttrBool(nesterov)}});
    Session sess(g, Opts());
    std::vector<Tensor> out;
    TW_ASSERT_OK(sess.Run({}, {}, InitTargets({"var", "m", "v"}), &out));
    TW_ASSERT_OK(sess.Run({}, {}, {"apply"}, &out));
    std::vector<double> var = kVar, m(4), v(4);
    const double alpha = 0.001 * std::sqrt(1 - 0.999) / (1 - 0.9);
    for (size_t i = 0; i < var.size(); ++i) {
      m[i] = kGrad[i] * 0.1;
      v[i] = kGrad[i] * kGrad[i] * 0.001;
      double mhat = nesterov ? kGrad[i] * 0.1 + 0.9 * m[i] : m[i];
      var[i] -= alpha * mhat / (std::sqrt(v[i]) + 1e-8);
    }
    ExpectNear(Fetch<T>(&sess, "var"), var, 1e-6);
    ExpectNear(Fetch<T>(&sess, "m"), m, 1e-6);
    ExpectNear(Fetch<T>(&sess, "v"), v, 1e-6);
  }
}

TEST(TrainingOpsErrorsTest, UninitializedVariableIsFailedPrecondition) {
  auto g = GraphWithVars<float>({"var", "accum"}, {{1, 2}, {0, 0}}, {1, 1});
  AddScalar<float>(g.get(), "lr", 0.1f);
  AddScalar<float>(g.get(), "momentum", 0.9f);
  AddOp(g.get(), "ApplyMomentum", "apply",
        {"var", "accum", "lr", "grad", "momentum"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"var/init"}, &out));  // accum stays unset
  Status s = sess.Run({}, {}, {"apply"}, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("uninitialized value accum"), std::string::npos)
      << s;
  // Nothing was updated.
  EXPECT_EQ(Fetch<float>(&sess, "var"), (std::vector<float>{1, 2}));
}

TEST(TrainingOpsErrorsTest, ShapeErrorsAtConstruction) {
  auto g = GraphWithVars<float>({"var"}, {{1, 2}}, {1, 1});
  AddConst(g.get(), "grad3", Tensor::Vector<float>({1, 2, 3}));
  AddConst(g.get(), "lr_vec", Tensor::Vector<float>({1, 2}));
  AddScalar<float>(g.get(), "lr", 0.1f);
  Status s = test::TryAddOp(g.get(), "ApplyGradientDescent", "bad_grad",
                            {"var", "lr", "grad3"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find(
                "Dimension 0 in both shapes must be equal, but are 2 and 3"),
            std::string::npos)
      << s;
  s = test::TryAddOp(g.get(), "ApplyGradientDescent", "bad_lr",
                     {"var", "lr_vec", "grad"});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("alpha must be a scalar"), std::string::npos) << s;
}

TEST(TrainingOpsErrorsTest, ShapeErrorsAtRunTime) {
  // A variable of unknown shape that holds a value of another shape than
  // the gradient: caught by the kernel.
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "var", DT_FLOAT, PartialShape());
  AddConst(g.get(), "value", Tensor::Vector<float>({1, 2, 3}));
  AddOp(g.get(), "Assign", "init", {"var", "value"},
        {{"validate_shape", AttrBool(false)}});
  AddConst(g.get(), "grad", Tensor::Vector<float>({1, 2}));
  AddScalar<float>(g.get(), "lr", 0.1f);
  AddOp(g.get(), "ApplyGradientDescent", "apply", {"var", "lr", "grad"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"init"}, &out));
  Status s = sess.Run({}, {}, {"apply"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("[3] vs [2]"), std::string::npos) << s;
  EXPECT_NE(s.message().find("node apply"), std::string::npos) << s;
}

TEST(TrainingOpsTest, SnapshotTakenBeforeUpdateIsUnchanged) {
  // "read" fetched in the same step as the update sees the value before it
  // (copy-on-write), and the variable holds the updated value.
  auto g = GraphWithVars<float>({"var"}, {{1, 2}}, {1, 1});
  AddScalar<float>(g.get(), "lr", 1.0f);
  AddOp(g.get(), "Identity", "read", {"var"});
  AddOp(g.get(), "ApplyGradientDescent", "apply",
        {"var", "lr", "grad", "^read"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"var/init"}, &out));
  TW_ASSERT_OK(sess.Run({}, {"read:0"}, {"apply"}, &out));
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Fetch<float>(&sess, "var"), (std::vector<float>{0, 1}));
}

TEST(TrainingOpsTest, LargeTensorsInParallelAndConcurrentStepsAreAtomic) {
  // 200k elements: the update runs on the intra-op pool. Two threads run
  // steps concurrently; each update is atomic, so the result is exact.
  const int64_t n = 200000;
  auto g = std::make_shared<Graph>();
  AddVariable(g.get(), "var", DT_FLOAT, PartialShape({n}));
  AddVariable(g.get(), "accum", DT_FLOAT, PartialShape({n}));
  Tensor zeros(DT_FLOAT, TensorShape({n})), ones(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    zeros.data<float>()[i] = 0;
    ones.data<float>()[i] = 1;
  }
  AddConst(g.get(), "zeros", zeros);
  AddConst(g.get(), "ones", ones);
  AddOp(g.get(), "Assign", "var/init", {"var", "zeros"});
  AddOp(g.get(), "Assign", "accum/init", {"accum", "zeros"});
  AddScalar<float>(g.get(), "lr", 1.0f);
  AddScalar<float>(g.get(), "momentum", 1.0f);
  // accum += 1 each step; var -= accum: after k steps var = -k(k+1)/2.
  AddOp(g.get(), "ApplyMomentum", "apply",
        {"var", "accum", "lr", "ones", "momentum"});
  Session sess(g, Opts(4));
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"var/init", "accum/init"}, &out));
  auto worker = [&sess] {
    std::vector<Tensor> o;
    for (int i = 0; i < 10; ++i) TW_EXPECT_OK(sess.Run({}, {}, {"apply"}, &o));
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  std::vector<float> var = Fetch<float>(&sess, "var");
  std::vector<float> accum = Fetch<float>(&sess, "accum");
  ASSERT_EQ(var.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += 997) {
    ASSERT_EQ(accum[i], 20.0f) << i;
    ASSERT_EQ(var[i], -210.0f) << i;
  }
}

// --- Adadelta, FTRL, the proximal methods, AdagradDA
// --------------------------

// Runs `op` three times on variables initialized to `init` (the first is
// "var") with the scalars `scalars` (name, value) and the gradient kGrad,
// passing inputs in `inputs` order; returns each variable's final value.
template <typename T>
std::vector<std::vector<T>> RunUpdate(
    const std::string& op, const std::vector<std::string>& vars,
    const std::vector<std::vector<double>>& init,
    const std::vector<std::pair<std::string, double>>& scalars,
    const std::vector<std::string>& inputs) {
  std::vector<std::vector<T>> init_t;
  for (const auto& v : init) init_t.push_back(As<T>(v));
  auto g = GraphWithVars<T>(vars, init_t, As<T>(kGrad));
  for (const auto& [name, value] : scalars) {
    if (name == "global_step") {
      AddConst(g.get(), name, Tensor::Scalar<int64_t>(int64_t(value)));
    } else {
      AddScalar<T>(g.get(), name, T(value));
    }
  }
  AddOp(g.get(), op, "apply", inputs);
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_EXPECT_OK(sess.Run({}, {}, InitTargets(vars), &out));
  for (int step = 0; step < 3; ++step) {
    TW_EXPECT_OK(sess.Run({}, {}, {"apply"}, &out));
  }
  std::vector<std::vector<T>> result;
  for (const auto& v : vars) result.push_back(Fetch<T>(&sess, v));
  return result;
}

double Sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

TYPED_TEST(TrainingOpsTest, Adadelta) {
  using T = TypeParam;
  auto got = RunUpdate<T>(
      "ApplyAdadelta", {"var", "accum", "accum_update"},
      {kVar, {0, 0, 0, 0}, {0, 0, 0, 0}},
      {{"lr", 1.0}, {"rho", 0.9}, {"epsilon", 1e-3}},
      {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"});
  std::vector<double> var = kVar, accum(4, 0.0), accum_update(4, 0.0);
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < var.size(); ++i) {
      accum[i] = 0.9 * accum[i] + 0.1 * kGrad[i] * kGrad[i];
      const double update = std::sqrt(accum_update[i] + 1e-3) /
                            std::sqrt(accum[i] + 1e-3) * kGrad[i];
      var[i] -= update;
      accum_update[i] = 0.9 * accum_update[i] + 0.1 * update * update;
    }
  }
  ExpectNear(got[0], var, 1e-5);
  ExpectNear(got[1], accum, 1e-5);
  ExpectNear(got[2], accum_update, 1e-5);
}

// FTRL-proximal, scalar reference (TensorFlow's formula).
void FtrlReference(double lr, double l1, double l2, double shrinkage,
                   double lr_power, std::vector<double>* var,
                   std::vector<double>* accum, std::vector<double>* linear) {
  for (size_t i = 0; i < var->size(); ++i) {
    const double g = kGrad[i];
    const double shrunk = g + 2 * shrinkage * (*var)[i];
    const double new_accum = (*accum)[i] + g * g;
    const double new_power = std::pow(new_accum, -lr_power);
    const double old_power = std::pow((*accum)[i], -lr_power);
    (*linear)[i] += shrunk - (new_power - old_power) / lr * (*var)[i];
    const double quadratic = new_power / lr + 2 * l2;
    (*var)[i] = std::abs((*linear)[i]) > l1
                    ? (Sign((*linear)[i]) * l1 - (*linear)[i]) / quadratic
                    : 0.0;
    (*accum)[i] = new_accum;
  }
}

TYPED_TEST(TrainingOpsTest, Ftrl) {
  using T = TypeParam;
  for (double lr_power : {-0.5, -0.7}) {
    auto got = RunUpdate<T>(
        "ApplyFtrl", {"var", "accum", "linear"},
        {kVar, {0.1, 0.1, 0.1, 0.1}, {0, 0, 0, 0}},
        {{"lr", 0.3}, {"l1", 0.05}, {"l2", 0.2}, {"lr_power", lr_power}},
        {"var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"});
    std::vector<double> var = kVar, accum(4, 0.1), linear(4, 0.0);
    for (int step = 0; step < 3; ++step) {
      FtrlReference(0.3, 0.05, 0.2, 0.0, lr_power, &var, &accum, &linear);
    }
    ExpectNear(got[0], var, 1e-4);
    ExpectNear(got[1], accum, 1e-5);
    ExpectNear(got[2], linear, 1e-4);
  }
}

TYPED_TEST(TrainingOpsTest, FtrlV2Shrinkage) {
  using T = TypeParam;
  auto got = RunUpdate<T>("ApplyFtrlV2", {"var", "accum", "linear"},
                          {kVar, {0.1, 0.1, 0.1, 0.1}, {0, 0, 0, 0}},
                          {{"lr", 0.3},
                           {"l1", 0.05},
                           {"l2", 0.2},
                           {"l2_shrinkage", 0.4},
                           {"lr_power", -0.5}},
                          {"var", "accum", "linear", "grad", "lr", "l1", "l2",
                           "l2_shrinkage", "lr_power"});
  std::vector<double> var = kVar, accum(4, 0.1), linear(4, 0.0);
  for (int step = 0; step < 3; ++step) {
    FtrlReference(0.3, 0.05, 0.2, 0.4, -0.5, &var, &accum, &linear);
  }
  ExpectNear(got[0], var, 1e-4);
  ExpectNear(got[2], linear, 1e-4);
}

double Proximal(double prox, double rate, double l1, double l2) {
  if (l1 > 0) {
    return Sign(prox) * std::max(std::abs(prox) - rate * l1, 0.0) /
           (1 + rate * l2);
  }
  return prox / (1 + rate * l2);
}

TYPED_TEST(TrainingOpsTest, ProximalGradientDescentAndAdagrad) {
  using T = TypeParam;
  for (double l1 : {0.0, 0.3}) {
    auto pgd = RunUpdate<T>("ApplyProximalGradientDescent", {"var"}, {kVar},
                            {{"alpha", 0.4}, {"l1", l1}, {"l2", 0.2}},
                            {"var", "alpha", "l1", "l2", "grad"});
    auto pa = RunUpdate<T>("ApplyProximalAdagrad", {"var", "accum"},
                           {kVar, {0.1, 0.1, 0.1, 0.1}},
                           {{"lr", 0.4}, {"l1", l1}, {"l2", 0.2}},
                           {"var", "accum", "lr", "l1", "l2", "grad"});
    std::vector<double> var_pgd = kVar, var_pa = kVar, accum(4, 0.1);
    for (int step = 0; step < 3; ++step) {
      for (size_t i = 0; i < kVar.size(); ++i) {
        var_pgd[i] = Proximal(var_pgd[i] - 0.4 * kGrad[i], 0.4, l1, 0.2);
        accum[i] += kGrad[i] * kGrad[i];
        const double rate = 0.4 / std::sqrt(accum[i]);
        var_pa[i] = Proximal(var_pa[i] - rate * kGrad[i], rate, l1, 0.2);
      }
    }
    ExpectNear(pgd[0], var_pgd, 1e-5);
    ExpectNear(pa[0], var_pa, 1e-5);
    ExpectNear(pa[1], accum, 1e-5);
  }
}

TYPED_TEST(TrainingOpsTest, AdagradDA) {
  using T = TypeParam;
  for (double l1 : {0.0, 0.1}) {
    auto got = RunUpdate<T>(
        "ApplyAdagradDA", {"var", "g", "gg"},
        {kVar, {0, 0, 0, 0}, {0.1, 0.1, 0.1, 0.1}},
        {{"lr", 0.5}, {"l1", l1}, {"l2", 0.2}, {"global_step", 3}},
        {"var", "g", "gg", "grad", "lr", "l1", "l2", "global_step"});
    std::vector<double> var = kVar, g(4, 0.0), gg(4, 0.1);
    for (int step = 0; step < 3; ++step) {
      for (size_t i = 0; i < var.size(); ++i) {
        g[i] += kGrad[i];
        gg[i] += kGrad[i] * kGrad[i];
        const double denominator = 0.2 * 3 * 0.5 + std::sqrt(gg[i]);
        var[i] = l1 > 0 ? -Sign(g[i]) * std::max(std::abs(g[i]) - l1 * 3, 0.0) *
                              0.5 / denominator
                        : -g[i] * 0.5 / denominator;
      }
    }
    ExpectNear(got[0], var, 1e-5);
    ExpectNear(got[1], g, 1e-5);
    ExpectNear(got[2], gg, 1e-5);
  }
}

// SparseApply*: only the rows named change, a repeated index is applied
// twice in order, an index out of range is InvalidArgument naming it.
TEST(SparseTrainingOpsTest, RowsInIndexOrderAndRangeCheck) {
  auto g = std::make_shared<Graph>();
  const TensorShape shape({3, 2});
  AddVariable(g.get(), "var", DT_FLOAT, PartialShape(shape));
  AddConst(g.get(), "var/value",
           test::MakeTensor<float>(shape, {1, 2, 3, 4, 5, 6}));
  AddOp(g.get(), "Assign", "var/init", {"var", "var/value"});
  AddConst(g.get(), "rows",
           test::MakeTensor<float>(TensorShape({3, 2}), {1, 1, 2, 2, 4, 4}));
  AddConst(g.get(), "indices", Tensor::Vector<int32_t>({2, 0, 2}));
  AddConst(g.get(), "bad_indices", Tensor::Vector<int64_t>({0, 3, 1}));
  AddScalar<float>(g.get(), "alpha", 0.5f);
  AddScalar<float>(g.get(), "l1", 0.0f);
  AddScalar<float>(g.get(), "l2", 0.0f);
  AddOp(g.get(), "SparseApplyProximalGradientDescent", "apply",
        {"var", "alpha", "l1", "l2", "rows", "indices"});
  AddOp(g.get(), "SparseApplyProximalGradientDescent", "bad",
        {"var", "alpha", "l1", "l2", "rows", "bad_indices"});
  Session sess(g, Opts());
  std::vector<Tensor> out;
  TW_ASSERT_OK(sess.Run({}, {}, {"var/init"}, &out));
  TW_ASSERT_OK(sess.Run({}, {}, {"apply"}, &out));
  // Row 2 gets -0.5 * (1 + 4), row 0 gets -0.5 * 2, row 1 is untouched.
  ExpectNear(Fetch<float>(&sess, "var"), {0, 1, 3, 4, 2.5, 3.5}, 1e-6);
  Status s = sess.Run({}, {}, {"bad"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.ToString().find("Index 3 at offset 1"), std::string::npos) << s;
  // Nothing was written by the failing step.
  ExpectNear(Fetch<float>(&sess, "var"), {0, 1, 3, 4, 2.5, 3.5}, 1e-6);
}

}  // namespace
}  // namespace tensorweave
