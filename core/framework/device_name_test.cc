// DeviceName against TensorFlow's DeviceNameUtils grammar. The canonical
// strings were checked with tf.DeviceSpec.from_string(s).to_string() where
// TF's Python and C++ parsers agree; where they differ (TF's Python accepts
// "/job:", "/device:GPU:-1"), the C++ grammar (DeviceNameUtils) decides.
#include "core/framework/device_name.h"

#include <gtest/gtest.h>

#include <string>

namespace tensorweave {
namespace {

DeviceName MustParse(const std::string& text) {
  DeviceName name;
  EXPECT_TRUE(DeviceName::Parse(text, &name)) << text;
  return name;
}

std::string Canonical(const std::string& text) {
  return MustParse(text).ToString();
}

TEST(DeviceNameTest, ParsesAFullName) {
  DeviceName name = MustParse("/job:worker/replica:1/task:2/device:GPU:3");
  EXPECT_TRUE(name.has_job);
  EXPECT_EQ(name.job, "worker");
  EXPECT_TRUE(name.has_replica);
  EXPECT_EQ(name.replica, 1);
  EXPECT_TRUE(name.has_task);
  EXPECT_EQ(name.task, 2);
  EXPECT_TRUE(name.has_type);
  EXPECT_EQ(name.type, "GPU");
  EXPECT_TRUE(name.has_id);
  EXPECT_EQ(name.id, 3);
  EXPECT_TRUE(name.IsFullySpecified());
  EXPECT_EQ(name.ToString(), "/job:worker/replica:1/task:2/device:GPU:3");
}

TEST(DeviceNameTest, PartialSpecsSetOnlyTheirFields) {
  DeviceName job = MustParse("/job:ps");
  EXPECT_TRUE(job.has_job);
  EXPECT_FALSE(job.has_replica || job.has_task || job.has_type || job.has_id);
  EXPECT_FALSE(job.IsFullySpecified());

  DeviceName any_cpu = MustParse("/device:CPU:*");
  EXPECT_TRUE(any_cpu.has_type);
  EXPECT_EQ(any_cpu.type, "CPU");
  EXPECT_FALSE(any_cpu.has_id);

  DeviceName type_only =
      MustParse("/device:GPU");  // TF's C++ parser allows no id
  EXPECT_TRUE(type_only.has_type);
  EXPECT_FALSE(type_only.has_id);

  DeviceName empty = MustParse("");
  EXPECT_FALSE(empty.has_job || empty.has_replica || empty.has_task ||
               empty.has_type || empty.has_id);
  EXPECT_EQ(empty.ToString(), "");
  EXPECT_EQ(Canonical("/"), "");

  DeviceName stars = MustParse("/job:*/replica:*/task:*/device:*:*");
  EXPECT_FALSE(stars.has_job || stars.has_replica || stars.has_task ||
               stars.has_type || stars.has_id);
}

TEST(DeviceNameTest, CanonicalFormsMatchTensorFlow) {
  // Pairs checked with tf.DeviceSpec.from_string(s).to_string().
  EXPECT_EQ(Canonical("/job:w/replica:0/task:1/device:GPU:0"),
            "/job:w/replica:0/task:1/device:GPU:0");
  EXPECT_EQ(Canonical("/job:w/task:1/gpu:0"), "/job:w/task:1/device:GPU:0");
  EXPECT_EQ(Canonical("/gpu:0"), "/device:GPU:0");
  EXPECT_EQ(Canonical("/cpu:*"), "/device:CPU:*");
  EXPECT_EQ(Canonical("/device:CPU:*"), "/device:CPU:*");
  EXPECT_EQ(Canonical("CPU:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("gpu:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("/job:ps"), "/job:ps");
  EXPECT_EQ(Canonical("/device:gpu:0"), "/device:GPU:0");
  EXPECT_EQ(Canonical("/GPU:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("/device:*:1"), "/device:*:1");
  // Components in any order come out in canonical order.
  EXPECT_EQ(Canonical("/job:w/device:CPU:0/task:3"),
            "/job:w/task:3/device:CPU:0");
}

TEST(DeviceNameTest, LegacyAndModernFormsAreEqual) {
  EXPECT_EQ(MustParse("/cpu:0"), MustParse("/device:CPU:0"));
  EXPECT_EQ(MustParse("/CPU:0"), MustParse("/device:cpu:0"));
  EXPECT_EQ(MustParse("/gpu:1"), MustParse("GPU:1"));
  EXPECT_NE(MustParse("/gpu:1"), MustParse("/gpu:0"));
  EXPECT_NE(MustParse("/gpu:*"), MustParse("/gpu:0"));
}

TEST(DeviceNameTest, RejectsMalformedNames) {
  for (const char* bad : {"/job:",
                          "/job:A",
                          "/job:1w",
                          "/job:w/",
                          "/task:x",
                          "/task:",
                          "/replica:-1",
                          "/device:GPU:-1",
                          "/device:GPU:x",
                          "/device:",
                          "/device:0",
                          "/foo:1",
                          "garbage",
                          "CPU",
                          "CPU:",
                          ":0",
                          "//cpu:0",
                          "/cpu",
                          "/cpu:",
                          "/job:w//task:0",
                          "/task:99999999999999999999",
                          "cpu:0/job:w",
                          "/tpu:0"}) {
    DeviceName name;
    EXPECT_FALSE(DeviceName::Parse(bad, &name))
        << "'" << bad << "' parsed as " << name.ToString();
  }
}

TEST(DeviceNameTest, ParseResetsTheOutput) {
  DeviceName name = MustParse("/job:w/replica:0/task:0/device:GPU:0");
  ASSERT_TRUE(DeviceName::Parse("/cpu:1", &name));
  EXPECT_EQ(name.ToString(), "/device:CPU:1");
}

TEST(DeviceNameTest, Matches) {
  DeviceName cpu1 = MustParse("/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_TRUE(MustParse("").Matches(cpu1));
  EXPECT_TRUE(MustParse("/cpu:1").Matches(cpu1));
  EXPECT_TRUE(MustParse("/device:CPU:*").Matches(cpu1));
  EXPECT_TRUE(MustParse("/job:localhost").Matches(cpu1));
  EXPECT_TRUE(MustParse("/job:localhost/task:0/cpu:1").Matches(cpu1));
  EXPECT_TRUE(cpu1.Matches(cpu1));
  EXPECT_FALSE(MustParse("/cpu:0").Matches(cpu1));
  EXPECT_FALSE(MustParse("/gpu:1").Matches(cpu1));
  EXPECT_FALSE(MustParse("/job:ps").Matches(cpu1));
  EXPECT_FALSE(MustParse("/task:1").Matches(cpu1));
  // A field set in the spec but not in the device does not match.
  EXPECT_FALSE(MustParse("/job:localhost").Matches(MustParse("/cpu:1")));
}

TEST(DeviceNameTest, MergeFromTakesUnsetFields) {
  DeviceName name = MustParse("/job:w/task:1");
  ASSERT_TRUE(name.MergeFrom(MustParse("/device:GPU:0")).ok());
  EXPECT_EQ(name.ToString(), "/job:w/task:1/device:GPU:0");
  ASSERT_TRUE(name.MergeFrom(MustParse("/job:w/replica:2/gpu:0")).ok());
  EXPECT_EQ(name.ToString(), "/job:w/replica:2/task:1/device:GPU:0");
  // An unset field in `other` leaves this one as it is.
  ASSERT_TRUE(name.MergeFrom(MustParse("")).ok());
  EXPECT_EQ(name.ToString(), "/job:w/replica:2/task:1/device:GPU:0");
  DeviceName any_gpu = MustParse("/gpu:*");
  ASSERT_TRUE(any_gpu.MergeFrom(MustParse("/gpu:3")).ok());
  EXPECT_EQ(any_gpu.ToString(), "/device:GPU:3");
}

TEST(DeviceNameTest, MergeFromConflictsNameBothDevices) {
  struct Case {
    const char* a;
    const char* b;
    const char* message;
  };
  for (const Case& c : {
           Case{"/job:a", "/job:b",
                "Cannot merge devices with incompatible jobs: '/job:a' and "
                "'/job:b'"},
           Case{"/replica:0", "/replica:1",
                "Cannot merge devices with incompatible replicas: '/replica:0' "
                "and '/replica:1'"},
           Case{"/task:0/cpu:0", "/task:1",
                "Cannot merge devices with incompatible tasks: "
                "'/task:0/device:CPU:0' and '/task:1'"},
           Case{"/cpu:0", "/gpu:0",
                "Cannot merge devices with incompatible types: '/device:CPU:0' "
                "and '/device:GPU:0'"},
           Case{"/cpu:0", "/device:CPU:1",
                "Cannot merge devices with incompatible ids: '/device:CPU:0' "
                "and '/device:CPU:1'"},
       }) {
    DeviceName name = MustParse(c.a);
    Status status = name.MergeFrom(MustParse(c.b));
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << c.a << " + " << c.b;
    EXPECT_EQ(status.message(), c.message);
    // Soft placement relaxes only device type/id conflicts.
    DeviceName soft = MustParse(c.a);
    Status soft_status =
        soft.MergeFrom(MustParse(c.b), /*allow_soft_placement=*/true);
    bool type_or_id =
        std::string(c.message).find("types") != std::string::npos ||
        std::string(c.message).find("ids") != std::string::npos;
    EXPECT_EQ(soft_status.ok(), type_or_id) << c.a << " + " << c.b;
  }
}

// TF's MergeDevNames under soft placement: a conflicting type drops the type
// and id, a conflicting id drops the id; the other fields still merge.
TEST(DeviceNameTest, SoftPlacementDropsAConflictingTypeOrId) {
  DeviceName name = MustParse("/job:w/gpu:0");
  ASSERT_TRUE(
      name.MergeFrom(MustParse("/task:2/cpu:1"), /*allow_soft_placement=*/true)
          .ok());
  EXPECT_EQ(name.ToString(), "/job:w/task:2");
  DeviceName id_conflict = MustParse("/cpu:0");
  ASSERT_TRUE(
      id_conflict.MergeFrom(MustParse("/cpu:1"), /*allow_soft_placement=*/true)
          .ok());
  EXPECT_EQ(id_conflict.ToString(), "/device:CPU:*");
  // A later member may set them again.
  ASSERT_TRUE(id_conflict.MergeFrom(MustParse("/cpu:2"), true).ok());
  EXPECT_EQ(id_conflict.ToString(), "/device:CPU:2");
}

}  // namespace
}  // namespace tensorweave
