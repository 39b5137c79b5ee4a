#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* Eight independent multiply chains a thread: the loop is bound by the core's multiply throughput, so two
 * threads on one core's hyperthreads share it, while threads on cores of their own do not. */
static volatile int stop;
static void *run(void *arg) {
	unsigned long long x[8], n = 0;
	for (int k = 0; k < 8; ++k) x[k] = (size_t)arg + k + 1;
	while (!stop) {
		for (int i = 0; i < 100000; ++i)
			for (int k = 0; k < 8; ++k) x[k] = x[k] * 6364136223846793005ULL + 1442695040888963407ULL;
		n += 100000;
	}
	unsigned long long s = 0;
	for (int k = 0; k < 8; ++k) s ^= x[k];
	*(unsigned long long *)arg = n + (s & 1);
	return 0;
}
int main(int argc, char **argv) {
	int t = atoi(argv[1]);
	pthread_t th[256]; unsigned long long res[256];
	for (int i = 0; i < t; ++i) { res[i] = i; pthread_create(&th[i], 0, run, &res[i]); }
	struct timespec ts = {1, 0}; nanosleep(&ts, 0); stop = 1;
	unsigned long long s = 0;
	for (int i = 0; i < t; ++i) pthread_join(th[i], 0), s += res[i];
	printf("threads %2d: %.1f M steps/s in all, %.1f a thread\n", t, s / 1e6, s / 1e6 / t);
	return 0;
}
