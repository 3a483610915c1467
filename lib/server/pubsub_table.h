/*
 * pubsub_table: the in-memory publish/lookup/unpublish table of the server's
 * own directory (pubsub.c keeps it on tree node 0 and routes to it).
 *
 * One table per job step, so it is a list. Entries keep
 * their publisher, range and persistence; lookups that ask to wait (PMIX_WAIT)
 * are parked and completed by a later publish. Progress thread only (each
 * function asserts it): the table is the directory engine's state and has
 * no lock. Callbacks are called once the table is consistent again, so they
 * may call back into it.
 */
#ifndef SPX_SRV_PUBSUB_TABLE_H
#define SPX_SRV_PUBSUB_TABLE_H

#include <pmix_server.h>

/* Store info[] (copied) as published by proc. Calls cbfunc (may be NULL)
 * before returning and returns PMIX_SUCCESS, or returns an error
 * (PMIX_ERR_DUPLICATE_KEY, PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM) without
 * calling it. */
pmix_status_t spx_pubsub_publish(const pmix_proc_t *proc,
                                 const pmix_info_t info[], size_t ninfo,
                                 pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Look up keys (NULL-terminated, borrowed). Answers now, or later when
 * PMIX_WAIT asks to wait for keys not yet published; returns PMIX_SUCCESS
 * and calls cbfunc exactly once, or returns an error without calling it. */
pmix_status_t spx_pubsub_lookup(const pmix_proc_t *proc, char **keys,
                                const pmix_info_t info[], size_t ninfo,
                                pmix_lookup_cbfunc_t cbfunc, void *cbdata);

/* Remove what proc published (keys NULL: all of it). */
pmix_status_t spx_pubsub_unpublish(const pmix_proc_t *proc, char **keys,
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata);

/* proc terminated: drop its PMIX_PERSIST_PROC data and parked lookups. */
void spx_pubsub_proc_gone(const pmix_proc_t *proc);

/* Release everything; parked lookups are answered PMIX_ERR_NOT_FOUND. */
void spx_pubsub_fini(void);

#endif /* SPX_SRV_PUBSUB_TABLE_H */
