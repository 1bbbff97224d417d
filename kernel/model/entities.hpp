// entities.hpp
// The ticket policies' entities: users (qconf -suser), projects (qconf -sprj)
// and usersets (qconf -su), of which departments are the ones of type DEPT.
// Each carries functional shares (fshare) and override tickets (oticket), and
// users and projects carry decayed past usage for the share tree.
// Invariants: tables are indexed by their ids; every job owner has a user row
// (Grid Engine creates user objects on submission with the auto_user_* values);
// `default_department` is the id of "defaultdepartment".
#pragma once

#include <string>
#include <vector>

#include "kernel/model/scheduler_config.hpp"
#include "kernel/types.hpp"

namespace schedk {

// Decayed usage of one user or project, as of `time_stamp` (decayed further to
// the interval's `now` by the share-tree policy).
struct UsageRecord {
  std::vector<UsageValue> values;  // cpu, mem, io and any other counter (finished_jobs, ...)
  Time time_stamp = 0;             // 0: not yet stamped (Grid Engine does not decay such usage)
};

struct User {
  double fshare = 0;
  double oticket = 0;
  ProjectId default_project;
  UsageRecord usage;
  // Usage of this user's jobs inside one project (Grid Engine's UP_project sub-list),
  // used by share-tree user nodes that sit under a project node.
  std::vector<std::pair<ProjectId, UsageRecord>> project_usage;
  bool declared = false;  // false: created implicitly for a job owner
};

struct Project {
  double fshare = 0;
  double oticket = 0;
  std::vector<UsersetId> acl;
  std::vector<UsersetId> xacl;
  UsageRecord usage;
};

struct Userset {
  bool is_department = false;  // type DEPT
  bool is_access_list = false;  // type ACL
  double fshare = 0;
  double oticket = 0;
  std::vector<UserId> users;     // entries naming users
  std::vector<GroupId> groups;   // entries naming UNIX groups (@group)
};

struct EntityTables {
  std::vector<User> users;          // indexed by UserId
  std::vector<Project> projects;    // indexed by ProjectId
  std::vector<Userset> usersets;    // indexed by UsersetId
  UsersetId default_department;

  const User& user(UserId id) const { return users[id.index()]; }
  const Project& project(ProjectId id) const { return projects[id.index()]; }
  const Userset& userset(UsersetId id) const { return usersets[id.index()]; }
};

}  // namespace schedk
