/* fuzz_util.c — scratch directories and a result sink for the fuzz targets. */
#include "fuzz_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dirs[16];
static int ndirs;
static volatile uint8_t sink;

static void cleanup(void)
{
	for (int i = 0; i < ndirs; i++)
		fuzz_rm_rf(dirs[i]);
}

char *fuzz_tmpdir(const char *name)
{
	struct stat st;
	const char *base = stat("/dev/shm", &st) == 0 ? "/dev/shm"
			   : getenv("TMPDIR")         ? getenv("TMPDIR")
						      : "/tmp";
	char *d = malloc(512);
	snprintf(d, 512, "%s/strata-fuzz-%s-%d-XXXXXX", base, name, (int)getpid());
	if (!mkdtemp(d)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	if (ndirs == 0)
		atexit(cleanup);
	if (ndirs < 16)
		dirs[ndirs++] = d;
	return d;
}

void fuzz_rm_rf(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[1024];
			snprintf(p, sizeof p, "%s/%s", path, e->d_name);
			fuzz_rm_rf(p);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

int fuzz_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = n ? fwrite(p, 1, n, f) : 0;
	return fclose(f) == 0 && w == n ? 0 : -1;
}

void fuzz_consume(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t x = 0;
	for (size_t i = 0; i < n; i++)
		x ^= b[i];
	sink ^= x;
}
