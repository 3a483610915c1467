/* frames.c - the names of the tree's frame types (proto.h), for log lines
 * of every file of lib/tree. */
#include "config.h"
#include "tree/proto.h"

const char *spx_tree_frame_type_str(uint8_t type)
{
    switch (type) {
    case SPX_TREE_FRAME_AUTH: return "AUTH";
    case SPX_TREE_FRAME_UP: return "UP";
    case SPX_TREE_FRAME_DOWN: return "DOWN";
    case SPX_TREE_FRAME_MSG: return "MSG";
    case SPX_TREE_FRAME_BCAST: return "BCAST";
    case SPX_TREE_FRAME_NODE_LOST: return "NODE_LOST";
    case SPX_TREE_FRAME_NODE_LEFT: return "NODE_LEFT";
    }
    return "UNKNOWN";
}
