/* io.c — a connection's byte stream: buffered reads and writes over a socket (calls that must not
 * block pass MSG_DONTWAIT) or a TLS session (non-blocking socket), waiting with poll() on the
 * socket and the server's shutdown pipe, with deadlines; or, for a plain socket waiting for the
 * next request without a deadline, blocked in recv() itself. */
#include "pgw_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define RBUF_DEFAULT (64 * 1024)
/* A write to a client that stopped reading gets this long once the server
 * is shutting down. */
#define STOP_GRACE_US (1000 * 1000)

void pgw_io_init(pgw_io *io, int fd, int stop_fd, const atomic_bool *stopping)
{
	memset(io, 0, sizeof *io);
	io->fd = fd;
	io->stop_fd = stop_fd;
	io->stopping = stopping;
	atomic_init(&io->parked, false);
	io->rcap = RBUF_DEFAULT;
	io->rbuf = util_xmalloc(io->rcap);
	util_buf_init(&io->out);
}

void pgw_io_free(pgw_io *io)
{
	if (io->ssl) {
		/* A close_notify if the peer is still there; never wait for it. */
		if (!io->broken) {
			ERR_clear_error();
			SSL_shutdown(io->ssl);
		}
		SSL_free(io->ssl);
		io->ssl = NULL;
	}
	free(io->rbuf);
	io->rbuf = NULL;
	util_buf_free(&io->out);
}

enum { R_WOULDBLOCK = -2, R_ERROR = -1, R_EOF = 0 };

/* One read or write attempt: bytes moved, R_EOF, R_ERROR, or R_WOULDBLOCK
 * with *events set to what to wait for. */
static ssize_t ssl_result(SSL *ssl, int n, short *events)
{
	if (n > 0)
		return n;
	switch (SSL_get_error(ssl, n)) {
	case SSL_ERROR_WANT_READ:
		*events = POLLIN;
		return R_WOULDBLOCK;
	case SSL_ERROR_WANT_WRITE:
		*events = POLLOUT;
		return R_WOULDBLOCK;
	case SSL_ERROR_ZERO_RETURN:
		return R_EOF;
	case SSL_ERROR_SYSCALL:
		if (errno == EINTR)
			return R_WOULDBLOCK; /* retry after a zero-wait poll */
		return n == 0 ? R_EOF : R_ERROR;
	default:
		return R_ERROR;
	}
}

/* wait: block in recv() (plain sockets only). */
static ssize_t raw_read(pgw_io *io, void *buf, size_t n, short *events, bool wait)
{
	*events = POLLIN;
	if (io->ssl) {
		ERR_clear_error();
		int r = SSL_read(io->ssl, buf, (int)UTIL_MIN(n, (size_t)INT_MAX));
		return ssl_result(io->ssl, r, events);
	}
	for (;;) {
		if (wait)
			util_wait_begin();
		ssize_t r = recv(io->fd, buf, n, wait ? 0 : MSG_DONTWAIT);
		if (wait)
			util_wait_end();
		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return R_WOULDBLOCK;
		return errno == ECONNRESET ? R_EOF : R_ERROR;
	}
}

static ssize_t raw_write(pgw_io *io, const void *buf, size_t n, short *events)
{
	*events = POLLOUT;
	if (io->ssl) {
		ERR_clear_error();
		int r = SSL_write(io->ssl, buf, (int)UTIL_MIN(n, (size_t)INT_MAX));
		return ssl_result(io->ssl, r, events);
	}
	for (;;) {
		ssize_t r = send(io->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return R_WOULDBLOCK;
		return R_ERROR;
	}
}

/* Waits until the socket is ready for events, the deadline passes, or (if
 * watch_stop) the server starts shutting down. */
static pgw_io_status wait_io(pgw_io *io, short events, int64_t deadline, bool watch_stop)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = io->fd, .events = events},
				      {.fd = io->stop_fd, .events = POLLIN}};
		int np = watch_stop && io->stop_fd >= 0 ? 2 : 1;
		int timeout = -1;
		if (deadline) {
			int64_t left = deadline - util_mono_us();
			if (left <= 0)
				return PGW_IO_TIMEOUT;
			timeout = (int)UTIL_MIN((left + 999) / 1000, (int64_t)INT_MAX);
		}
		util_wait_begin();
		int rc = poll(p, (nfds_t)np, timeout);
		util_wait_end();
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return PGW_IO_ERROR;
		}
		if (rc == 0)
			continue; /* re-checks the deadline */
		if (np == 2 && (p[1].revents & POLLIN))
			return PGW_IO_STOP;
		if (p[0].revents)
			return PGW_IO_OK; /* ready, or an error the next call reports */
	}
}

pgw_io_status pgw_io_fill(pgw_io *io, size_t n, int64_t deadline)
{
	while (io->rend - io->rstart < n) {
		if (io->out.len && pgw_io_deferring(io)) {
			io->replied = false; /* the next step starts readable */
			atomic_store(&io->parked, true);
			if (io->stopping && atomic_load(io->stopping)) {
				atomic_store(&io->parked, false);
				return PGW_IO_STOP;
			}
			return PGW_IO_WAIT;
		}
		if (io->out.len) {
			pgw_io_status st = pgw_io_flush(io, deadline);
			if (st != PGW_IO_OK)
				return st;
		}
		/* Room for more: slide the data to the front, or grow when the
		 * buffer is full of the message being read. */
		if (io->rend == io->rcap) {
			if (io->rstart > 0) {
				memmove(io->rbuf, io->rbuf + io->rstart, io->rend - io->rstart);
				io->rend -= io->rstart;
				io->rstart = 0;
			} else {
				size_t cap = io->rcap * 2;
				if (cap > n)
					cap = n;
				io->rbuf = util_xrealloc(io->rbuf, cap);
				io->rcap = cap;
			}
		} else if (io->rstart > 0 && io->rcap - io->rstart < n) {
			/* The message would not fit after rstart: compact now. */
			memmove(io->rbuf, io->rbuf + io->rstart, io->rend - io->rstart);
			io->rend -= io->rstart;
			io->rstart = 0;
		}
		short ev;
		bool wait = false;
		if (io->replied && !io->ssl && io->rend == io->rstart) {
			/* Just answered with nothing buffered: a read now would
			 * almost always find nothing (a wasted syscall per
			 * statement), so wait for the request first: in recv()
			 * itself when no deadline needs poll()'s timeout. */
			io->replied = false;
			if (io->yield) {
				/* The pool's epoll set waits instead (pool.c);
				 * parked as for the blocking read below. */
				atomic_store(&io->parked, true);
				if (io->stopping && atomic_load(io->stopping)) {
					atomic_store(&io->parked, false);
					return PGW_IO_STOP;
				}
				return PGW_IO_WAIT;
			}
			if (!deadline) {
				wait = true;
				atomic_store(&io->parked, true);
				/* Shutdown stores the flag before looking at
				 * parked: one of the two sees the other. */
				if (io->stopping && atomic_load(io->stopping)) {
					atomic_store(&io->parked, false);
					return PGW_IO_STOP;
				}
			} else {
				pgw_io_status st = wait_io(io, POLLIN, deadline, true);
				if (st != PGW_IO_OK)
					return st;
			}
		}
		ssize_t r = raw_read(io, io->rbuf + io->rend, io->rcap - io->rend, &ev, wait);
		if (wait) {
			atomic_store(&io->parked, false);
			if (r == R_EOF && io->stopping && atomic_load(io->stopping))
				return PGW_IO_STOP; /* pgw_io_unpark */
		}
		if (r > 0) {
			io->rend += (size_t)r;
			io->replied = false;
			continue;
		}
		if (r == R_EOF)
			return PGW_IO_EOF;
		if (r == R_ERROR)
			return PGW_IO_ERROR;
		if (io->yield && ev == POLLIN) {
			atomic_store(&io->parked, true);
			if (io->stopping && atomic_load(io->stopping)) {
				atomic_store(&io->parked, false);
				return PGW_IO_STOP;
			}
			return PGW_IO_WAIT;
		}
		pgw_io_status st = wait_io(io, ev, deadline, true);
		if (st != PGW_IO_OK)
			return st;
	}
	return PGW_IO_OK;
}

void pgw_io_consume(pgw_io *io, size_t n)
{
	UTIL_DASSERT(n <= io->rend - io->rstart, "consume %zu", n);
	io->rstart += n;
	if (io->rstart == io->rend)
		io->rstart = io->rend = 0;
	/* Give back the memory of a big message once it is consumed. */
	size_t left = io->rend - io->rstart;
	if (io->rcap > 4 * RBUF_DEFAULT && left <= RBUF_DEFAULT) {
		uint8_t *b = util_xmalloc(RBUF_DEFAULT);
		memcpy(b, io->rbuf + io->rstart, left);
		free(io->rbuf);
		io->rbuf = b;
		io->rcap = RBUF_DEFAULT;
		io->rstart = 0;
		io->rend = left;
	}
}

void pgw_io_unpark(pgw_io *io)
{
	if (atomic_load(&io->parked))
		shutdown(io->fd, SHUT_RD);
}

bool pgw_io_deferring(const pgw_io *io)
{
	return io->defer && io->yield && !io->ssl && !io->broken && io->rend == io->rstart;
}

static void out_reset(pgw_io *io)
{
	io->out.len = 0;
	/* Output buffers grow with big rows; do not keep megabytes per idle
	 * connection. */
	if (io->out.cap > (1u << 20))
		util_buf_free(&io->out);
}

void pgw_io_sent(pgw_io *io, size_t n)
{
	if (n >= io->out.len) {
		out_reset(io);
		return;
	}
	memmove(io->out.data, io->out.data + n, io->out.len - n);
	io->out.len -= n;
}

pgw_io_status pgw_io_flush(pgw_io *io, int64_t deadline)
{
	size_t off = 0;
	bool watch_stop = true;
	pgw_io_status st = PGW_IO_OK;
	if (io->broken) {
		st = PGW_IO_ERROR;
		goto done;
	}
	while (off < io->out.len) {
		short ev;
		ssize_t r = raw_write(io, io->out.data + off, io->out.len - off, &ev);
		if (r > 0) {
			off += (size_t)r;
			continue;
		}
		if (r != R_WOULDBLOCK) {
			st = PGW_IO_ERROR;
			break;
		}
		st = wait_io(io, ev, deadline, watch_stop);
		if (st == PGW_IO_STOP) {
			/* Shutting down: give a slow reader a moment for the
			 * final messages, then give up on it. */
			watch_stop = false;
			int64_t grace = util_mono_us() + STOP_GRACE_US;
			if (!deadline || deadline > grace)
				deadline = grace;
			st = PGW_IO_OK;
			continue;
		}
		if (st != PGW_IO_OK)
			break;
	}
done:
	if (st != PGW_IO_OK)
		io->broken = true;
	if (off)
		io->replied = true;
	out_reset(io);
	return st;
}

pgw_io_status pgw_io_write_now(pgw_io *io, const void *p, size_t n, int64_t deadline)
{
	util_buf_append(&io->out, p, n);
	return pgw_io_flush(io, deadline);
}

pgw_io_status pgw_io_start_tls(pgw_io *io, SSL_CTX *ctx, int64_t deadline, char *why, size_t whylen)
{
	why[0] = '\0';
	/* OpenSSL reads and writes without MSG_DONTWAIT. */
	int fl = fcntl(io->fd, F_GETFL);
	if (fl < 0 || fcntl(io->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		snprintf(why, whylen, "could not set the socket non-blocking: %s", strerror(errno));
		return PGW_IO_ERROR;
	}
	io->ssl = SSL_new(ctx);
	if (!io->ssl || SSL_set_fd(io->ssl, io->fd) != 1) {
		snprintf(why, whylen, "could not initialize SSL connection");
		return PGW_IO_ERROR;
	}
	for (;;) {
		ERR_clear_error();
		int r = SSL_accept(io->ssl);
		if (r == 1)
			return PGW_IO_OK;
		short ev;
		ssize_t x = ssl_result(io->ssl, r, &ev);
		if (x != R_WOULDBLOCK) {
			unsigned long e = ERR_get_error();
			if (e)
				ERR_error_string_n(e, why, whylen);
			else
				snprintf(why, whylen, "%s",
					 x == R_EOF ? "EOF during handshake" : "handshake failed");
			io->broken = true;
			return x == R_EOF ? PGW_IO_EOF : PGW_IO_ERROR;
		}
		pgw_io_status st = wait_io(io, ev, deadline, true);
		if (st != PGW_IO_OK) {
			snprintf(why, whylen, "%s",
				 st == PGW_IO_TIMEOUT ? "handshake timed out" : "handshake interrupted");
			io->broken = true;
			return st;
		}
	}
}
