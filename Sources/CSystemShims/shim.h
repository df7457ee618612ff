// Calls Swift cannot make directly (variadic C functions).
#include <sys/prctl.h>
#include <signal.h>

/// Asks the kernel to send `sig` to this process when its parent dies.
static inline int shelfline_set_parent_death_signal(int sig) {
    return prctl(PR_SET_PDEATHSIG, sig);
}

#include <spawn.h>
/// glibc ≥ 2.29 has it, but only declares it under _GNU_SOURCE.
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict actions,
                                                const char *__restrict path);

static inline int shelfline_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

#include <sys/syscall.h>
#include <unistd.h>
/// A descriptor that polls readable once process `pid` has ended (Linux ≥ 5.3, close-on-exec);
/// -1 where the kernel has none (callers then poll `waitpid` on a timer).
static inline int shelfline_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return -1;
#endif
}

#include <fcntl.h>
/// Starts writeback of `count` bytes at `offset` of `fd` without waiting for it
/// (`sync_file_range(…, SYNC_FILE_RANGE_WRITE)`: declared only under _GNU_SOURCE). 0, or -1 and errno.
extern int sync_file_range(int fd, __off64_t offset, __off64_t count, unsigned int flags);
static inline int shelfline_start_writeback(int fd, long long offset, long long count) {
#ifdef SYNC_FILE_RANGE_WRITE
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
#else
    return sync_file_range(fd, offset, count, 2);
#endif
}
