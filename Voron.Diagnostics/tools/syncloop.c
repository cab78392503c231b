/* syncloop: the open loop's durable write without any engine (docs/results/2026-11-27-core-gaps.md).
 *
 * Writes 4 KiB with pwrite and fdatasync's it, on a fixed schedule (RATE per second), into a file
 * zero-filled and synced beforehand (as Voron's journal is), and measures each write from its
 * scheduled start (no coordinated omission, as merge's open loop does). Prints p50/p99/p99.9/max
 * and every write whose pwrite+fdatasync, or whose wake-up after its due time, took over STALL_MS,
 * with its time: the first is the disk (or the file system), the second the CPU scheduler.
 *
 *   gcc -O2 -o /tmp/syncloop Voron.Diagnostics/tools/syncloop.c
 *   /tmp/syncloop DIR RATE SECONDS [STALL_MS] [fresh]
 *
 * "fresh": do not zero-fill: write into newly allocated space at the end of a growing file.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s DIR RATE SECONDS [STALL_MS] [fresh]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    double rate = atof(argv[2]), seconds = atof(argv[3]);
    double stall = argc > 4 ? atof(argv[4]) : 10.0;
    int fresh = argc > 5 && strcmp(argv[5], "fresh") == 0;
    long count = (long)(rate * seconds);
    char path[4096];
    snprintf(path, sizeof path, "%s/syncloop.%d", dir, getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror("open"); return 1; }
    static char block[4096];
    memset(block, 'v', sizeof block);
    long bytes = count * 4096L;
    if (!fresh) {
        static char zeros[1 << 20];
        for (long off = 0; off < bytes; off += sizeof zeros)
            if (pwrite(fd, zeros, sizeof zeros, off) < 0) { perror("pwrite"); return 1; }
        fdatasync(fd);
    }
    double *latency = malloc(sizeof(double) * count);
    double *service = malloc(sizeof(double) * count);
    double *wake = malloc(sizeof(double) * count);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    double start = now_ms();
    long interval_ns = (long)(1e9 / rate);
    long stalls = 0;
    double prev_end = 0;
    for (long i = 0; i < count; i++) {
        double due = start + i * 1e3 / rate;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        next.tv_nsec += interval_ns;
        while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
        double begin = now_ms();
        if (pwrite(fd, block, sizeof block, i * 4096L) < 0) { perror("pwrite"); return 1; }
        if (fdatasync(fd) < 0) { perror("fdatasync"); return 1; }
        double end = now_ms();
        latency[i] = end - due;
        service[i] = end - begin;
        wake[i] = begin - (prev_end > due ? prev_end : due); /* late beyond any backlog of slow syncs */
        prev_end = end;
        if (service[i] > stall || wake[i] > stall) {
            stalls++;
            printf("stall at %.3f s (monotonic %.3f s): %.2f ms from schedule: woke %.2f ms late, %.2f ms in pwrite+fdatasync\n",
                   (due - start) / 1e3, due / 1e3, latency[i], wake[i], service[i]);
        }
    }
    qsort(latency, count, sizeof(double), compare);
    qsort(service, count, sizeof(double), compare);
    qsort(wake, count, sizeof(double), compare);
    printf("%s, %.0f/s for %.0f s, %ld writes: from schedule p50 %.3f p99 %.3f p99.9 %.3f max %.2f ms; "
           "pwrite+fdatasync p50 %.3f p99 %.3f p99.9 %.3f max %.2f ms; woke late p99 %.3f max %.2f ms; %ld writes whose sync or wake-up took over %.0f ms\n",
           fresh ? "fresh space" : "zero-filled space", rate, seconds, count,
           latency[count / 2], latency[count * 99 / 100], latency[count * 999 / 1000], latency[count - 1],
           service[count / 2], service[count * 99 / 100], service[count * 999 / 1000], service[count - 1],
           wake[count * 99 / 100], wake[count - 1], stalls, stall);
    close(fd);
    unlink(path);
    return 0;
}
