// jemalloc_options.cpp
// jemalloc's built-in options for schedk's executables (linked in by
// schedk_link_allocator). MALLOC_CONF in the environment overrides them.
//
// narenas:1,oversize_threshold:0 — a priority or scheduling pass allocates and
// frees hundreds of megabytes of columns, most of them blocks of 8 MiB and more.
// By default jemalloc serves such blocks from a separate arena that hands them
// back to the kernel as soon as they are freed, and gives each thread its own
// arena. With these two options every block comes from one arena, where a
// column freed by one step or thread can serve the next: a lower peak and a
// quicker pass (docs/performance.md, Allocator options).
//
// thp:always,retain:false — jemalloc asks for transparent huge pages (2 MiB) on
// the memory it maps (madvise(MADV_HUGEPAGE); the kernel's THP mode `madvise`
// honours it, `never` ignores it), and unmaps what it purges instead of keeping
// the address range. The passes gather and scatter across columns of many
// megabytes, so with 4 KiB pages most accesses miss the TLB, and every page is
// faulted in once per pass; huge pages cut both, at a little more peak memory.
// Without retain:false, huge pages left partly used by freed blocks raise the
// priority pass's peak memory per job (docs/performance.md, Allocator options).
extern "C" {
const char* malloc_conf = "narenas:1,oversize_threshold:0,thp:always,retain:false";
}
