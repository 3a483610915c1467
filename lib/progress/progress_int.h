/* progress_int.h - private links between the files of lib/progress (not for other modules). */
#ifndef SPX_PROGRESS_PROGRESS_INT_H
#define SPX_PROGRESS_PROGRESS_INT_H

/* Progress thread, after its loop stopped: frees every timer still pending
 * (they never fire; their handles become invalid). */
void spx_timer_drop_all(void);
/* Forked child: forget the pending timers without touching the parent's base. */
void spx_timer_forget_all(void);

#endif
