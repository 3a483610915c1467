/*
 * tcp_pingpong.c - the round trip of a small TCP message between two
 * processes, the yardstick for a fence's time (test/bench/tcp_pingpong.sh,
 * test/bench/fence_trace.sh, doc/scale.md "Where an empty fence's time goes").
 *
 *   tcp_pingpong -s ADDR:PORT [-b BYTES]        echo server: accepts one
 *                                               connection, echoes every
 *                                               message until EOF
 *   tcp_pingpong -c ADDR:PORT [-b BYTES] [-n ITERS] [-w WARMUP] [-q]
 *                                               client: ITERS round trips of
 *                                               BYTES bytes (default 64)
 *
 * Both ends set TCP_NODELAY, as the tree's links do (lib/tree/transport.c);
 * -q also sets TCP_QUICKACK before every read. Each side blocks in read(2),
 * so a round trip costs what a fence's hop costs: two scheduler wake-ups and
 * the stack twice. The client prints
 *   tcp_rtt_us median M p10 A p90 B min C iters N bytes S
 * with times in microseconds (CLOCK_MONOTONIC). The server ends after its
 * client does; it gives up after 60 s without a connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int quickack;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int parse(const char *s, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof(host))
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((unsigned short)atoi(colon + 1));
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static void tune(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int full_io(int fd, char *buf, size_t n, int reading)
{
    size_t done = 0;
    while (done < n) {
        if (reading && quickack) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
        }
        ssize_t r = reading ? read(fd, buf + done, n - done) : write(fd, buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int serve(const struct sockaddr_in *sa, size_t bytes)
{
    int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 || listen(lfd, 1) < 0) {
        perror("tcp_pingpong: listen");
        return 1;
    }
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    if (poll(&p, 1, 60000) != 1) {
        fprintf(stderr, "tcp_pingpong: no client within 60 s\n");
        return 1;
    }
    int fd = accept(lfd, NULL, NULL);
    close(lfd);
    if (fd < 0) {
        perror("tcp_pingpong: accept");
        return 1;
    }
    tune(fd);
    char *buf = malloc(bytes);
    if (!buf)
        return 1;
    while (full_io(fd, buf, bytes, 1) == 0)
        if (full_io(fd, buf, bytes, 0) != 0)
            break;
    free(buf);
    close(fd);
    return 0;
}

static int client(const struct sockaddr_in *sa, size_t bytes, int iters, int warmup)
{
    int fd = -1;
    for (int tries = 0; tries < 500; tries++) { /* the server may still be starting */
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            break;
        if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
            break;
        close(fd);
        fd = -1;
        usleep(10000);
    }
    if (fd < 0) {
        perror("tcp_pingpong: connect");
        return 1;
    }
    tune(fd);
    char *buf = calloc(1, bytes);
    double *t = calloc((size_t)iters, sizeof(*t));
    if (!buf || !t)
        return 1;
    for (int i = -warmup; i < iters; i++) {
        double t0 = now_us();
        if (full_io(fd, buf, bytes, 0) != 0 || full_io(fd, buf, bytes, 1) != 0) {
            fprintf(stderr, "tcp_pingpong: connection lost\n");
            return 1;
        }
        if (i >= 0)
            t[i] = now_us() - t0;
    }
    close(fd);
    qsort(t, (size_t)iters, sizeof(*t), cmp_double);
    printf("tcp_rtt_us median %.1f p10 %.1f p90 %.1f min %.1f iters %d bytes %zu\n",
           t[iters / 2], t[iters / 10], t[iters * 9 / 10], t[0], iters, bytes);
    free(buf);
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    const char *srv = NULL, *cli = NULL;
    size_t bytes = 64;
    int iters = 2000, warmup = 100, opt;
    while ((opt = getopt(argc, argv, "s:c:b:n:w:q")) != -1) {
        switch (opt) {
        case 's': srv = optarg; break;
        case 'c': cli = optarg; break;
        case 'b': bytes = (size_t)strtoul(optarg, NULL, 10); break;
        case 'n': iters = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 'q': quickack = 1; break;
        default: goto usage;
        }
    }
    if ((!srv) == (!cli) || bytes == 0 || bytes > (64u << 20) || iters < 10 || warmup < 0)
        goto usage;
    struct sockaddr_in sa;
    if (parse(srv ? srv : cli, &sa) != 0) {
        fprintf(stderr, "tcp_pingpong: bad address %s (want IPv4:PORT)\n", srv ? srv : cli);
        return 2;
    }
    return srv ? serve(&sa, bytes) : client(&sa, bytes, iters, warmup);
usage:
    fprintf(stderr, "usage: tcp_pingpong -s ADDR:PORT | -c ADDR:PORT [-b BYTES] [-n ITERS] "
                    "[-w WARMUP] [-q]\n");
    return 2;
}
