/* misc.c — hashing, clocks, randomness, strings and directories. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* 64-bit hash: 8-byte lanes with multiply-xorshift mixing, length folded in.
 * Stable on disk: changing it changes bloom filters and salt buckets. */
uint64_t util_hash64(const void *data, size_t n, uint64_t seed)
{
	const uint8_t *p = data;
	const uint64_t m = 0x9e3779b97f4a7c15ULL;
	uint64_t h = seed ^ (n * m);
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		h ^= util_hash_mix(v + m);
		h = (h << 27 | h >> 37) * m + 0x52dce729;
		p += 8;
		n -= 8;
	}
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t |= (uint64_t)p[i] << (8 * i);
	h ^= util_hash_mix(t + n + m);
	return util_hash_mix(h);
}

int64_t util_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

struct timespec util_deadline_us(int64_t us)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t ns = ts.tv_nsec + us % 1000000 * 1000;
	ts.tv_sec += (time_t)(us / 1000000 + ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	return ts;
}

int64_t util_mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void util_sleep_us(int64_t us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	util_wait_begin();
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	util_wait_end();
}

static _Atomic(util_wait_fn) wait_hook;

void util_wait_set_hook(util_wait_fn fn)
{
	atomic_store(&wait_hook, fn);
}

void util_wait_begin(void)
{
	util_wait_fn fn = atomic_load_explicit(&wait_hook, memory_order_relaxed);
	if (fn) {
		int e = errno; /* callers look at the errno of the call they wrap */
		fn(true);
		errno = e;
	}
}

void util_wait_end(void)
{
	util_wait_fn fn = atomic_load_explicit(&wait_hook, memory_order_relaxed);
	if (fn) {
		int e = errno;
		fn(false);
		errno = e;
	}
}

int util_random_bytes(void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int util_strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
		if (ca != cb || !ca)
			return ca - cb;
	}
}

int util_mkdir_p(const char *path, util_err *err)
{
	char tmp[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof tmp)
		return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "invalid directory \"%s\"", path);
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return util_err_set(err, UTIL_E_IO_ERROR, "could not create directory \"%s\": %s", tmp,
					    strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
		return util_err_set(err, UTIL_E_IO_ERROR, "could not create directory \"%s\": %s", tmp,
				    strerror(errno));
	return 0;
}

int util_fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

int64_t util_env_int(const char *name, int64_t dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	return end == v || errno ? dflt : (int64_t)x;
}
