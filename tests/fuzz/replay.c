/*
 * tests/fuzz/replay.c - main() for a fuzz harness outside libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file of the harness's repository
 * corpus (tests/fuzz/corpus/T, T from the program name test_fuzz_T) or of
 * the files and directories given as arguments. A seed that crashes, leaks
 * or breaks a property aborts the program (the sanitizers and FUZZ_CHECK
 * see to that); otherwise it prints cmocka's summary line, counting the
 * whole corpus as one test, for tests/run.sh.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static size_t n_files;

static int
run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, len = 0, got;
    unsigned char *buf;

    if (!f) {
        fprintf(stderr, "could not open %s\n", path);
        return -1;
    }
    buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    /* libFuzzer hands the harness an exact-size copy: so does this. */
    unsigned char *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    n_files++;
    return 0;
}

static int
run_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), rc = 0;
    if (n < 0) {
        fprintf(stderr, "could not read %s\n", dir);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(path, &sb) == 0 &&
            S_ISREG(sb.st_mode) && run_file(path) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

static int
run_path(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "no such corpus: %s\n", path);
        return -1;
    }
    return S_ISDIR(sb.st_mode) ? run_dir(path) : run_file(path);
}

int
main(int argc, char **argv)
{
    int rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            if (run_path(argv[i]) != 0)
                rc = 1;
    } else {
        const char *base = strrchr(argv[0], '/');
        const char *t = strstr(base ? base : argv[0], "test_fuzz_");
        char dir[512];
        if (!t) {
            fprintf(stderr, "usage: test_fuzz_T [file|dir ...]\n");
            return 2;
        }
        snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s",
                 t + strlen("test_fuzz_"));
        rc = run_path(dir) != 0;
    }
    printf("replayed %zu inputs\n", n_files);
    if (rc || n_files == 0) {
        printf("[  FAILED  ] 1 test(s), listed below:\n");
        return 1;
    }
    printf("[  PASSED  ] 1 test(s).\n");
    return 0;
}
