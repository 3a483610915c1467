/* internal.h - everything of lib/server at once: the core header and every
 * engine header. Kept for files that have not yet narrowed their includes;
 * new code includes server/core.h and the one engine header it needs.
 */
#ifndef SPX_SERVER_INTERNAL_H
#define SPX_SERVER_INTERNAL_H

#include "server/core.h"
#include "server/engine_events.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"
#include "server/engine_pubsub.h"

#endif
