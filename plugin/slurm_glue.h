/*
 * slurm_glue.h - the parts of Slurm's plugin ABI that are not in its public
 * headers, declared here so the plugin builds against the public headers only
 * (slurm/slurm.h, slurm/slurm_version.h), for Slurm 22.05 to 26.05: one
 * source, compiled against the installed release's own slurm.h (which
 * absorbs its changes to slurm_step_id_t and slurm_step_layout_t), plus the
 * #if on SLURM_VERSION_NUMBER below where the private ABI differs.
 *
 * Types: stepd_step_rec_t and s_p_hashtbl_t stay opaque; the two argument
 * structs of the MPI hooks and s_p_options_t are laid out as in Slurm's
 * src/common/slurm_mpi.h (src/interfaces/mpi.h from 23.02) and
 * src/common/parse_config.h - facts of the ABI:
 *   23.02  the hook argument types were renamed (mpi_plugin_client_info_t ->
 *          mpi_step_info_t, mpi_plugin_task_info_t -> mpi_task_info_t; same
 *          layout: this file uses the new names for every release);
 *          s_p_options_t gained pack/unpack; List became list_t *
 *   23.11  the task info lost its `self` field; hostlist_t became the struct
 *          (slurm_hostlist_* take and return hostlist_t *);
 *          slurm_kill_job_step gained a flags argument
 *   24.05  slurm_get_errno() is gone (errno is used for every release)
 *   25.11  slurm_kill_job_step takes a slurm_step_id_t *
 * Functions: all live in libslurmfull, which every host program of the
 * plugin (slurmctld, slurmd, slurmstepd, srun) is linked to; the dynamic
 * linker resolves them when the plugin is loaded. Memory handed to or
 * returned by them is Slurm's (xmalloc): release it with slurm_xfree only.
 */
#ifndef SPX_PLG_SLURM_GLUE_H
#define SPX_PLG_SLURM_GLUE_H

#include <stdbool.h>
#include <stdint.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "mpi_spmix needs Slurm 22.05 or later"
#endif
#define SPX_SLURM_AT_LEAST(maj, min) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(maj, min, 0))

/* a list returned to Slurm (conf_get_printable) and a host list */
#if SPX_SLURM_AT_LEAST(23, 2)
typedef list_t *spx_slurm_list_t;
#else
typedef List spx_slurm_list_t;
#endif
#if SPX_SLURM_AT_LEAST(23, 11)
typedef hostlist_t *spx_hostlist_t;
#else
typedef hostlist_t spx_hostlist_t;
#endif

/* spx_slurm_kill_step: slurm_kill_job_step(job.step, sig) in this release's form */
static inline int spx_slurm_kill_step(uint32_t jobid, uint32_t stepid, uint16_t sig)
{
#if SPX_SLURM_AT_LEAST(25, 11)
    slurm_step_id_t id = { .job_id = jobid, .step_id = stepid, .step_het_comp = NO_VAL };

    return slurm_kill_job_step(&id, sig, 0);
#elif SPX_SLURM_AT_LEAST(23, 11)
    return slurm_kill_job_step(jobid, stepid, sig, 0);
#else
    return slurm_kill_job_step(jobid, stepid, sig);
#endif
}

/* ---- opaque host types ---- */
typedef struct stepd_step_rec stepd_step_rec_t;
typedef struct s_p_hashtbl s_p_hashtbl_t;
typedef void mpi_plugin_client_state_t;

/* ---- arguments of the MPI hooks ---- */
typedef struct {
    uint32_t het_job_id;            /* het job leader id or NO_VAL */
    uint32_t het_job_task_offset;   /* het job task offset or NO_VAL */
    slurm_step_id_t step_id;
    slurm_step_layout_t *step_layout;
} mpi_step_info_t;

typedef struct {
    slurm_addr_t *client;
    uint32_t gtaskid;               /* global task id = PMIx rank */
    int ltaskid;                    /* task index on this node */
    uint32_t ltasks;                /* tasks on this node */
    uint32_t nnodes;
    uint32_t nodeid;
    uint32_t ntasks;
#if !SPX_SLURM_AT_LEAST(23, 11)
    slurm_addr_t *self;
#endif
    slurm_step_id_t step_id;
} mpi_task_info_t;

/* ---- configuration parser (src/common/parse_config.h) ---- */
typedef enum {
    SPX_S_P_IGNORE = 0,
    SPX_S_P_STRING,
    SPX_S_P_LONG,
    SPX_S_P_UINT16,
    SPX_S_P_UINT32,
    SPX_S_P_UINT64,
    SPX_S_P_POINTER,
    SPX_S_P_ARRAY,
    SPX_S_P_BOOLEAN,
    SPX_S_P_LINE,
    SPX_S_P_EXPLINE,
    SPX_S_P_PLAIN_STRING,
    SPX_S_P_FLOAT,
    SPX_S_P_DOUBLE,
    SPX_S_P_LONG_DOUBLE,
} spx_slurm_parser_enum_t;

typedef struct spx_s_p_options {
    char *key;
    spx_slurm_parser_enum_t type;
    int (*handler)(void **data, spx_slurm_parser_enum_t type, const char *key,
                   const char *value, const char *line, char **leftover);
    void (*destroy)(void *data);
    struct spx_s_p_options *line_options;
#if SPX_SLURM_AT_LEAST(23, 2)
    void (*pack)(void *data, void *buffer);     /* buffer: Slurm's buf_t */
    void *(*unpack)(void *buffer);
#endif
} s_p_options_t;

/* Appends copies (xmalloc'd) of options[] to *full_options. */
extern void slurm_transfer_s_p_options(s_p_options_t **full_options, s_p_options_t *options,
                                       int *full_options_cnt);
extern s_p_hashtbl_t *slurm_s_p_hashtbl_create(const s_p_options_t options[]);
extern int slurm_s_p_parse_pair(s_p_hashtbl_t *hashtbl, const char *key, const char *value);
/* These return 1 when the key had a value. *str is xmalloc'd. */
extern int slurm_s_p_get_string(char **str, const char *key, const s_p_hashtbl_t *hashtbl);
extern int slurm_s_p_get_uint32(uint32_t *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int slurm_s_p_get_boolean(bool *flag, const char *key, const s_p_hashtbl_t *hashtbl);

/* ---- printable configuration (src/common/read_config.h) ---- */
typedef struct {
    char *name;
    char *value;
} spx_config_key_pair_t;
extern void slurm_destroy_config_key_pair(void *object);

/* ---- memory and strings (src/common/xmalloc.h, xstring.h) ---- */
extern void *slurm_xcalloc(size_t cnt, size_t size, bool clear, bool try, const char *file,
                           int line, const char *func);
extern void slurm_xfree(void **p);
extern char *slurm_xstrdup(const char *str);
#define SPX_XMALLOC(sz) slurm_xcalloc(1, (sz), true, false, __FILE__, __LINE__, __func__)
#define SPX_XFREE(p) slurm_xfree((void **)&(p))

/* ---- environment arrays (src/common/env.h); strings are xmalloc'd ---- */
extern int slurm_env_array_overwrite(char ***array_ptr, const char *name, const char *value);
extern char *slurm_getenvp(char **env, const char *name);
extern void slurm_unsetenvp(char **env, const char *name);

/* ---- the loaded configuration (src/common/read_config.h): the global of
 * libslurmfull that srun and slurmstepd fill; its type is the public
 * slurm_conf_t of slurm.h. Read only (SlurmUser, AuthInfo). ---- */
extern slurm_conf_t slurm_conf;

/* ---- logging (also declared in slurm/spank.h) ---- */
extern void slurm_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_info(const char *format, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif /* SPX_PLG_SLURM_GLUE_H */
