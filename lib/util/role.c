/* role.c - whether this process runs a PMIx server (role.h). */
#include "config.h"
#include "util/role.h"

static bool server_up; /* read with atomics from any thread */

bool spx_server_active(void)
{
    return __atomic_load_n(&server_up, __ATOMIC_ACQUIRE);
}

void spx_role_server_set(bool up)
{
    __atomic_store_n(&server_up, up, __ATOMIC_RELEASE);
}
