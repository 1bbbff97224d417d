// End-to-end tests of the schedk binary: the seeds' numbers through the CLI on
// the bundled datasets, their expected outputs, exit codes, and byte-identical
// output with 1 and N threads.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliRun Schedk(const std::string& args, const std::string& stdin_text = "") {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "schedk_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  std::string command = testing::SchedkBinary() + " " + args + " > " + base + ".out 2> " + base + ".err";
  if (!stdin_text.empty()) {
    std::ofstream(base + ".in") << stdin_text;
    command += " < " + base + ".in";
  }
  const int status = std::system(command.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(base + ".out");
  r.err = ReadFile(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  std::remove((base + ".in").c_str());
  return r;
}

std::string Dataset(const std::string& name) { return testing::SourceDir() + "/datasets/" + name; }

// The numeric field `key` of the JSON Lines row of job `job`.
double Field(const std::string& jsonl, unsigned job, const std::string& key) {
  std::istringstream lines(jsonl);
  std::string line;
  const std::string id = "{\"job\":" + std::to_string(job) + ",";
  while (std::getline(lines, line)) {
    if (line.rfind(id, 0) != 0) continue;
    const std::size_t at = line.find("\"" + key + "\":");
    if (at == std::string::npos) break;
    return std::strtod(line.c_str() + at + key.size() + 3, nullptr);
  }
  ADD_FAILURE() << "no " << key << " for job " << job;
  return -1;
}

TEST(CliTest, BlogFunctionalExample) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("blog-functional.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(Field(r.out, 101, "ftckt"), 250000);
  EXPECT_DOUBLE_EQ(Field(r.out, 102, "ftckt"), 250000);
  EXPECT_DOUBLE_EQ(Field(r.out, 103, "ftckt"), 500000);
  EXPECT_NEAR(Field(r.out, 104, "ftckt"), 41666.67, 0.005);
  EXPECT_NEAR(Field(r.out, 105, "ftckt"), 27777.78, 0.005);
  EXPECT_NEAR(Field(r.out, 106, "ftckt"), 20833.33, 0.005);
  EXPECT_NEAR(Field(r.out, 107, "ftckt"), 83333.33, 0.005);
  EXPECT_NEAR(Field(r.out, 108, "ftckt"), 41666.67, 0.005);
  EXPECT_NEAR(Field(r.out, 107, "ntckts"), 83333.33 / 500000, 1e-8);
}

TEST(CliTest, AllPoliciesOff) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("blog-all-off.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (unsigned job : {66622u, 66722u, 67652u, 63285u}) EXPECT_NEAR(Field(r.out, job, "prio"), 0.555, 1e-12);
}

TEST(CliTest, PosixPriorityTable) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("blog-posix.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int k = 0; k < 32; ++k) {
    const unsigned job = 63300 + static_cast<unsigned>(k);
    const int ppri = 1024 - 64 * k;
    EXPECT_DOUBLE_EQ(Field(r.out, job, "ppri"), ppri);
    EXPECT_DOUBLE_EQ(Field(r.out, job, "nurg"), 1.0);
    EXPECT_DOUBLE_EQ(Field(r.out, job, "npprior"), (ppri + 1024) / 2048.0);
    EXPECT_NEAR(Field(r.out, job, "prio"), (ppri + 1024) / 2048.0 + 0.105, 1e-12);
  }
  EXPECT_NE(r.out.find("\"prio\":1.105"), std::string::npos);
}

TEST(CliTest, ReservationExampleUnderGridEngine62Rules) {
  const CliRun r = Schedk("priorities " + Dataset("reservation-2004.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Dispatch order and qstat's %7.5f display: 0.62883, 0.60500, 0.50500.
  const std::size_t a = r.out.find("    3127      1 0.62883");
  const std::size_t b = r.out.find("    3128      1 0.60500");
  const std::size_t c = r.out.find("    3129      1 0.50500");
  ASSERT_NE(a, std::string::npos) << r.out;
  ASSERT_NE(b, std::string::npos) << r.out;
  ASSERT_NE(c, std::string::npos) << r.out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

TEST(CliTest, SiteUrgencyPolicy) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("site-urgency.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto position = [&](unsigned job) { return r.out.find("{\"job\":" + std::to_string(job) + ","); };
  EXPECT_LT(position(34), position(1));  // 34 h beats a fresh t-queue job ...
  EXPECT_LT(position(1), position(33));  // ... 33 h does not
  EXPECT_LT(position(74), position(2));  // 74 h beats a fresh u-queue job ...
  EXPECT_LT(position(2), position(73));  // ... 73 h does not
}

TEST(CliTest, ExpectedOutputs) {
  for (const char* name : {"blog-all-off", "blog-posix", "blog-functional", "reservation-2004", "site-urgency",
                           "policies-mix"}) {
    const CliRun r = Schedk("priorities " + Dataset(std::string(name) + ".snap"));
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, ReadFile(Dataset(std::string(name) + ".expected"))) << name;
  }
}

TEST(CliTest, OneAndManyThreadsGiveIdenticalBytes) {
  for (const char* format : {"table", "jsonl"}) {
    const std::string args = std::string("priorities --format ") + format + " " + Dataset("policies-mix.snap");
    const CliRun one = Schedk(args + " --threads 1");
    const CliRun many = Schedk(args + " --threads 8");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(one.out, many.out);
  }
}

TEST(CliTest, StandardInput) {
  const CliRun r = Schedk("priorities -", ReadFile(Dataset("blog-functional.snap")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Dataset("blog-functional.expected")));
}

TEST(CliTest, BadInputExitsWithTwoAndPrintsNothing) {
  const CliRun r = Schedk("priorities -", "schedk-snapshot 1\nnow 5\njob 1 owner=u l_hard=nosuch=1\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("<stdin>:3: l_hard: unknown complex attribute 'nosuch'"), std::string::npos) << r.err;
}

TEST(CliTest, MissingFileExitsWithOne) {
  const CliRun r = Schedk("priorities /nonexistent/file.snap");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("/nonexistent/file.snap"), std::string::npos);
}

TEST(CliTest, HelpVersionAndUsage) {
  EXPECT_EQ(Schedk("--help").exit_code, 0);
  const CliRun v = Schedk("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("schedk "), std::string::npos);
  EXPECT_EQ(Schedk("priorities --format xml x.snap").exit_code, 2);
  EXPECT_EQ(Schedk("").exit_code, 2);
}

}  // namespace
}  // namespace schedk
