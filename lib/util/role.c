/* role.c - whether this process runs a PMIx server (role.h). */
#include "config.h"
#include "util/role.h"

static bool server_up; /* read with atomics from any thread */
static spx_role_notify_f server_notify;

bool spx_server_active(void)
{
    return __atomic_load_n(&server_up, __ATOMIC_ACQUIRE);
}

void spx_role_server_set(bool up, spx_role_notify_f notify)
{
    __atomic_store_n(&server_notify, notify, __ATOMIC_RELEASE);
    __atomic_store_n(&server_up, up, __ATOMIC_RELEASE);
}

spx_role_notify_f spx_role_server_notify(void)
{
    return __atomic_load_n(&server_notify, __ATOMIC_ACQUIRE);
}
