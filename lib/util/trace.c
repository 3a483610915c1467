/* trace.c - the fence trace (contract in trace.h): a constructor reads
 * SPMIX_TRACE_FENCE once; records go into one array reserved with an atomic
 * increment; a destructor (library unload or process exit) writes them as
 * text lines to PREFIX.<pid>, appended if a flush wrote there before. The
 * buffer is never freed (a thread may record until the very end).
 */
#include "config.h"
#include "util/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct trace_rec {
    uint64_t ns;
    uint32_t a, b, c;
    uint16_t ev, cpu;
};

bool spx_trace_enabled;

static char *trace_prefix;           /* owned, set once at load */
static struct trace_rec *trace_buf;  /* SPX_TRACE_MAX records, owned */
static uint32_t trace_next;          /* slots reserved (may pass SPX_TRACE_MAX) */
static uint32_t trace_written;       /* records already in the file */
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER; /* flushes */

static const char *const ev_names[SPX_TR_EV_COUNT] = {
    [SPX_TR_C_CALL] = "C_CALL",         [SPX_TR_C_ARRIVED] = "C_ARRIVED",
    [SPX_TR_C_SEND] = "C_SEND",         [SPX_TR_C_REPLY] = "C_REPLY",
    [SPX_TR_C_WOKE] = "C_WOKE",         [SPX_TR_C_RET] = "C_RET",
    [SPX_TR_S_REQ] = "S_REQ",           [SPX_TR_S_GATHERED] = "S_GATHERED",
    [SPX_TR_S_RELEASE] = "S_RELEASE",   [SPX_TR_S_REPLY] = "S_REPLY",
    [SPX_TR_T_START] = "T_START",       [SPX_TR_T_UP_SEND] = "T_UP_SEND",
    [SPX_TR_T_UP_SENT] = "T_UP_SENT",   [SPX_TR_T_UP_RECV] = "T_UP_RECV",
    [SPX_TR_T_DOWN_SEND] = "T_DOWN_SEND", [SPX_TR_T_DOWN_SENT] = "T_DOWN_SENT",
    [SPX_TR_T_DOWN_RECV] = "T_DOWN_RECV", [SPX_TR_T_DONE] = "T_DONE",
};

const char *spx_trace_ev_str(enum spx_trace_ev ev)
{
    return ev > 0 && ev < SPX_TR_EV_COUNT && ev_names[ev] ? ev_names[ev] : "UNKNOWN";
}

uint32_t spx_trace_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

void spx_trace_record(enum spx_trace_ev ev, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t i = __atomic_fetch_add(&trace_next, 1, __ATOMIC_RELAXED);
    if (i >= SPX_TRACE_MAX)
        return; /* counted as dropped */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int cpu = sched_getcpu();
    trace_buf[i] = (struct trace_rec){.ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
                                      .a = a, .b = b, .c = c, .ev = (uint16_t)ev,
                                      .cpu = (uint16_t)(cpu < 0 ? 0xffff : cpu)};
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void spx_trace_flush(void)
{
    if (!spx_trace_enabled)
        return;
    pthread_mutex_lock(&trace_lock);
    uint32_t reserved = __atomic_load_n(&trace_next, __ATOMIC_ACQUIRE);
    uint32_t upto = reserved < SPX_TRACE_MAX ? reserved : SPX_TRACE_MAX;
    if (upto == trace_written && reserved <= SPX_TRACE_MAX) {
        pthread_mutex_unlock(&trace_lock);
        return;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s.%ld", trace_prefix, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        pthread_mutex_unlock(&trace_lock);
        return;
    }
    char line[160], host[64] = "?";
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    int ok = 0;
    if (trace_written == 0) {
        int n = snprintf(line, sizeof(line), "# spmix fence trace pid %ld ppid %ld host %s\n",
                         (long)getpid(), (long)getppid(), host);
        ok = write_all(fd, line, (size_t)n);
    }
    for (uint32_t i = trace_written; i < upto && ok == 0; i++) {
        const struct trace_rec *r = &trace_buf[i];
        int n = snprintf(line, sizeof(line), "%s %llu %u %u %u %u\n",
                         spx_trace_ev_str((enum spx_trace_ev)r->ev), (unsigned long long)r->ns,
                         (unsigned)r->cpu, r->a, r->b, r->c);
        ok = write_all(fd, line, (size_t)n);
    }
    if (ok == 0 && reserved > SPX_TRACE_MAX) {
        int n = snprintf(line, sizeof(line), "# dropped %u\n", reserved - SPX_TRACE_MAX);
        ok = write_all(fd, line, (size_t)n);
    }
    trace_written = upto;
    close(fd);
    pthread_mutex_unlock(&trace_lock);
}

/* A forked child keeps the parent's records out of its own file. */
static void trace_atfork_child(void)
{
    trace_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    trace_next = 0;
    trace_written = 0;
}

__attribute__((constructor)) static void trace_load(void)
{
    const char *p = getenv(SPX_TRACE_ENV);
    if (!p || !*p)
        return;
    trace_prefix = strdup(p);
    trace_buf = calloc(SPX_TRACE_MAX, sizeof(*trace_buf));
    if (!trace_prefix || !trace_buf) {
        free(trace_prefix);
        free(trace_buf);
        trace_prefix = NULL;
        trace_buf = NULL;
        return;
    }
    pthread_atfork(NULL, NULL, trace_atfork_child);
    spx_trace_enabled = true;
}

__attribute__((destructor)) static void trace_unload(void)
{
    /* the buffer stays: another thread may still be recording */
    spx_trace_flush();
}
