/*
 * tcp_pingpong: the TCP round trip between two hosts, the floor a fence
 * across nodes is compared with (test/slurm/bench_scale32.sh runs it between
 * two nodes' namespaces of the virtual cluster).
 *
 *   tcp_pingpong serve IP PORT        accepts one connection and echoes every
 *                                     byte until the peer closes; exits then
 *   tcp_pingpong ping IP PORT [N]     connects (retrying for 10 s), sends one
 *                                     byte and waits for it N times (default
 *                                     1000, after 100 untimed), prints
 *                                     "rtt_median US", "rtt_p10 US", "rtt_p90 US"
 *
 * Both ends set TCP_NODELAY. Plain blocking sockets; no data but the byte.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 100

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void die(const char *what)
{
    fprintf(stderr, "tcp_pingpong: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void nodelay(int fd)
{
    int one = 1;

    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        die("TCP_NODELAY");
}

/* One byte out, one byte back; 0 or -1 (peer gone). */
static int xfer(int fd, char *c, int send_first)
{
    for (int step = 0; step < 2; step++) {
        ssize_t n = (step == 0) == (send_first != 0) ? write(fd, c, 1) : read(fd, c, 1);
        if (n != 1) {
            if (n < 0 && errno == EINTR) {
                step--;
                continue;
            }
            return -1;
        }
    }
    return 0;
}

static int serve(struct sockaddr_in *sa)
{
    int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), fd;
    char c;

    if (ls < 0)
        die("socket");
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(ls, (struct sockaddr *)sa, sizeof(*sa)) != 0 || listen(ls, 1) != 0)
        die("bind/listen");
    if ((fd = accept(ls, NULL, NULL)) < 0)
        die("accept");
    nodelay(fd);
    while (xfer(fd, &c, 0) == 0)
        ;
    close(fd);
    close(ls);
    return 0;
}

static int ping(struct sockaddr_in *sa, int n)
{
    double *t = calloc((size_t)n, sizeof(double)), t0;
    char c = 'x';
    int fd = -1;

    if (t == NULL)
        die("calloc");
    for (int i = 0; i < 1000; i++) {   /* the server may still be starting */
        if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
            die("socket");
        if (connect(fd, (struct sockaddr *)sa, sizeof(*sa)) == 0)
            break;
        close(fd);
        fd = -1;
        usleep(10000);
    }
    if (fd < 0)
        die("connect");
    nodelay(fd);
    for (int i = 0; i < WARMUP + n; i++) {
        t0 = now();
        if (xfer(fd, &c, 1) != 0)
            die("round trip");
        if (i >= WARMUP)
            t[i - WARMUP] = (now() - t0) * 1e6;
    }
    close(fd);
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    printf("rtt_median %.1f us\nrtt_p10 %.1f us\nrtt_p90 %.1f us\n", t[n / 2], t[n / 10],
           t[n * 9 / 10]);
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    int n = argc > 4 ? atoi(argv[4]) : 1000;

    if (argc < 4 || inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1 || atoi(argv[3]) <= 0 ||
        atoi(argv[3]) > 65535 || n < 10 || n > 10000000) {
        fprintf(stderr, "usage: tcp_pingpong serve|ping IP PORT [N]\n");
        return 2;
    }
    sa.sin_port = htons((unsigned short)atoi(argv[3]));
    if (strcmp(argv[1], "serve") == 0)
        return serve(&sa);
    if (strcmp(argv[1], "ping") == 0)
        return ping(&sa, n);
    fprintf(stderr, "usage: tcp_pingpong serve|ping IP PORT [N]\n");
    return 2;
}
