/* fuzz_replay.c - runs the committed fuzz corpus through the fuzz entry point
 * without libFuzzer, so `make check` keeps testing every seed (and every
 * crash reproducer added later) with the normal compiler.
 *
 * Usage: fuzz_replay [file-or-dir ...]; with no argument it reads
 * $SPX_TOP_SRCDIR/test/fuzz/corpus (SPX_FUZZ_CORPUS names another directory
 * there: fuzz_tree_replay reads corpus-tree). A crash or abort fails the test.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef SPX_FUZZ_CORPUS
#define SPX_FUZZ_CORPUS "corpus"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int replay_path(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return replay_file(path);
    }
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char full[4096];
        snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
        if (replay_path(full, count) < 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            if (replay_path(argv[i], &count) < 0)
                rc = 1;
    } else {
        const char *top = getenv("SPX_TOP_SRCDIR");
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s/test/fuzz/" SPX_FUZZ_CORPUS, top ? top : ".");
        if (replay_path(dir, &count) < 0)
            rc = 1;
    }
    printf("fuzz_replay: %d inputs replayed\n", count);
    if (count == 0) {
        fprintf(stderr, "fuzz_replay: no inputs found\n");
        return 1;
    }
    return rc;
}
