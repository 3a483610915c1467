/*
 * conf.c - mpi.conf options of mpi/spmix (the list and their meaning are in
 * conf.h and in mpi_spmix(8)).
 *
 * Data flow: conf_options hands Slurm our option table; conf_set copies the
 * parsed values into spx_plg_conf (an invalid value is reported and the
 * default kept, so a typo never takes slurmd down); conf_get rebuilds a table
 * from spx_plg_conf for Slurm to pack and send to slurmstepd;
 * conf_get_printable lists the values for `scontrol show config`.
 */
#include "config.h"
#include "plugin/conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spx_plg_conf spx_plg_conf;

static s_p_options_t spx_plg_options[] = {
    { .key = "SpmixDebug", .type = SPX_S_P_UINT32 },
    { .key = "SpmixLibDir", .type = SPX_S_P_STRING },
    { .key = "SpmixSetLdLibraryPath", .type = SPX_S_P_BOOLEAN },
    { .key = "SpmixPortRange", .type = SPX_S_P_STRING },
    { .key = "SpmixTimeout", .type = SPX_S_P_UINT32 },
    { .key = "SpmixTreeWidth", .type = SPX_S_P_UINT32 },
    { .key = "SpmixTmpDir", .type = SPX_S_P_STRING },
    { .key = "SpmixStdinTool", .type = SPX_S_P_BOOLEAN },
    { .key = "SpmixOutputTap", .type = SPX_S_P_BOOLEAN },
    { .key = "SpmixMungeSocket", .type = SPX_S_P_STRING },
    { .key = NULL },
};

void spx_plg_conf_free(void)
{
    free(spx_plg_conf.libdir);
    free(spx_plg_conf.tmpdir);
    free(spx_plg_conf.munge_socket);
    spx_plg_conf.libdir = spx_plg_conf.tmpdir = spx_plg_conf.munge_socket = NULL;
}

void spx_plg_conf_defaults(void)
{
    spx_plg_conf_free();
    spx_plg_conf.debug = 0;
    spx_plg_conf.libdir = strdup(SPX_PLG_LIBDIR);
    spx_plg_conf.set_ld_library_path = true;
    spx_plg_conf.port_lo = SPX_PLG_DEFAULT_PORT_LO;
    spx_plg_conf.port_hi = SPX_PLG_DEFAULT_PORT_HI;
    spx_plg_conf.timeout = SPX_PLG_DEFAULT_TIMEOUT;
    spx_plg_conf.tree_width = 0;   /* Slurm's TreeWidth */
    spx_plg_conf.stdin_tool = false;
    spx_plg_conf.output_tap = false;
}

int spx_plg_conf_parse_ports(const char *s, uint16_t *lo, uint16_t *hi)
{
    char *end;
    unsigned long a, b;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    a = strtoul(s, &end, 10);
    if (*end != '-' || end[1] < '0' || end[1] > '9')
        return -1;
    b = strtoul(end + 1, &end, 10);
    if (*end != '\0' || a < 1 || a > b || b > 65535)
        return -1;
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
    return 0;
}

/* Replaces *dst with a malloc'd copy of the xmalloc'd src, which is freed. */
static void spx_plg_conf_take(char **dst, char *src)
{
    char *copy = src ? strdup(src) : NULL;

    if (src != NULL && copy != NULL) {
        free(*dst);
        *dst = copy;
    }
    if (src != NULL)
        SPX_XFREE(src);
}

uint32_t spx_plg_conf_tree_width(enum spx_plg_width_from *from)
{
    return spx_plg_width_choose(spx_plg_conf.tree_width, slurm_conf.tree_width, from);
}

void spx_plg_conf_options(s_p_options_t **full_options, int *full_options_cnt)
{
    slurm_transfer_s_p_options(full_options, spx_plg_options, full_options_cnt);
}

void spx_plg_conf_set(s_p_hashtbl_t *tbl)
{
    char *s = NULL;
    uint32_t u;
    bool b;

    spx_plg_conf_defaults();
    if (tbl == NULL)
        return;
    if (slurm_s_p_get_uint32(&u, "SpmixDebug", tbl))
        spx_plg_conf.debug = u > 3 ? 3 : u;
    if (slurm_s_p_get_string(&s, "SpmixLibDir", tbl)) {
        if (s != NULL && s[0] == '/')
            spx_plg_conf_take(&spx_plg_conf.libdir, s);
        else {
            spx_plg_err("SpmixLibDir=%s is not an absolute path; using %s", s ? s : "",
                        spx_plg_conf.libdir);
            SPX_XFREE(s);
        }
        s = NULL;
    }
    if (slurm_s_p_get_boolean(&b, "SpmixSetLdLibraryPath", tbl))
        spx_plg_conf.set_ld_library_path = b;
    if (slurm_s_p_get_boolean(&b, "SpmixStdinTool", tbl))
        spx_plg_conf.stdin_tool = b;
    if (slurm_s_p_get_boolean(&b, "SpmixOutputTap", tbl))
        spx_plg_conf.output_tap = b;
    if (slurm_s_p_get_string(&s, "SpmixPortRange", tbl)) {
        if (spx_plg_conf_parse_ports(s, &spx_plg_conf.port_lo, &spx_plg_conf.port_hi) != 0)
            spx_plg_err("SpmixPortRange=%s is not LO-HI (1 <= LO <= HI <= 65535); using %u-%u",
                        s ? s : "", spx_plg_conf.port_lo, spx_plg_conf.port_hi);
        SPX_XFREE(s);
        s = NULL;
    }
    if (slurm_s_p_get_uint32(&u, "SpmixTimeout", tbl)) {
        if (u >= 1 && u <= 3600)
            spx_plg_conf.timeout = u;
        else
            spx_plg_err("SpmixTimeout=%u is not in 1..3600; using %u", u, spx_plg_conf.timeout);
    }
    if (slurm_s_p_get_uint32(&u, "SpmixTreeWidth", tbl)) {
        if (u >= SPX_PLG_WIDTH_MIN && u <= SPX_PLG_WIDTH_MAX)
            spx_plg_conf.tree_width = u;
        else
            spx_plg_err("SpmixTreeWidth=%u is not in %u..%u; ignored (Slurm's TreeWidth "
                        "decides)", u, SPX_PLG_WIDTH_MIN, SPX_PLG_WIDTH_MAX);
    }
    if (slurm_s_p_get_string(&s, "SpmixTmpDir", tbl)) {
        if (s != NULL && s[0] == '/')
            spx_plg_conf_take(&spx_plg_conf.tmpdir, s);
        else {
            spx_plg_err("SpmixTmpDir=%s is not an absolute path; ignored", s ? s : "");
            SPX_XFREE(s);
        }
    }
    if (slurm_s_p_get_string(&s, "SpmixMungeSocket", tbl)) {
        if (s != NULL && s[0] == '/')
            spx_plg_conf_take(&spx_plg_conf.munge_socket, s);
        else {
            spx_plg_err("SpmixMungeSocket=%s is not an absolute path; ignored", s ? s : "");
            SPX_XFREE(s);
        }
    }
}

s_p_hashtbl_t *spx_plg_conf_get(void)
{
    s_p_hashtbl_t *tbl = slurm_s_p_hashtbl_create(spx_plg_options);
    char v[64];

    if (tbl == NULL)
        return NULL;
    snprintf(v, sizeof(v), "%u", spx_plg_conf.debug);
    slurm_s_p_parse_pair(tbl, "SpmixDebug", v);
    if (spx_plg_conf.libdir != NULL)
        slurm_s_p_parse_pair(tbl, "SpmixLibDir", spx_plg_conf.libdir);
    slurm_s_p_parse_pair(tbl, "SpmixSetLdLibraryPath",
                         spx_plg_conf.set_ld_library_path ? "yes" : "no");
    snprintf(v, sizeof(v), "%u-%u", spx_plg_conf.port_lo, spx_plg_conf.port_hi);
    slurm_s_p_parse_pair(tbl, "SpmixPortRange", v);
    snprintf(v, sizeof(v), "%u", spx_plg_conf.timeout);
    slurm_s_p_parse_pair(tbl, "SpmixTimeout", v);
    if (spx_plg_conf.tree_width != 0) {
        /* unset stays unset: each slurmstepd then follows its TreeWidth */
        snprintf(v, sizeof(v), "%u", spx_plg_conf.tree_width);
        slurm_s_p_parse_pair(tbl, "SpmixTreeWidth", v);
    }
    if (spx_plg_conf.tmpdir != NULL)
        slurm_s_p_parse_pair(tbl, "SpmixTmpDir", spx_plg_conf.tmpdir);
    if (spx_plg_conf.munge_socket != NULL)
        slurm_s_p_parse_pair(tbl, "SpmixMungeSocket", spx_plg_conf.munge_socket);
    slurm_s_p_parse_pair(tbl, "SpmixStdinTool", spx_plg_conf.stdin_tool ? "yes" : "no");
    slurm_s_p_parse_pair(tbl, "SpmixOutputTap", spx_plg_conf.output_tap ? "yes" : "no");
    return tbl;
}

static void spx_plg_conf_print(spx_slurm_list_t l, const char *name, const char *value)
{
    spx_config_key_pair_t *kp = SPX_XMALLOC(sizeof(*kp));

    kp->name = slurm_xstrdup(name);
    kp->value = slurm_xstrdup(value);
    slurm_list_append(l, kp);
}

spx_slurm_list_t spx_plg_conf_get_printable(void)
{
    spx_slurm_list_t l = slurm_list_create(slurm_destroy_config_key_pair);
    char v[64];

    snprintf(v, sizeof(v), "%u", spx_plg_conf.debug);
    spx_plg_conf_print(l, "SpmixDebug", v);
    spx_plg_conf_print(l, "SpmixLibDir", spx_plg_conf.libdir ? spx_plg_conf.libdir : "");
    spx_plg_conf_print(l, "SpmixSetLdLibraryPath",
                       spx_plg_conf.set_ld_library_path ? "yes" : "no");
    snprintf(v, sizeof(v), "%u-%u", spx_plg_conf.port_lo, spx_plg_conf.port_hi);
    spx_plg_conf_print(l, "SpmixPortRange", v);
    snprintf(v, sizeof(v), "%u", spx_plg_conf.timeout);
    spx_plg_conf_print(l, "SpmixTimeout", v);
    if (spx_plg_conf.tree_width != 0) {
        snprintf(v, sizeof(v), "%u", spx_plg_conf.tree_width);
    } else {
        enum spx_plg_width_from from;
        uint32_t w = spx_plg_conf_tree_width(&from);
        snprintf(v, sizeof(v), "%u (from %s)", w, spx_plg_width_from_str(from));
    }
    spx_plg_conf_print(l, "SpmixTreeWidth", v);
    spx_plg_conf_print(l, "SpmixTmpDir", spx_plg_conf.tmpdir ? spx_plg_conf.tmpdir : "(TMPDIR or /tmp)");
    spx_plg_conf_print(l, "SpmixMungeSocket",
                       spx_plg_conf.munge_socket ? spx_plg_conf.munge_socket
                                                 : "(SPMIX_MUNGE_SOCKET, AuthInfo or default)");
    spx_plg_conf_print(l, "SpmixStdinTool", spx_plg_conf.stdin_tool ? "yes" : "no");
    spx_plg_conf_print(l, "SpmixOutputTap", spx_plg_conf.output_tap ? "yes" : "no");
    return l;
}
