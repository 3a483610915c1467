/*
 * step_auth.c - the step's choice of authentication and its munge
 * parameters (step_auth.h), read from Slurm's loaded configuration.
 */
#include "config.h"
#include "plugin/step_auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/conf.h"
#include "plugin/slurm_glue.h"
#include "util/munge_cred.h"

bool spx_plg_auth_pick_munge(void)
{
    const char *ask = getenv(SPX_PLG_ENV_AUTH_ASK);

    if (!spx_munge_supported()) {
        spx_plg_info("built without libmunge: the step's servers and its abort reports are "
                     "authenticated by a per-step secret in the launch environment");
        return false;
    }
    if (ask != NULL && strcmp(ask, "secret") == 0) {
        spx_plg_info("%s=secret: the step's servers are authenticated by a per-step secret "
                     "in the launch environment", SPX_PLG_ENV_AUTH_ASK);
        return false;
    }
    return true;
}

void spx_plg_auth_munge_socket(char *out, size_t len)
{
    const char *e = getenv(SPX_MUNGE_SOCKET_ENV), *ai = slurm_conf.authinfo, *s;

    out[0] = '\0';
    if (spx_plg_conf.munge_socket != NULL) { /* mpi.conf: slurmstepd only */
        snprintf(out, len, "%s", spx_plg_conf.munge_socket);
        return;
    }
    if (e != NULL && *e != '\0') {
        snprintf(out, len, "%s", e);
        return;
    }
    /* AuthInfo=opt,opt,...: the socket=PATH one */
    for (s = ai; s != NULL && *s != '\0'; s += strcspn(s, ",") + (s[strcspn(s, ",")] != '\0')) {
        if (strncmp(s, "socket=", 7) == 0) {
            snprintf(out, len, "%.*s", (int)strcspn(s + 7, ","), s + 7);
            return;
        }
    }
}

size_t spx_plg_auth_uids(uint32_t job_uid, uint32_t out[SPX_PLG_AUTH_UIDS])
{
    uint32_t cand[SPX_PLG_AUTH_UIDS] = { job_uid, 0, slurm_conf.slurm_user_id };
    size_t n = 0;

    for (size_t i = 0; i < SPX_PLG_AUTH_UIDS; i++) {
        size_t k = 0;
        while (k < n && out[k] != cand[i])
            k++;
        if (k == n)
            out[n++] = cand[i];
    }
    return n;
}
