// The kernel fuzzer: small random graphs around every op of the registry,
// run through the real graph import, session, executor and kernels, for a
// bounded time. Built and run under ASan + UBSan in CI:
//
//   core/fuzz/run_kernel_fuzzer.sh [SECONDS]
//   kernel_fuzzer --seconds=60 [--seed=N] [--only=Op]
//   kernel_fuzzer --replay core/fuzz/regressions/x.pbtxt   (in-process)
//
// First the regression cases (core/fuzz/regressions/*.pbtxt) replay, then
// op after op of the registry gets a fresh random case. Cases run in a child
// process that a supervisor restarts after a crash or a hang, so one run
// finds more than one crash; each crashing case is written to --crash_dir
// in the regression format. At the end it prints the exec count and the
// ops' coverage, and fails on a crash, a hang, or an op it never built
// (an op it cannot drive belongs in core/fuzz/undriven_ops.txt with a
// reason; one whose crash awaits a fix, in core/fuzz/pending_crashes.txt).
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/tensor_size.h"
#include "core/fuzz/case_generator.h"
#include "core/fuzz/case_runner.h"

#if defined(__SANITIZE_ADDRESS__)
// Huge allocations fail as the product sees them (bad_alloc, or null from
// malloc) instead of ASan aborting, and a leak report does not count.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=2048:"
         "detect_leaks=0:abort_on_error=1";
}
#endif

namespace tensorweave {
namespace fuzz {
namespace {

constexpr int kMaxOps = 1024;

void LimitMemory();

struct Options {
  double seconds = 60;
  uint64_t seed = 0;
  bool seed_given = false;
  double case_timeout = 20;
  std::string only;
  bool verbose = false;  // print each case's result
  std::string lists_dir = "core/fuzz";
  std::string regressions_dir = "core/fuzz/regressions";
  std::string crash_dir = "/tmp/tw-kernel-fuzz/crashes";
  std::vector<std::string> replay;
};

// Counts per op, in memory shared between the supervisor and the child.
struct OpStats {
  int64_t cases, built, ok, run_errors, unnamed_errors, inconsistent;
  bool printed_inconsistency, printed_unnamed;
};
struct Shared {
  std::atomic<int64_t> item;        // the work item now running
  std::atomic<int64_t> started_ms;  // when it started
  std::atomic<int64_t> item_op;     // the op of a random item (its index)
  int64_t regressions_run;
  OpStats ops[kMaxOps];
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr int kCoverageSeconds = 300;

uint64_t MixSeed(uint64_t seed, uint64_t item) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (item + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// "Op  reason" lines; '#' starts a comment.
std::map<std::string, std::string> ReadOpList(const std::string& path) {
  std::map<std::string, std::string> ops;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string op, reason;
    if (!(fields >> op)) continue;
    std::getline(fields, reason);
    ops[op] = reason.empty() ? "(no reason given)" : reason;
  }
  return ops;
}

std::vector<std::string> ListCaseFiles(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      std::string name = entry->d_name;
      if (name.size() > 6 && name.substr(name.size() - 6) == ".pbtxt") {
        files.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Fuzzer {
 public:
  Fuzzer(Options options, std::vector<std::string> ops,
         std::vector<std::string> regressions)
      : options_(std::move(options)),
        ops_(std::move(ops)),
        regressions_(std::move(regressions)) {
    void* memory = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shared_ = new (memory) Shared();
    for (size_t i = 0; i < ops_.size(); ++i) index_[ops_[i]] = i;
  }

  // Runs work items in children until the deadline; returns the crashes.
  std::vector<std::string> Run() {
    const int64_t deadline =
        NowMs() + static_cast<int64_t>(options_.seconds * 1000);
    int64_t next = 0;
    std::vector<std::string> crashes;
    while (NowMs() < deadline) {
      shared_->item = next;
      shared_->started_ms = NowMs();
      std::fflush(stdout);
      std::fflush(stderr);
      pid_t child = fork();
      if (child == 0) ChildLoop(next, deadline);  // never returns
      int status = 0;
      bool hung = false;
      while (waitpid(child, &status, WNOHANG) == 0) {
        usleep(20000);
        if (NowMs() - shared_->started_ms > options_.case_timeout * 1000) {
          kill(child, SIGKILL);
          waitpid(child, &status, 0);
          hung = true;
          break;
        }
      }
      if (!hung && WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
      int64_t item = shared_->item;
      std::string what =
          hung ? "hang (over " + std::to_string(options_.case_timeout) + " s)"
          : WIFSIGNALED(status)
              ? std::string("signal ") + strsignal(WTERMSIG(status))
              : "exit status " + std::to_string(WEXITSTATUS(status));
      crashes.push_back(RecordCrash(item, what));
      next = item + 1;
    }
    return crashes;
  }

  // The coverage report; false when a driven op was never built.
  bool Report(int64_t elapsed_ms,
              const std::map<std::string, std::string>& undriven,
              const std::map<std::string, std::string>& pending) {
    int64_t execs = shared_->regressions_run, built = 0, ran_ok = 0;
    std::vector<std::string> only_errored, never_built;
    int64_t unnamed = 0, inconsistent = 0;
    for (size_t i = 0; i < ops_.size(); ++i) {
      const OpStats& s = shared_->ops[i];
      execs += s.cases;
      unnamed += s.unnamed_errors;
      inconsistent += s.inconsistent;
      if (s.built > 0) ++built;
      if (s.ok > 0) {
        ++ran_ok;
      } else if (s.built > 0) {
        only_errored.push_back(ops_[i]);
      } else {
        never_built.push_back(ops_[i]);
      }
    }
    auto join = [](const std::vector<std::string>& names) {
      std::string out;
      for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
      return out.empty() ? "-" : out;
    };
    std::printf(
        "kernel_fuzzer: %lld execs in %.1f s (%.0f/s), %lld regression "
        "cases replayed, seed %llu\n",
        static_cast<long long>(execs), elapsed_ms / 1000.0,
        execs * 1000.0 / std::max<int64_t>(elapsed_ms, 1),
        static_cast<long long>(shared_->regressions_run),
        static_cast<unsigned long long>(options_.seed));
    std::printf(
        "ops: %zu fuzzed, %zu undriven (listed), %zu pending a fix "
        "(skipped)\n",
        ops_.size(), undriven.size(), pending.size());
    std::printf(
        "reached (built in a graph and run): %lld/%zu; ran a kernel "
        "successfully: %lld/%zu\n",
        static_cast<long long>(built), ops_.size(),
        static_cast<long long>(ran_ok), ops_.size());
    std::printf("only errored: %s\n", join(only_errored).c_str());
    std::printf("never built: %s\n", join(never_built).c_str());
    std::printf(
        "run errors not naming the node: %lld; kernel outputs "
        "disagreeing with the shape function: %lld\n",
        static_cast<long long>(unnamed), static_cast<long long>(inconsistent));
    for (const auto& [op, reason] : pending) {
      std::printf("pending (skipped): %s: %s\n", op.c_str(), reason.c_str());
    }
    // A short run (CI's) may miss the rarest valid graphs (5-D pooling, the
    // widest SparseApply ops) by luck alone: only a run of at least
    // kCoverageSeconds fails for an op it never built.
    if (!never_built.empty() && options_.seconds < kCoverageSeconds) {
      std::printf(
          "(ops never built fail only a run of %d s or more: "
          "run_kernel_fuzzer.sh %d)\n",
          kCoverageSeconds, kCoverageSeconds);
    }
    return never_built.empty() || !options_.only.empty() ||
           options_.seconds < kCoverageSeconds;
  }

 private:
  int64_t num_regressions() const {
    return static_cast<int64_t>(regressions_.size());
  }

  // The op of random item i: the even items go round the registry, the odd
  // ones to the ops tried but never built yet (the least tried of them), so
  // that the ops whose valid graphs are rare get the cases they need to be
  // reached (and a run does not fail for want of luck); once every op has
  // been built, round the registry again.
  size_t PickOp(int64_t random_item) const {
    const size_t n = ops_.size();
    size_t op = static_cast<size_t>((random_item / 2) % n);
    if (random_item % 2 == 0) return op;
    int64_t fewest = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < n; ++i) {
      const OpStats& s = shared_->ops[i];
      if (s.built == 0 && s.cases > 0 && s.cases < fewest) {
        fewest = s.cases;
        op = i;
      }
    }
    return op;
  }

  // Item i: regression case i, then random cases (the op of a random item
  // comes from PickOp in the child, through shared_->item_op).
  FuzzCase MakeCase(int64_t item, size_t* op_index) const {
    FuzzCase c;
    if (item < num_regressions()) {
      Status s = ReadCase(regressions_[item], &c);
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        std::exit(2);
      }
      auto found = index_.find(c.op());
      *op_index = found == index_.end() ? kMaxOps : found->second;
      return c;
    }
    int64_t random_item = item - num_regressions();
    *op_index = static_cast<size_t>(shared_->item_op.load());
    const OpDef* op = OpRegistry::Global()->Find(ops_[*op_index]);
    return GenerateCase(*op, MixSeed(options_.seed, random_item));
  }

  [[noreturn]] void ChildLoop(int64_t item, int64_t deadline) {
    LimitMemory();
    // Line by line: what a child printed must not die with it in a crash.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    for (;; ++item) {
      // Regressions always replay in full; the deadline bounds the rest.
      if (item >= num_regressions() && NowMs() >= deadline) break;
      if (item >= num_regressions()) {
        shared_->item_op = PickOp(item - num_regressions());
      }
      shared_->item = item;
      shared_->started_ms = NowMs();
      size_t op_index = 0;
      FuzzCase c = MakeCase(item, &op_index);
      CaseResult result = RunCase(c);
      if (options_.verbose) {
        std::printf("%s seed %llu: %s\n", c.op().c_str(),
                    static_cast<unsigned long long>(c.seed()),
                    result.status.ToString().substr(0, 300).c_str());
      }
      if (item < num_regressions()) {
        ++shared_->regressions_run;
        continue;
      }
      OpStats& s = shared_->ops[op_index];
      ++s.cases;
      if (result.kind != CaseResult::kGraphError) ++s.built;
      if (result.kind == CaseResult::kOk) ++s.ok;
      if (result.kind == CaseResult::kRunError) ++s.run_errors;
      if (result.error_names_no_node) {
        ++s.unnamed_errors;
        if (!s.printed_unnamed) {
          s.printed_unnamed = true;
          std::printf("  error naming no node (%s, seed %llu): %s\n",
                      c.op().c_str(), static_cast<unsigned long long>(c.seed()),
                      result.status.ToString().substr(0, 200).c_str());
        }
      }
      if (!result.inconsistency.empty()) {
        ++s.inconsistent;
        if (!s.printed_inconsistency) {
          s.printed_inconsistency = true;
          std::printf("  shape function vs kernel (%s, seed %llu): %s\n",
                      c.op().c_str(), static_cast<unsigned long long>(c.seed()),
                      result.inconsistency.c_str());
        }
      }
    }
    std::fflush(stdout);
    _exit(0);  // no static destructors, no leak report
  }

  std::string RecordCrash(int64_t item, const std::string& what) {
    std::fflush(stdout);
    if (item < num_regressions()) {
      std::printf("CRASH (%s) replaying %s\n", what.c_str(),
                  regressions_[item].c_str());
      return regressions_[item] + ": " + what;
    }
    size_t op_index = 0;
    FuzzCase c = MakeCase(item, &op_index);
    c.set_note("crash: " + what);
    std::string dir = options_.crash_dir;
    std::string cmd = "mkdir -p '" + dir + "'";
    if (std::system(cmd.c_str()) != 0) dir = ".";
    std::string path =
        dir + "/" + c.op() + "-" + std::to_string(c.seed()) + ".pbtxt";
    WriteCase(path, c).ok();
    std::printf("CRASH (%s) in op %s, seed %llu: case written to %s\n",
                what.c_str(), c.op().c_str(),
                static_cast<unsigned long long>(c.seed()), path.c_str());
    return c.op() + " (" + what + "): " + path;
  }

  Options options_;
  std::vector<std::string> ops_;
  std::vector<std::string> regressions_;
  std::map<std::string, size_t> index_;
  Shared* shared_ = nullptr;
};

// Without ASan, caps the address space so that a huge allocation fails
// instead of swapping the machine (ASan needs its shadow mapping; it caps
// single allocations through __asan_default_options instead).
void LimitMemory() {
#if !defined(__SANITIZE_ADDRESS__)
  rlimit limit{size_t{8} << 30, size_t{8} << 30};
  setrlimit(RLIMIT_AS, &limit);
#endif
}

bool ParseFlag(const std::string& arg, const std::string& name,
               std::string* value) {
  std::string prefix = "--" + name + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

int Replay(const std::vector<std::string>& paths) {
  LimitMemory();
  for (const std::string& path : paths) {
    FuzzCase c;
    Status s = ReadCase(path, &c);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 2;
    }
    std::printf("%s (%s): ", path.c_str(), c.op().c_str());
    std::fflush(stdout);
    CaseResult result = RunCase(c);
    std::printf("%s\n", result.kind == CaseResult::kOk
                            ? "ok"
                            : result.status.ToString().c_str());
  }
  return 0;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (ParseFlag(arg, "seconds", &value)) {
      options.seconds = std::stod(value);
    } else if (ParseFlag(arg, "seed", &value)) {
      options.seed = std::stoull(value);
      options.seed_given = true;
    } else if (ParseFlag(arg, "case_timeout", &value)) {
      options.case_timeout = std::stod(value);
    } else if (ParseFlag(arg, "only", &value)) {
      options.only = value;
    } else if (ParseFlag(arg, "lists_dir", &value)) {
      options.lists_dir = value;
    } else if (ParseFlag(arg, "regressions", &value)) {
      options.regressions_dir = value;
    } else if (ParseFlag(arg, "crash_dir", &value)) {
      options.crash_dir = value;
    } else if (arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "--replay") {
      options.replay.assign(argv + i + 1, argv + argc);
      break;
    } else {
      std::fprintf(stderr, "unknown flag %s\n", arg.c_str());
      return 2;
    }
  }
  // Tensors past 64 MB are refused (ResourceExhausted naming the node, the
  // path hostile sizes must take): filling gigabytes under ASan would
  // otherwise take longer than a case may (a false hang) and find nothing
  // a smaller limit does not.
  SetMaxTensorBytes(int64_t{64} << 20);
  // Checkpoint ops write files: keep them in a scratch directory.
  char scratch[] = "/tmp/tw-kernel-fuzz-XXXXXX";
  std::string cwd(4096, '\0');
  if (getcwd(cwd.data(), cwd.size()) == nullptr) return 2;
  cwd.resize(std::strlen(cwd.c_str()));
  auto absolute = [&](std::string& path) {
    if (!path.empty() && path[0] != '/') path = cwd + "/" + path;
  };
  absolute(options.lists_dir);
  absolute(options.regressions_dir);
  absolute(options.crash_dir);
  for (std::string& path : options.replay) absolute(path);
  if (mkdtemp(scratch) == nullptr || chdir(scratch) != 0) return 2;
  if (!options.replay.empty()) return Replay(options.replay);
  if (!options.seed_given) {
    options.seed = static_cast<uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count());
  }

  auto undriven = ReadOpList(options.lists_dir + "/undriven_ops.txt");
  auto pending = ReadOpList(options.lists_dir + "/pending_crashes.txt");
  std::vector<std::string> registry = OpRegistry::Global()->ListOps();
  bool lists_ok = true;
  for (const auto* list : {&undriven, &pending}) {
    for (const auto& [op, reason] : *list) {
      if (OpRegistry::Global()->Find(op) == nullptr) {
        std::printf("listed op %s is not in the registry: remove it\n",
                    op.c_str());
        lists_ok = false;
      }
    }
  }
  std::vector<std::string> ops;
  for (const std::string& op : registry) {
    if (undriven.count(op) || pending.count(op)) continue;
    if (!options.only.empty() && op != options.only) continue;
    ops.push_back(op);
  }
  if (ops.empty() || ops.size() > kMaxOps) {
    std::printf("no ops to fuzz\n");
    return 2;
  }
  std::vector<std::string> regressions;
  for (const std::string& path : ListCaseFiles(options.regressions_dir)) {
    FuzzCase c;
    if (!ReadCase(path, &c).ok()) {
      std::printf("unreadable regression case %s\n", path.c_str());
      lists_ok = false;
    } else if (pending.count(c.op()) == 0 &&
               (options.only.empty() || c.op() == options.only)) {
      regressions.push_back(path);
    }
  }
  std::printf(
      "kernel_fuzzer: %zu ops in the registry, %zu fuzzed, %zu "
      "regression cases, %.0f s, seed %llu\n",
      registry.size(), ops.size(), regressions.size(), options.seconds,
      static_cast<unsigned long long>(options.seed));
  for (const auto& [op, reason] : undriven) {
    std::printf("undriven: %s: %s\n", op.c_str(), reason.c_str());
  }
  std::fflush(stdout);
  const int64_t start = NowMs();
  Fuzzer fuzzer(options, ops, regressions);
  std::vector<std::string> crashes = fuzzer.Run();
  bool coverage_ok = fuzzer.Report(NowMs() - start, undriven, pending);
  for (const std::string& crash : crashes) {
    std::printf("crash: %s\n", crash.c_str());
  }
  std::printf("%zu crashes\n", crashes.size());
  std::string rm = std::string("rm -rf '") + scratch + "'";
  if (std::system(rm.c_str()) != 0) std::printf("cannot remove %s\n", scratch);
  return crashes.empty() && coverage_ok && lists_ok ? 0 : 1;
}

}  // namespace
}  // namespace fuzz
}  // namespace tensorweave

int main(int argc, char** argv) { return tensorweave::fuzz::Main(argc, argv); }
