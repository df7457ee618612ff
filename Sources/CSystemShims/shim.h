// Calls Swift cannot make directly (variadic C functions).
#include <sys/prctl.h>
#include <signal.h>

/// Asks the kernel to send `sig` to this process when its parent dies.
static inline int shelfline_set_parent_death_signal(int sig) {
    return prctl(PR_SET_PDEATHSIG, sig);
}
