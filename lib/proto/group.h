/* group.h - the bytes a group construct exchanges: what each member brings
 * (its group info and its endpoint data) and the context id the group gets.
 *
 * The servers of the members' nodes carry these bytes through a collective
 * (lib/server/group_coll.c) and each server hands the whole outcome to its local
 * members in the reply to their GROUP request, where the client reads it with
 * the same parser. The stream has no count in front, so the contributions of
 * several nodes are simply concatenated:
 *     item    := u8 SPX_GRP_ITEM_MEMBER, str group, proc member, u8 flags,
 *                u32 ni, ni bytes: info[] group_info, u32 n, n bytes of records
 *                (proto/records.h: the member's endpoint data)
 *              | u8 SPX_GRP_ITEM_CID, str group, u64 context id
 *              | u8 SPX_GRP_ITEM_ASKED, str group, u8 flags (what an inviter
 *                that is no member asked for the group)
 *     flags   := bit 0: the member asked for a context id; bit 1: it asked
 *                for PMIX_GROUP_NOTIFY_TERMINATION
 * Every item of one outcome names the same group; a member appears once;
 * at most one context id.
 */
#ifndef SPX_PROTO_GROUP_H
#define SPX_PROTO_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#include "codec/buf.h"

enum spx_grp_item_kind { SPX_GRP_ITEM_MEMBER = 1, SPX_GRP_ITEM_CID = 2, SPX_GRP_ITEM_ASKED = 3 };
#define SPX_GRP_F_WANT_CID 0x1u
#define SPX_GRP_F_NOTIFY_TERM 0x2u

/* Most members one outcome may name (bounds what a peer can make us allocate). */
#define SPX_GRP_MAX_MEMBERS (1u << 20)

/* Appends a MEMBER item (flags: SPX_GRP_F_*). grp, member, info, records: borrowed. */
void spx_grp_push_member(spx_buf_t *b, const char *grp, const pmix_proc_t *member,
                         unsigned flags, const pmix_info_t *info, size_t ninfo,
                         const void *records, size_t nrecords);
/* Appends an ASKED item: flags (SPX_GRP_F_*) asked for the group by one
 * that is not a member of it (an inviter that does not join). */
void spx_grp_push_asked(spx_buf_t *b, const char *grp, unsigned flags);
/* Appends a CID item. */
void spx_grp_push_cid(spx_buf_t *b, const char *grp, uint64_t cid);

/* One member of a parsed outcome. Its group info is decoded only when it
 * is asked for (spx_grp_member_info): a construct's every member pays for
 * reading the outcome, and most group info is never read. */
typedef struct spx_grp_member {
    pmix_proc_t proc;
    const uint8_t *info_bytes;  /* its PMIX_GROUP_INFO entries, encoded (borrowed, as records) */
    size_t ninfo_bytes;
    bool info_decoded;          /* info/ninfo hold them (then info_bytes is not needed) */
    pmix_info_t *info;          /* decoded (owned by the outcome), or NULL */
    size_t ninfo;
    const uint8_t *records;     /* its endpoint data (borrowed: points into the parsed bytes) */
    size_t nrecords;
} spx_grp_member_t;

/* A parsed outcome: the members sorted by (nspace, rank). */
typedef struct spx_grp_outcome {
    char grp[PMIX_MAX_NSLEN + 1];
    spx_grp_member_t *m;        /* owned */
    size_t n;
    bool want_cid;              /* some member asked for a context id */
    bool notify_term;           /* some member asked for PMIX_GROUP_NOTIFY_TERMINATION */
    bool have_cid;
    uint64_t cid;
} spx_grp_outcome_t;

/* Parses len bytes at data (borrowed: the members' records point into it, so
 * data must outlive *out). 0, or -1 when the bytes are malformed, name two
 * groups, repeat a member or a context id, or name no member (*out is then
 * empty and needs no fini). */
int spx_grp_outcome_parse(const void *data, size_t len, spx_grp_outcome_t *out);
/* Decodes m's group info into m->info / m->ninfo once; 0, or -1 when its
 * bytes are malformed (then m has none). */
int spx_grp_member_info(spx_grp_member_t *m);
/* Frees what the outcome owns. */
void spx_grp_outcome_fini(spx_grp_outcome_t *o);
/* Index of proc among the members, or -1. */
long spx_grp_outcome_find(const spx_grp_outcome_t *o, const pmix_proc_t *proc);

#endif
