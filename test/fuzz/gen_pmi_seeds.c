/* gen_pmi_seeds.c - writes the seed corpus of fuzz_pmi (see fuzz_pmi.c for
 * the input format): the command sequences of real sessions - Debian's
 * MPICH 4.0 (PMI-1: init, get_maxes, get_appnum, get_my_kvsname, the
 * process mapping, barriers with its -bcast- and -allgather-shm- keys, a
 * finalize) and a PMI-2 client (the init line, fullinit, job-getid,
 * kvs-put with ';;' escapes, node attributes with wait, kvs-fence, kvs-get,
 * info-getjobattr) - on four ranks, interleaved as they arrived; then
 * abort, publish/lookup/unpublish in both versions, the host holding its
 * answers, timers, tasks closing in the middle of a barrier, and the
 * refusals: a command before init, a bad version, fullinit of another rank,
 * an over-long line, a bad PMI-2 header, a duplicate key, a control byte,
 * an unknown command, a value with a space read back over PMI-1, input
 * piling up while a barrier waits, and random bytes.
 * Usage: gen_pmi_seeds <dir>. The output is committed in test/fuzz/corpus-pmi.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_LINE, OP_V2, OP_BYTES, OP_CLOSE, OP_RELEASE, OP_TIMERS };
#define NS "fuzz-pmi"

static const char *outdir;
static uint8_t in[1 << 16];
static size_t inlen;

static void put8(uint8_t v)
{
    if (inlen >= sizeof(in)) {
        fprintf(stderr, "gen_pmi_seeds: seed too long\n");
        exit(1);
    }
    in[inlen++] = v;
}

static void begin(uint8_t mode)
{
    inlen = 0;
    put8(mode);
}

static void emit(const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(in, 1, inlen, f) != inlen || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void rec(uint8_t op, unsigned task, const void *p, size_t n)
{
    put8(op);
    put8((uint8_t)task);
    put8((uint8_t)(n & 0xff));
    put8((uint8_t)(n >> 8));
    for (size_t i = 0; i < n; i++)
        put8(((const uint8_t *)p)[i]);
}

/* A PMI-1 line (the '\n' is added by the harness). */
static void line(unsigned task, const char *s)
{
    rec(OP_LINE, task, s, strlen(s));
}

/* A PMI-2 message body (the header is added by the harness). */
static void v2(unsigned task, const char *s)
{
    rec(OP_V2, task, s, strlen(s));
}

static void raw(unsigned task, const void *p, size_t n)
{
    rec(OP_BYTES, task, p, n);
}

static void closing(unsigned task)
{
    put8(OP_CLOSE);
    put8((uint8_t)task);
}

/* Each rank k sends tmpl with every '#' replaced by k. */
static void fmt_all(void (*f)(unsigned, const char *), const char *tmpl)
{
    char s[512];
    for (unsigned k = 0; k < 4; k++) {
        size_t i;
        for (i = 0; tmpl[i] && i < sizeof(s) - 1; i++)
            s[i] = tmpl[i] == '#' ? (char)('0' + k) : tmpl[i];
        s[i] = '\0';
        f(k, s);
    }
}

/* MPICH 4.0's PMI-1 start-up, as recorded (kvsname changed). */
static void mpich_start(void)
{
    fmt_all(line, "cmd=init pmi_version=1 pmi_subversion=1");
    fmt_all(line, "cmd=get_maxes");
    fmt_all(line, "cmd=get_appnum");
    fmt_all(line, "cmd=get_my_kvsname");
    fmt_all(line, "cmd=get kvsname=" NS " key=PMI_process_mapping");
    fmt_all(line, "cmd=barrier_in");
    line(0, "cmd=put kvsname=" NS " key=-bcast-1-0 "
            "value=2F6465762F73686D2F6D706963685F736861725F746D7038314E355349");
    fmt_all(line, "cmd=barrier_in");
    for (unsigned k = 1; k < 4; k++)
        line(k, "cmd=get kvsname=" NS " key=-bcast-1-0");
    fmt_all(line, "cmd=put kvsname=" NS " key=-allgather-shm-1-# "
                  "value=20EFE54E4E858E93462000637577CC2B3200F8D74F00000000004F0300#");
    fmt_all(line, "cmd=barrier_in");
    fmt_all(line, "cmd=get kvsname=" NS " key=-allgather-shm-1-#");
}

static void mpich_session(void)
{
    begin(0);
    mpich_start();
    fmt_all(line, "cmd=barrier_in");
    fmt_all(line, "cmd=finalize");
    emit("mpich_pmi1");
    begin(1); /* the host holds fence and finalize answers */
    mpich_start();
    put8(OP_RELEASE);
    fmt_all(line, "cmd=finalize");
    put8(OP_RELEASE);
    emit("mpich_pmi1_hold");
    begin(0); /* MPI_Abort(MPI_COMM_WORLD, 7) in rank 1 */
    mpich_start();
    line(1, "cmd=abort exitcode=7");
    closing(1);
    fmt_all(line, "cmd=barrier_in");
    emit("mpich_abort");
}

static void pmi2_start(void)
{
    fmt_all(line, "cmd=init pmi_version=2 pmi_subversion=0");
    fmt_all(v2, "cmd=fullinit;pmirank=#;threaded=FALSE;");
    fmt_all(v2, "cmd=job-getid;");
    fmt_all(v2, "cmd=kvs-put;key=k2-#;value=semi;;colon=#;");
    fmt_all(v2, "cmd=info-putnodeattr;key=nattr-#;value=n#;");
    fmt_all(v2, "cmd=kvs-fence;");
    fmt_all(v2, "cmd=kvs-get;key=k2-#;srcid=#;");
    fmt_all(v2, "cmd=kvs-get;key=none-such;");
    fmt_all(v2, "cmd=info-getjobattr;key=PMI_process_mapping;");
    fmt_all(v2, "cmd=info-getjobattr;key=universeSize;");
    fmt_all(v2, "cmd=info-getnodeattr;key=nattr-#;wait=FALSE;");
}

static void pmi2_session(void)
{
    begin(0);
    pmi2_start();
    fmt_all(v2, "cmd=no-such-command;");
    fmt_all(v2, "cmd=finalize;");
    emit("pmi2");
    begin(1);
    pmi2_start();
    put8(OP_TIMERS);
    put8(OP_RELEASE);
    fmt_all(v2, "cmd=finalize;");
    put8(OP_RELEASE);
    emit("pmi2_hold");
    begin(0); /* a node attribute waited for, then put by another rank */
    fmt_all(line, "cmd=init pmi_version=2 pmi_subversion=0");
    fmt_all(v2, "cmd=fullinit;pmirank=#;");
    v2(0, "cmd=info-getnodeattr;key=later;wait=TRUE;");
    v2(1, "cmd=info-putnodeattr;key=later;value=here;");
    v2(2, "cmd=info-getnodeattr;key=never;wait=TRUE;");
    v2(0, "cmd=abort;exitcode=3;message=bye;;now;");
    emit("pmi2_nodeattr_wait");
    begin(0); /* PMI-2 put, PMI-1 get of the same key space */
    line(0, "cmd=init pmi_version=2 pmi_subversion=0");
    v2(0, "cmd=fullinit;pmirank=0;");
    v2(0, "cmd=kvs-put;key=sp;value=a b;");
    v2(0, "cmd=kvs-put;key=ok;value=x=y;;z;");
    line(1, "cmd=init pmi_version=1 pmi_subversion=1");
    line(1, "cmd=put kvsname=" NS " key=one value=1");
    for (unsigned k = 2; k < 4; k++)
        line(k, "cmd=init pmi_version=1 pmi_subversion=1");
    v2(0, "cmd=kvs-fence;");
    for (unsigned k = 1; k < 4; k++)
        line(k, "cmd=barrier_in");
    line(1, "cmd=get kvsname=" NS " key=sp");
    line(1, "cmd=get kvsname=" NS " key=ok");
    v2(0, "cmd=kvs-get;key=one;srcid=1;");
    emit("mixed_versions");
}

static void names(void)
{
    begin(0);
    fmt_all(line, "cmd=init pmi_version=1 pmi_subversion=1");
    line(0, "cmd=publish_name service=svc port=p0");
    line(1, "cmd=lookup_name service=svc");
    line(2, "cmd=lookup_name service=nothing");
    line(0, "cmd=unpublish_name service=svc");
    line(3, "cmd=publish_name service=svc");
    line(3, "cmd=get_universe_size");
    emit("names_pmi1");
    begin(0);
    fmt_all(line, "cmd=init pmi_version=2 pmi_subversion=0");
    fmt_all(v2, "cmd=fullinit;pmirank=#;");
    v2(0, "cmd=name-publish;name=svc;port=tcp;;x;");
    v2(1, "cmd=name-lookup;name=svc;");
    v2(0, "cmd=name-unpublish;name=svc;");
    v2(2, "cmd=name-lookup;name=svc;");
    emit("names_pmi2");
}

static void refusals(void)
{
    begin(0);
    line(0, "cmd=get_maxes"); /* before init */
    line(1, "cmd=init pmi_version=9 pmi_subversion=0");
    line(2, "cmd=init pmi_version=2");
    v2(2, "cmd=fullinit;pmirank=3;");
    v2(3, "cmd=fullinit;pmirank=3;"); /* a PMI-2 message first: no init line */
    emit("before_init");
    begin(0);
    fmt_all(line, "cmd=init pmi_version=1 pmi_subversion=1");
    static char longline[5000];
    memset(longline, 'a', sizeof(longline) - 1);
    memcpy(longline, "cmd=put key=k value=", 20);
    raw(0, longline, sizeof(longline) - 1);
    line(1, "cmd=put key=k key=j");
    raw(2, "cmd=put key=\001 value=1\n", 22);
    line(3, "cmd=frobnicate now=yes");
    line(3, "cmd=get key=");
    line(3, "key=v cmd=put");
    line(3, "cmd=put key=k");
    emit("malformed_pmi1");
    begin(0);
    fmt_all(line, "cmd=init pmi_version=2 pmi_subversion=0");
    raw(0, "0     cmd=x;", 12);
    raw(1, "5000  cmd=x;", 12);
    raw(2, "12 3  cmd=kvs-fence;", 20);
    v2(3, "cmd=fullinit;pmirank=3;");
    v2(3, "cmd=kvs-put;key=a;key=b;");
    emit("malformed_pmi2");
    begin(0); /* commands piling up behind a barrier, then the others close */
    fmt_all(line, "cmd=init pmi_version=1 pmi_subversion=1");
    line(0, "cmd=barrier_in");
    for (int i = 0; i < 40; i++)
        line(0, "cmd=put kvsname=" NS " key=pile value=0123456789012345678901234567890123456789"
                "0123456789012345678901234567890123456789");
    line(1, "cmd=barrier_in");
    closing(2);
    closing(3);
    put8(OP_TIMERS);
    emit("pile_up_close");
    begin(0);
    for (unsigned i = 0; i < 600; i++)
        put8((uint8_t)(i * 2654435761u >> 13));
    emit("garbage");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    mpich_session();
    pmi2_session();
    names();
    refusals();
    return 0;
}
