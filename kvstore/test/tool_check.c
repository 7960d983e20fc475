/* tool_check.c — runs the strata-kv tool (path in argv[1]) against a real
 * store: stats, dump, wal, verify on a healthy store, then verify after a
 * flipped bit must report the damage. Registered as ctest kv_tool. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kv.h"
#include "kv_fault.h"
#include "kvt_util.h"

static int run(const char *tool, const char *cmd, const char *arg, const char *expect)
{
	char line[8192];
	snprintf(line, sizeof(line), "%s %s %s 2>&1", tool, cmd, arg);
	FILE *p = popen(line, "r");
	if (!p)
		return -1;
	char out[65536];
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int st = pclose(p);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (expect && !strstr(out, expect)) {
		fprintf(stderr, "strata-kv %s: output lacks \"%s\":\n%s\n", cmd, expect, out);
		return -1;
	}
	return code;
}

static int find(const char *dir, const char *ext, char *out, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while (!found && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ext)) {
			snprintf(out, n, "%s/%s", dir, e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *tool = argv[1];
	char *dir = kvt_tmpdir("tool");
	kv_store *s = kvt_open(dir, NULL);
	static const char *const F[] = {"cf"};
	kv_table *t = kvt_table(s, "orders", 1, F);
	for (int i = 0; i < 500; i++) {
		char r[16];
		snprintf(r, sizeof(r), "row%04d", i);
		kvt_put(s, t, r, "cf", "q", 0, "hello");
	}
	kv_table_flush(t);
	kvt_put(s, t, "late", "cf", "q", 0, "in the log");
	kv_table_close(t);
	kv_store_close(s);
	char sst[4096], wal[4096];
	int fails = 0;
	fails += run(tool, "stats", dir, "table orders") != 0;
	fails += run(tool, "verify", dir, ": ok") != 0;
	if (!find(dir, ".sst", sst, sizeof(sst)) || !find(dir, ".wal", wal, sizeof(wal)))
		return 1;
	fails += run(tool, "dump", sst, "row0499/cf:q") != 0;
	fails += run(tool, "wal", wal, "records") != 0;
	struct stat sb;
	stat(sst, &sb);
	kv_fault_flip(sst, (uint64_t)sb.st_size / 3, 0x01);
	fails += run(tool, "verify", dir, "DAMAGED") != 1;
	fails += run(tool, "bogus", dir, "usage") != 2;
	kvt_rmdir(dir);
	free(dir);
	printf("%s\n", fails ? "strata-kv tool check FAILED" : "strata-kv tool check passed");
	return fails ? 1 : 0;
}
