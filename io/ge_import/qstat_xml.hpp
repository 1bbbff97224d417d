// qstat_xml.hpp
// The jobs of a Grid Engine cell as its qstat XML outputs give them:
//   `qstat -j '*' -xml`           what each job asked for (CellJob);
//   `qstat -u '*' -g t -xml`      where each task is: pending task ranges with
//                                 their state, and per running task the
//                                 granted queue instances and the master;
//   `qstat -f -xml`               the queue instances and their states.
// The parsers only read: no value is interpreted beyond its syntax (a request
// stays the string qsub stored), so the snapshot reader stays the one judge of
// what a value means. Errors name the command and the line of its output.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/status.hpp"

namespace schedk::io {

struct CellJob {
  int line = 0;  // where the job's element starts in the output
  std::uint64_t number = 0;
  std::string owner, group, project, department, name;
  std::int64_t submit = 0;
  std::int64_t deadline = 0;  // 0: none
  int posix_priority = 0;     // -p, -1023..1024
  bool reserve = false;
  std::vector<std::pair<std::string, std::string>> hard_requests, soft_requests;  // name, value as submitted
  std::vector<std::string> hard_queues, soft_queues, master_queues;  // -q, -soft -q, -masterq
  std::string pe;
  std::uint32_t pe_min = 0, pe_max = 0;
  std::vector<std::uint64_t> predecessors;  // -hold_jid, as jobs still in the cell
  std::uint64_t override_tickets = 0;
  std::uint64_t jobshare = 0;
  bool is_array = false;
  std::uint32_t task_concurrency = 0;                // -tc; 0: none
  std::map<std::uint32_t, std::int64_t> task_start;  // running task -> start time
  std::set<std::uint32_t> task_objects;              // tasks that exist as objects (JB_ja_tasks)
  // Options the cell accepted that a snapshot cannot say yet (-ckpt, -a, ...).
  std::vector<std::string> unsupported;
};

// One row of `qstat -g t -xml`: a pending task range with its state, or one
// slot of a running task in one queue instance.
struct CellTaskRow {
  int line = 0;
  std::uint64_t number = 0;
  std::string state;  // as qstat prints it: qw, hqw, r, t, Eqw, dr, ...
  std::string tasks;  // "" (not an array job), "3", "1-5:2", "1,2,4"
  std::string queue;  // running: the queue instance, cqueue@host
  bool master = false;
  std::uint32_t slots = 0;
};

struct CellQueueInstance {
  std::string name;   // cqueue@host
  std::string state;  // the letters qstat prints (d, s, u, E, a, ...), "" when none
};

Result<std::vector<CellJob>> ParseQstatJobs(std::string_view xml, const std::string& source);
Result<std::vector<CellTaskRow>> ParseQstatTasks(std::string_view xml, const std::string& source);
Result<std::vector<CellQueueInstance>> ParseQstatQueues(std::string_view xml, const std::string& source);

}  // namespace schedk::io
