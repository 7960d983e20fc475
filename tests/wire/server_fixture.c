/* server_fixture.c — starting and stopping a strata server for C test programs (see
 * server_fixture.h); mirrors tests/lib/fixture.sh. */
#include "server_fixture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef STRATA_SOURCE_DIR
#define STRATA_SOURCE_DIR "."
#endif

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static bool executable(const char *p)
{
	return p && *p && access(p, X_OK) == 0;
}

static bool find_bin(char *out, size_t len)
{
	char cand[4][512];
	int n = 0;
	snprintf(cand[n++], sizeof cand[0], "%s", getenv("STRATA_BIN") ? getenv("STRATA_BIN") : "");
	if (getenv("STRATA_BUILD"))
		snprintf(cand[n++], sizeof cand[0], "%s/server/strata", getenv("STRATA_BUILD"));
	snprintf(cand[n++], sizeof cand[0], "%s/build/asan/server/strata", STRATA_SOURCE_DIR);
	snprintf(cand[n++], sizeof cand[0], "%s/build/release/server/strata", STRATA_SOURCE_DIR);
	for (int i = 0; i < n; i++) {
		size_t cl = strlen(cand[i]);
		if (cl < len && executable(cand[i])) {
			memcpy(out, cand[i], cl + 1);
			return true;
		}
	}
	return false;
}

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof a;
	int port = -1;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &l) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static bool accepts(const char *host, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, host, &a.sin_addr);
	bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* True once the server answers a startup packet with anything but 57P03
 * ("the database system is starting up"): PostgreSQL accepts TCP before it
 * accepts sessions. */
static bool answers_startup(const char *host, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, host, &a.sin_addr);
	bool ready = false;
	struct timeval tv = {5, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	static const char pkt[] = "\0\0\0\x17\0\3\0\0user\0postgres\0\0";
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    send(fd, pkt, sizeof pkt - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof pkt - 1)) {
		char buf[512];
		ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
		if (n > 0) {
			buf[n] = '\0';
			ready = !(buf[0] == 'E' && memmem(buf, (size_t)n, "57P03", 5));
		}
	}
	if (fd >= 0)
		close(fd);
	return ready;
}

int fixture_init(fixture_server *fx, const char *name)
{
	memset(fx, 0, sizeof *fx);
	snprintf(fx->name, sizeof fx->name, "%s", name);
	snprintf(fx->host, sizeof fx->host, "%s",
		 getenv("STRATA_TEST_HOST") ? getenv("STRATA_TEST_HOST") : "127.0.0.1");
	const char *tmp = getenv("STRATA_TMP") ? getenv("STRATA_TMP") : "/tmp";
	snprintf(fx->dir, sizeof fx->dir, "%s/strata-%s.XXXXXX", tmp, name);
	if (!mkdtemp(fx->dir)) {
		fprintf(stderr, "fixture: mkdtemp %s: %s\n", fx->dir, strerror(errno));
		fx->dir[0] = '\0';
		return -1;
	}
	/* A PostgreSQL stand-in (tests/lib/pg_as_strata.sh) runs as another user. */
	chmod(fx->dir, 0755);
	snprintf(fx->log, sizeof fx->log, "%s/server.log", fx->dir);
	return 0;
}

static bool sanitizer_report(const char *log)
{
	FILE *f = fopen(log, "r");
	if (!f)
		return false;
	char line[4096];
	bool hit = false;
	while (!hit && fgets(line, sizeof line, f))
		hit = strstr(line, "ERROR: AddressSanitizer") || strstr(line, "ERROR: LeakSanitizer") ||
		      strstr(line, "runtime error:") || strstr(line, "SUMMARY: AddressSanitizer") ||
		      strstr(line, "SUMMARY: UndefinedBehaviorSanitizer") ||
		      strstr(line, "SUMMARY: LeakSanitizer");
	fclose(f);
	return hit;
}

static bool log_mentions(const char *log, const char *what)
{
	FILE *f = fopen(log, "r");
	if (!f)
		return false;
	char line[4096];
	bool hit = false;
	while (!hit && fgets(line, sizeof line, f))
		hit = strcasestr(line, what) != NULL;
	fclose(f);
	return hit;
}

static void keep_log(fixture_server *fx)
{
	char dest[300];
	const char *logs = getenv("STRATA_LOGS");
	if (logs && *logs)
		snprintf(dest, sizeof dest, "%s/servers", logs);
	else
		snprintf(dest, sizeof dest, "%s/build/test-logs/servers", STRATA_SOURCE_DIR);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s/%s-%d.log'", dest, fx->log, dest, fx->name,
		 fx->port);
	if (system(cmd) == 0) {
		snprintf(fx->kept, sizeof fx->kept, "%s/%s-%d.log", dest, fx->name, fx->port);
		fprintf(stderr, "fixture: server log kept: %s\n", fx->kept);
	}
}

static pid_t spawn(fixture_server *fx, const char *const *extra)
{
	char port[16], data[300];
	snprintf(port, sizeof port, "%d", fx->port);
	snprintf(data, sizeof data, "%s/data", fx->dir);
	const char *argv[64];
	int n = 0;
	argv[n++] = fx->bin;
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1";
	argv[n++] = "--port";
	argv[n++] = port;
	argv[n++] = "--data-dir";
	argv[n++] = data;
	for (int i = 0; extra && extra[i] && n < 62; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	/* A test that crashes must not leave its server behind. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	int fd = open(fx->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	int devnull = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	if (devnull >= 0)
		dup2(devnull, 0);
	setenv("ASAN_OPTIONS",
	       getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "detect_leaks=1:abort_on_error=0", 1);
	setenv("UBSAN_OPTIONS",
	       getenv("UBSAN_OPTIONS") ? getenv("UBSAN_OPTIONS") : "print_stacktrace=1:halt_on_error=1", 1);
	execv(fx->bin, (char *const *)argv);
	fprintf(stderr, "fixture: exec %s: %s\n", fx->bin, strerror(errno));
	_exit(127);
}

int fixture_start(fixture_server *fx, const char *const *extra_args)
{
	const char *ext = getenv("STRATA_TEST_PORT");
	if (ext && *ext) {
		fx->external = true;
		fx->port = atoi(ext);
		for (int i = 0; i < 100; i++) {
			if (accepts(fx->host, fx->port))
				return 0;
			sleep_ms(50);
		}
		fprintf(stderr, "fixture: no server accepts connections on %s:%d\n", fx->host, fx->port);
		return -1;
	}
	snprintf(fx->host, sizeof fx->host, "127.0.0.1");
	if (!find_bin(fx->bin, sizeof fx->bin)) {
		char srv[600];
		struct stat st;
		snprintf(srv, sizeof srv, "%s/server", STRATA_SOURCE_DIR);
		if (stat(srv, &st) != 0) {
			fprintf(stderr, "fixture: this tree has no server/ yet; nothing to start\n");
			return FIXTURE_SKIP;
		}
		fprintf(stderr, "fixture: no strata binary (set STRATA_BIN or build first: make asan)\n");
		return -1;
	}
	int start_timeout_ms = env_int("FIX_START_TIMEOUT", 60) * 1000;
	for (int attempt = 0; attempt < 5; attempt++) {
		fx->port = free_port();
		if (fx->port < 0)
			return -1;
		truncate(fx->log, 0);
		fx->pid = spawn(fx, extra_args);
		if (fx->pid < 0) {
			fx->pid = 0;
			return -1;
		}
		for (int waited = 0; waited < start_timeout_ms; waited += 50) {
			int status;
			if (waitpid(fx->pid, &status, WNOHANG) == fx->pid) {
				fx->pid = 0;
				break;
			}
			if (accepts("127.0.0.1", fx->port) && answers_startup("127.0.0.1", fx->port))
				return 0;
			sleep_ms(50);
		}
		if (fx->pid) {
			fprintf(stderr, "fixture: %s did not accept connections on port %d in time\n",
				fx->bin, fx->port);
			fixture_stop(fx, true);
			return -1;
		}
		if (!log_mentions(fx->log, "in use"))
			break; /* a real failure, not a lost race for the port */
	}
	fprintf(stderr, "fixture: %s exited during startup\n", fx->bin);
	keep_log(fx);
	return -1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int fixture_terminate(fixture_server *fx)
{
	if (fx->external || !fx->pid)
		return 0;
	int rc = 0, status = 0;
	kill(fx->pid, SIGTERM);
	int timeout_ms = env_int("FIX_STOP_TIMEOUT", 15) * 1000;
	bool exited = false;
	for (int waited = 0; waited < timeout_ms; waited += 50) {
		if (waitpid(fx->pid, &status, WNOHANG) == fx->pid) {
			exited = true;
			break;
		}
		sleep_ms(50);
	}
	if (!exited) {
		fprintf(stderr, "fixture: server %d ignored SIGTERM for %d s; killing it\n", (int)fx->pid,
			timeout_ms / 1000);
		kill(fx->pid, SIGKILL);
		waitpid(fx->pid, &status, 0);
		rc = -1;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "fixture: server exited with status %d\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		rc = -1;
	}
	fx->pid = 0;
	if (sanitizer_report(fx->log)) {
		fprintf(stderr, "fixture: sanitizer report in the server log\n");
		rc = -1;
	}
	return rc;
}

int fixture_stop(fixture_server *fx, bool keep_log_file)
{
	int rc = fixture_terminate(fx);
	const char *k = getenv("FIX_KEEP");
	if (!fx->external && (rc != 0 || keep_log_file || (k && strcmp(k, "always") == 0)))
		keep_log(fx);
	if (fx->dir[0])
		nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	fx->dir[0] = '\0';
	return rc;
}

const char *fixture_conninfo(const fixture_server *fx, const char *extra, char *buf, size_t len)
{
	snprintf(buf, len, "host=%s port=%d dbname=postgres connect_timeout=10 %s", fx->host, fx->port,
		 extra ? extra : "");
	return buf;
}

const char *fixture_path(const fixture_server *fx, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", fx->dir, name);
	return buf;
}

const char *fixture_write_file(const fixture_server *fx, const char *name, const char *text, char *buf,
			       size_t len)
{
	fixture_path(fx, name, buf, len);
	FILE *f = fopen(buf, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	chmod(buf, 0644);
	return buf;
}
