/* msg.c - names of protocol message types and peer kinds, for log lines. */
#include "config.h"
#include "proto/msg.h"

const char *spx_msg_type_str(int type)
{
    switch (type) {
    case SPX_MSG_HELLO: return "HELLO";
    case SPX_MSG_FINALIZE: return "FINALIZE";
    case SPX_MSG_ABORT: return "ABORT";
    case SPX_MSG_COMMIT: return "COMMIT";
    case SPX_MSG_FENCE: return "FENCE";
    case SPX_MSG_GET: return "GET";
    case SPX_MSG_NOTIFY: return "NOTIFY";
    case SPX_MSG_EVENT: return "EVENT";
    case SPX_MSG_PUBLISH: return "PUBLISH";
    case SPX_MSG_LOOKUP: return "LOOKUP";
    case SPX_MSG_UNPUBLISH: return "UNPUBLISH";
    case SPX_MSG_QUERY: return "QUERY";
    case SPX_MSG_JOBCTL: return "JOBCTL";
    case SPX_MSG_FENCE_LOCAL: return "FENCE_LOCAL";
    case SPX_MSG_GROUP: return "GROUP";
    case SPX_MSG_GROUP_LOCAL: return "GROUP_LOCAL";
    case SPX_MSG_IOF_PUSH: return "IOF_PUSH";
    case SPX_MSG_IOF_PULL: return "IOF_PULL";
    case SPX_MSG_IOF_DATA: return "IOF_DATA";
    default: return "UNKNOWN";
    }
}

const char *spx_peer_kind_str(int kind)
{
    switch (kind) {
    case SPX_PEER_CLIENT: return "client";
    case SPX_PEER_TOOL: return "tool";
    default: return "unknown";
    }
}
