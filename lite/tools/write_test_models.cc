// write_test_models: writes the reference models used by the benchmark.
//
//   write_test_models OUT_DIR   -> OUT_DIR/mlp.twl, OUT_DIR/lenet.twl
//
// mlp.twl: 784-512-512-10 (FullyConnected+relu x2, FullyConnected,
// Softmax). lenet.twl: LeNet-5 on 28x28x1. Batch 1, dynamic batch dim.
#include <cstdio>
#include <string>

#include "lite/runtime/testing/test_models.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  bool ok =
      twl::testing::BuildMlp({784, 512, 512, 10}, 1, 1)
          .WriteFile(dir + "/mlp.twl") &&
      twl::testing::BuildLeNet(1, 1).WriteFile(dir + "/lenet.twl") &&
      twl::testing::BuildRecurrentModel().WriteFile(dir + "/recurrent.twl") &&
      twl::testing::BuildDetectorTailModel().WriteFile(dir +
                                                       "/detector_tail.twl");
  if (!ok) {
    fprintf(stderr, "cannot write to %s\n", dir.c_str());
    return 1;
  }
  printf(
      "wrote %s/mlp.twl, %s/lenet.twl, %s/recurrent.twl and "
      "%s/detector_tail.twl\n",
      dir.c_str(), dir.c_str(), dir.c_str(), dir.c_str());
  return 0;
}
