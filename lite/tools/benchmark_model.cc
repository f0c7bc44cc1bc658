// benchmark_model: times Invoke() of a .twl model.
//
//   benchmark_model --graph=model.twl [--num_threads=2] [--batch=N]
//                   [--runs=1000] [--warmup=100] [--reference] [--profile]
//
// --batch resizes dim 0 of every input. Inputs are filled with
// deterministic values. Prints mean, median, min and p90 in microseconds.
// With --profile, TWL_PROFILE_ALL=1 in the environment lists every node's
// time too, in plan order (nodes fused into another are left out).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lite/runtime/interpreter.h"

namespace {

bool Flag(const char* arg, const char* name, std::string* value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

// Sums per-node times over the timed runs; prints them by op type (time
// per invoke, share of the total, number of nodes), as LiteRT's
// benchmark_model --enable_op_profiling does, then the slowest nodes. Each
// node's fastest run is kept too: on a busy machine the sum of the minima
// ("min" column) is a steadier measure of the kernels than the means.
class NodeTimes : public twl::Profiler {
 public:
  void OnNodeDone(int node, twl::BuiltinOperator op, double us) override {
    if (node >= static_cast<int>(total_.size())) {
      total_.resize(node + 1, 0.0);
      min_.resize(node + 1, 1e300);
      ops_.resize(node + 1, op);
    }
    total_[node] += us;
    min_[node] = std::min(min_[node], us);
  }
  void Print(int runs) const {
    struct Row {
      const char* name;
      double us = 0, min_us = 0;
      int count = 0;
    };
    std::vector<Row> rows;
    double sum = 0, min_sum = 0;
    int nodes = 0;
    for (size_t i = 0; i < total_.size(); ++i) {
      if (!Ran(i)) continue;  // runs inside another node (a fused ADD)
      ++nodes;
      const char* name = twl::OpName(ops_[i]);
      auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
        return strcmp(r.name, name) == 0;
      });
      if (it == rows.end()) it = rows.insert(rows.end(), Row{name});
      it->us += total_[i] / runs;
      it->min_us += min_[i];
      it->count += 1;
      sum += total_[i] / runs;
      min_sum += min_[i];
    }
    std::sort(rows.begin(), rows.end(),
              [](const Row& a, const Row& b) { return a.us > b.us; });
    printf("op profile (per invoke, summed over nodes of each type):\n");
    printf("  %-20s %6s %12s %8s %8s %12s\n", "op", "count", "time (us)",
           "share", "cumul.", "min (us)");
    double cumulative = 0;
    for (const Row& r : rows) {
      cumulative += r.us;
      printf("  %-20s %6d %12.2f %7.2f%% %7.2f%% %12.2f\n", r.name, r.count,
             r.us, sum > 0 ? 100 * r.us / sum : 0,
             sum > 0 ? 100 * cumulative / sum : 0, r.min_us);
    }
    printf("  %-20s %6d %12.2f %8s %8s %12.2f\n", "total", nodes, sum, "", "",
           min_sum);
    std::vector<size_t> order(total_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return total_[a] > total_[b]; });
    if (getenv("TWL_PROFILE_ALL") != nullptr) {
      for (size_t i = 0; i < total_.size(); ++i) {
        if (!Ran(i)) continue;
        printf("  node %3zu %-18s %10.2f us (min %.2f)\n", i,
               twl::OpName(ops_[i]), total_[i] / runs, min_[i]);
      }
    }
    printf("slowest nodes:\n");
    for (size_t k = 0; k < order.size() && k < 10; ++k) {
      size_t i = order[k];
      if (!Ran(i)) continue;
      printf("  node %3zu %-18s %10.2f us (min %.2f)\n", i,
             twl::OpName(ops_[i]), total_[i] / runs, min_[i]);
    }
  }

 private:
  bool Ran(size_t node) const { return min_[node] < 1e300; }
  std::vector<double> total_, min_;
  std::vector<twl::BuiltinOperator> ops_;
};

int Fail(const char* what, const twl::Status& status) {
  fprintf(stderr, "benchmark_model: %s: %s\n", what, status.message());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string graph, value;
  int threads = 1, batch = 0, runs = 1000, warmup = 100;
  bool reference = false, profile = false;
  for (int i = 1; i < argc; ++i) {
    if (Flag(argv[i], "--graph", &value)) {
      graph = value;
    } else if (Flag(argv[i], "--num_threads", &value)) {
      threads = atoi(value.c_str());
    } else if (Flag(argv[i], "--batch", &value)) {
      batch = atoi(value.c_str());
    } else if (Flag(argv[i], "--runs", &value)) {
      runs = atoi(value.c_str());
    } else if (Flag(argv[i], "--warmup", &value)) {
      warmup = atoi(value.c_str());
    } else if (strcmp(argv[i], "--profile") == 0) {
      profile = true;
    } else if (strcmp(argv[i], "--reference") == 0) {
      reference = true;
    } else {
      fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (graph.empty() || runs < 1) {
    fprintf(stderr,
            "usage: %s --graph=model.twl [--num_threads=N] [--batch=N] "
            "[--runs=N] [--warmup=N] [--reference] [--profile]\n",
            argv[0]);
    return 2;
  }
  std::unique_ptr<twl::Model> model;
  twl::Status status = twl::Model::CreateFromFile(graph.c_str(), &model);
  if (!status.ok()) return Fail("load", status);
  twl::OpResolver resolver;
  status = twl::RegisterBuiltinKernels(&resolver);
  if (!status.ok()) return Fail("resolver", status);
  twl::InterpreterOptions options;
  options.num_threads = threads;
  options.use_reference_kernels = reference;
  std::unique_ptr<twl::Interpreter> interpreter;
  status =
      twl::Interpreter::Create(model.get(), &resolver, options, &interpreter);
  if (!status.ok()) return Fail("create", status);
  for (int i = 0; batch > 0 && i < interpreter->num_inputs(); ++i) {
    twl::Shape shape = interpreter->input(i)->shape;
    if (shape.rank == 0) continue;
    shape.dims[0] = batch;
    status = interpreter->ResizeInputTensor(i, shape);
    if (!status.ok()) return Fail("resize", status);
  }
  status = interpreter->AllocateTensors();
  if (!status.ok()) return Fail("allocate", status);
  for (int i = 0; i < interpreter->num_inputs(); ++i) {
    twl::Tensor* t = interpreter->input(i);
    if (t->type == twl::DataType::kFloat32) {
      for (int64_t k = 0; k < t->num_elements(); ++k) {
        t->data_as<float>()[k] = static_cast<float>(k % 13) / 13.f;
      }
    } else {
      memset(t->data, 0, t->bytes);
    }
  }
  for (int i = 0; i < warmup; ++i) {
    status = interpreter->Invoke();
    if (!status.ok()) return Fail("invoke", status);
  }
  NodeTimes node_times;
  if (profile) interpreter->set_profiler(&node_times);
  std::vector<double> times(runs);
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    status = interpreter->Invoke();
    auto end = std::chrono::steady_clock::now();
    if (!status.ok()) return Fail("invoke", status);
    times[i] = std::chrono::duration<double, std::micro>(end - start).count();
  }
  double sum = 0;
  for (double t : times) sum += t;
  std::sort(times.begin(), times.end());
  printf("graph=%s threads=%d batch=%d runs=%d%s arena=%zu bytes\n",
         graph.c_str(), threads, batch > 0 ? batch : -1, runs,
         reference ? " (reference kernels)" : "", interpreter->arena_size());
  printf("mean %.2f us  median %.2f us  min %.2f us  p90 %.2f us\n", sum / runs,
         times[runs / 2], times[0], times[runs * 9 / 10]);
  if (profile) node_times.Print(runs);
  return 0;
}
