#include "core/runtime/device.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace tensorweave {
namespace {

constexpr char kLocal[] = "/job:localhost/replica:0/task:0";

// Test only: a device type of higher priority than CPU (as GPU's 210 is),
// of which "the machine has" two.
class FakeAcceleratorFactory : public DeviceFactory {
 public:
  Status CreateDevices(int count, const std::string& name_prefix,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    int available = 2;
    int n = count < 0 ? available : std::min(count, available);
    for (int i = 0; i < n; ++i) {
      DeviceAttributes attributes;
      attributes.name = name_prefix + "/device:FAKEACCEL:" + std::to_string(i);
      attributes.device_type = "FAKEACCEL";
      attributes.memory_limit = 1 << 20;
      attributes.physical_device_desc = "fake accelerator " + std::to_string(i);
      devices->push_back(std::make_unique<Device>(std::move(attributes)));
    }
    return Status::OK();
  }
};

const bool kFakeRegistered = [] {
  DeviceFactory::Register("FAKEACCEL",
                          std::make_unique<FakeAcceleratorFactory>(), 200);
  return true;
}();

std::vector<std::string> Names(const std::vector<Device*>& devices) {
  std::vector<std::string> names;
  for (const Device* device : devices) names.push_back(device->name());
  return names;
}

std::unique_ptr<DeviceSet> Local(const std::map<std::string, int>& count) {
  std::unique_ptr<DeviceSet> set;
  Status status = DeviceSet::CreateLocal(count, "localhost", 0, 0, &set);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return set;
}

DeviceName Spec(const std::string& text) {
  DeviceName name;
  EXPECT_TRUE(DeviceName::Parse(text, &name)) << text;
  return name;
}

TEST(DeviceFactoryTest, CpuIsBuiltInAndTypesComeByPriority) {
  ASSERT_NE(DeviceFactory::Get("CPU"), nullptr);
  EXPECT_EQ(DeviceFactory::Priority("CPU"), 70);
  EXPECT_EQ(DeviceFactory::Priority("FAKEACCEL"), 200);
  EXPECT_EQ(DeviceFactory::Get("NOSUCHTYPE"), nullptr);
  EXPECT_EQ(DeviceFactory::Priority("NOSUCHTYPE"), -1);
  std::vector<std::string> types = DeviceFactory::Types();
  std::vector<std::string> expected = {"FAKEACCEL", "CPU"};
  EXPECT_EQ(types, expected);
}

TEST(DeviceFactoryTest, ALowerPriorityRegistrationDoesNotReplace) {
  DeviceFactory* before = DeviceFactory::Get("CPU");
  DeviceFactory::Register("CPU", std::make_unique<FakeAcceleratorFactory>(),
                          10);
  EXPECT_EQ(DeviceFactory::Get("CPU"), before);
  EXPECT_EQ(DeviceFactory::Priority("CPU"), 70);
}

TEST(DeviceSetTest, OneCpuByDefault) {
  auto set = Local({{"FAKEACCEL", 0}});
  ASSERT_EQ(set->devices().size(), 1u);
  const Device* cpu = set->devices()[0];
  EXPECT_EQ(cpu->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(cpu->device_type(), "CPU");
  EXPECT_EQ(cpu->attributes().memory_limit,
            268435456);  // what TF reports for its CPU
  EXPECT_EQ(cpu->attributes().physical_device_desc, "");
  EXPECT_NE(cpu->attributes().incarnation, 0u);
  EXPECT_TRUE(cpu->parsed_name().IsFullySpecified());
  EXPECT_EQ(cpu->parsed_name().ToString(), cpu->name());
  EXPECT_EQ(set->client_device(), cpu);
}

TEST(DeviceSetTest, CpuCountZeroIsOne) {
  auto set = Local({{"CPU", 0}, {"FAKEACCEL", 0}});
  EXPECT_EQ(Names(set->devices()),
            std::vector<std::string>{std::string(kLocal) + "/device:CPU:0"});
}

TEST(DeviceSetTest, FourCpusInNameOrderWithDistinctIncarnations) {
  auto set = Local({{"CPU", 4}, {"FAKEACCEL", 0}});
  std::vector<std::string> expected;
  for (int i = 0; i < 4; ++i)
    expected.push_back(std::string(kLocal) +
                       "/device:CPU:" + std::to_string(i));
  EXPECT_EQ(Names(set->devices()), expected);
  std::set<uint64_t> incarnations;
  for (const Device* device : set->devices())
    incarnations.insert(device->attributes().incarnation);
  EXPECT_EQ(incarnations.size(), 4u);
  EXPECT_EQ(set->client_device()->name(), expected[0]);
}

TEST(DeviceSetTest, HigherPriorityTypesComeFirst) {
  auto set = Local({{"CPU", 2}});  // FAKEACCEL: the factory's default, 2
  std::vector<std::string> expected = {
      std::string(kLocal) + "/device:FAKEACCEL:0",
      std::string(kLocal) + "/device:FAKEACCEL:1",
      std::string(kLocal) + "/device:CPU:0",
      std::string(kLocal) + "/device:CPU:1"};
  EXPECT_EQ(Names(set->devices()), expected);
  // The client device is the first CPU, not the first device.
  EXPECT_EQ(set->client_device()->name(), expected[2]);
  // A count above what the machine has is a maximum for non-CPU types.
  EXPECT_EQ(Local({{"FAKEACCEL", 5}})
                ->FindMatching(Spec("/device:FAKEACCEL:*"))
                .size(),
            2u);
  EXPECT_EQ(Local({{"FAKEACCEL", 1}})
                ->FindMatching(Spec("/device:FAKEACCEL:*"))
                .size(),
            1u);
}

TEST(DeviceSetTest, NamesCarryJobReplicaTask) {
  std::unique_ptr<DeviceSet> set;
  ASSERT_TRUE(
      DeviceSet::CreateLocal({{"FAKEACCEL", 0}}, "worker", 1, 3, &set).ok());
  EXPECT_EQ(
      Names(set->devices()),
      std::vector<std::string>{"/job:worker/replica:1/task:3/device:CPU:0"});
  for (const char* job : {"", "Worker", "1w", "a/b"}) {
    Status status = DeviceSet::CreateLocal({}, job, 0, 0, &set);
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << job;
  }
  EXPECT_EQ(DeviceSet::CreateLocal({}, "w", -1, 0, &set).code(),
            Code::kInvalidArgument);
}

TEST(DeviceSetTest, AddDeviceKeepsPriorityThenIdOrder) {
  DeviceSet set;
  for (const char* name : {"/job:localhost/replica:0/task:0/device:CPU:10",
                           "/job:localhost/replica:0/task:0/device:CPU:2",
                           "/job:localhost/replica:0/task:0/device:FAKEACCEL:1",
                           "/job:localhost/replica:0/task:0/device:CPU:0"}) {
    DeviceAttributes attributes;
    attributes.name = name;
    attributes.device_type = Spec(name).type;
    set.AddDevice(std::make_unique<Device>(attributes));
  }
  // Ids compare as numbers (CPU:2 before CPU:10).
  std::vector<std::string> expected = {
      "/job:localhost/replica:0/task:0/device:FAKEACCEL:1",
      "/job:localhost/replica:0/task:0/device:CPU:0",
      "/job:localhost/replica:0/task:0/device:CPU:2",
      "/job:localhost/replica:0/task:0/device:CPU:10"};
  EXPECT_EQ(Names(set.devices()), expected);
}

TEST(DeviceSetTest, FindByNameAndMatching) {
  auto set = Local({{"CPU", 4}});
  const std::string cpu2 = std::string(kLocal) + "/device:CPU:2";
  ASSERT_NE(set->FindByName(cpu2), nullptr);
  EXPECT_EQ(set->FindByName(cpu2)->name(), cpu2);
  EXPECT_EQ(set->FindByName(std::string(kLocal) + "/cpu:2"),
            set->FindByName(cpu2));
  EXPECT_EQ(set->FindByName(std::string(kLocal) + "/device:CPU:4"), nullptr);
  EXPECT_EQ(set->FindByName("/device:CPU:2"), nullptr);  // not a full name

  EXPECT_EQ(Names(set->FindMatching(Spec("/cpu:2"))),
            std::vector<std::string>{cpu2});
  EXPECT_EQ(Names(set->FindMatching(Spec("/device:CPU:*"))).size(), 4u);
  EXPECT_EQ(Names(set->FindMatching(Spec("/device:CPU:*")))[0],
            std::string(kLocal) + "/device:CPU:0");
  EXPECT_EQ(set->FindMatching(Spec("")).size(), 6u);
  EXPECT_EQ(set->FindMatching(Spec("/job:localhost/task:0")).size(), 6u);
  EXPECT_EQ(
      Names(set->FindMatching(Spec("/job:localhost/device:FAKEACCEL:1"))),
      std::vector<std::string>{std::string(kLocal) + "/device:FAKEACCEL:1"});
  EXPECT_TRUE(set->FindMatching(Spec("/job:ps")).empty());
  EXPECT_TRUE(set->FindMatching(Spec("/task:1")).empty());
  EXPECT_TRUE(set->FindMatching(Spec("/gpu:0")).empty());
  EXPECT_TRUE(set->FindMatching(Spec("/cpu:4")).empty());
}

}  // namespace
}  // namespace tensorweave
