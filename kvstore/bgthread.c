/*
 * bgthread.c — a background thread that sleeps in timed waits and stops
 * when asked (kv_bg in kv_int.h): the etcd horizon publisher, the etcd
 * background GC and a large commit's lease renewal share this one shape
 * of start, sleep and stop.
 */
#include <time.h>

#include "kv_int.h"

bool kv_bg_start(kv_bg *bg, void *(*fn)(void *), void *arg)
{
	bg->stop = false;
	pthread_mutex_init(&bg->mu, NULL);
	pthread_cond_init(&bg->cv, NULL);
	bg->running = pthread_create(&bg->thread, NULL, fn, arg) == 0;
	if (!bg->running) {
		pthread_cond_destroy(&bg->cv);
		pthread_mutex_destroy(&bg->mu);
	}
	return bg->running;
}

bool kv_bg_sleep(kv_bg *bg, int64_t us)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	int64_t ns = (int64_t)until.tv_nsec + (us % 1000000) * 1000;
	until.tv_sec += (time_t)(us / 1000000 + ns / 1000000000);
	until.tv_nsec = (long)(ns % 1000000000);
	pthread_mutex_lock(&bg->mu);
	/* The flag is read under mu before every wait, so a stop signalled
	 * while the thread was working is never missed. */
	while (!bg->stop && pthread_cond_timedwait(&bg->cv, &bg->mu, &until) == 0)
		;
	bool go = !bg->stop;
	pthread_mutex_unlock(&bg->mu);
	return go;
}

bool kv_bg_stopping(kv_bg *bg)
{
	pthread_mutex_lock(&bg->mu);
	bool stop = bg->stop;
	pthread_mutex_unlock(&bg->mu);
	return stop;
}

void kv_bg_stop(kv_bg *bg)
{
	if (!bg->running)
		return;
	pthread_mutex_lock(&bg->mu);
	bg->stop = true;
	pthread_cond_signal(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
	pthread_join(bg->thread, NULL);
	bg->running = false;
	pthread_cond_destroy(&bg->cv);
	pthread_mutex_destroy(&bg->mu);
}
