/* progress_inline.h - what fuzz_server drives of progress_inline.c, the
 * progress module that runs on the caller's thread (see that file). */
#ifndef SPX_TEST_FUZZ_PROGRESS_INLINE_H
#define SPX_TEST_FUZZ_PROGRESS_INLINE_H

#include <stddef.h>

/* Runs shifted jobs and the event loop (without waiting) until `rounds`
 * passes in a row did nothing new. */
void spx_fz_pump(int rounds);
/* Fires every timer pending now, as if its time had come; how many fired. */
size_t spx_fz_fire_timers(void);
/* Timers pending. */
size_t spx_fz_timer_count(void);

#endif
