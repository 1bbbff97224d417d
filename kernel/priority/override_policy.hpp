// override_policy.hpp
// The override ticket policy (sge_priority(5), sgeee.c): administrators grant
// override tickets (oticket) to users, projects and departments and to single
// jobs (-ot). With share_override_tickets an entity's tickets are divided among
// its active jobs; otherwise each job gets the entity's full amount.
// Pending tasks under shared override tickets are ranked by a greedy loop over
// all of them (Grid Engine applies no cap): each round the task with the most
// tickets if it ran next becomes active. OverrideTicketsPending uses a lazy heap
// over category heads; OverrideTicketsPendingReference is the straightforward oracle.
#pragma once

#include "kernel/model/entities.hpp"
#include "kernel/model/scheduler_config.hpp"
#include "kernel/priority/ticket_refs.hpp"

namespace schedk {

// calc_job_override_tickets for the running refs: writes otix of refs [0, running).
void OverrideTicketsRunning(const SchedulerConfig& config, const EntityTables& entities,
                            const EntityCounts& running_counts, TicketRefs& refs);

// The pending override tickets. `counts` must hold the running counts; it is
// returned unchanged. If `dependent`, otix is added to refs.tickets (in the
// shared loop Grid Engine adds it even when not dependent; that is kept).
void OverrideTicketsPending(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
                            bool dependent, TicketRefs& refs);
void OverrideTicketsPendingReference(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
                                     bool dependent, TicketRefs& refs);

// Whether any user, project, department or pending task holds override
// tickets. Without any, every pending task's otix is 0 in either twin, as the
// refs already hold, and the pending pass has nothing to do.
bool AnyPendingOverrideTickets(const EntityTables& entities, const TicketRefs& refs);

}  // namespace schedk
