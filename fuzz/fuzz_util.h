/*
 * fuzz_util.h — helpers shared by the fuzz targets in fuzz/: scratch
 * directories that go away at exit, and a sink that keeps results "used".
 */
#ifndef STRATA_FUZZ_UTIL_H
#define STRATA_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A new empty directory under /dev/shm (or $TMPDIR, /tmp), removed with its
 * contents at exit. The string lives until exit. */
char *fuzz_tmpdir(const char *name);
/* Removes a file or a directory tree. */
void fuzz_rm_rf(const char *path);
/* Writes n bytes to path (truncating); 0 or -1. */
int fuzz_write_file(const char *path, const void *p, size_t n);
/* Reads bytes so the compiler cannot drop the code that produced them. */
void fuzz_consume(const void *p, size_t n);

#endif
