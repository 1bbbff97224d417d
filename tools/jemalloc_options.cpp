// jemalloc_options.cpp
// jemalloc's built-in options for schedk's executables (linked in by
// schedk_link_allocator). MALLOC_CONF in the environment overrides them.
//
// narenas:1,oversize_threshold:0 — a priority or scheduling pass allocates and
// frees hundreds of megabytes of columns, most of them blocks of 8 MiB and more.
// By default jemalloc serves such blocks from a separate arena that hands them
// back to the kernel as soon as they are freed, and gives each thread its own
// arena. With these two options every block comes from one arena, where a
// column freed by one step or thread can serve the next. Measured on a million
// jobs (2-core Xeon VM, 2026-11-22): the priority pass's peak falls from 199 to
// 192 bytes per job and its time from 300 to 285 ms.
//
// thp:always,retain:false — jemalloc asks for transparent huge pages (2 MiB) on
// the memory it maps (madvise(MADV_HUGEPAGE); the kernel's THP mode `madvise`
// honours it, `never` ignores it), and unmaps what it purges instead of keeping
// the address range. The passes gather and scatter across columns of many
// megabytes, so with 4 KiB pages most accesses miss the TLB, and every page is
// faulted in once per pass. On the 2-core AMD EPYC VM (Firecracker, Linux 6.18;
// 2026-11-23), where both cost several times what they did on the Xeon, the
// 1M-job priority pass takes 194–218 ms instead of 396–400 (137–145 instead of
// 184–197 with pages kept), `schedk schedule` on the 1M-job, 10,000-host goal
// snapshot 7.0–7.4 s instead of 9.4–11.2 s, at 2% more peak memory. Without
// retain:false, huge pages left partly used by freed blocks raise the priority
// pass's peak from 192 to 197–220 bytes per job; with it, 194–200.
extern "C" {
const char* malloc_conf = "narenas:1,oversize_threshold:0,thp:always,retain:false";
}
