/* app.c: a C MPI program for 2 ranks that makes a known number of each
 * call counter.c counts, and more calls between MPI_Pcontrol(0) and
 * MPI_Pcontrol(1) that a tool must not count.
 *
 *     app [thread] [reset]
 *
 * thread starts MPI with MPI_Init_thread instead of MPI_Init. reset makes a
 * warm-up (one MPI_Barrier, one MPI_Allreduce) and then MPI_Pcontrol(2),
 * which sets counter.c's counters back to zero, MPI_Init's included.
 *
 * What each rank makes while counting is on (after the warm-up):
 *
 *     MPI_Init or MPI_Init_thread  1 (0 after reset)
 *     MPI_Finalize                 1
 *     MPI_Send                    10, of 100 doubles (8000 bytes)
 *     MPI_Recv                    10
 *     MPI_Isend                    7: 4 of 50 ints and 3 of 25 (1100 bytes)
 *     MPI_Irecv                    7
 *     MPI_Wait                     6
 *     MPI_Waitall                  4
 *     MPI_Barrier                  3
 *     MPI_Bcast                    3
 *     MPI_Allreduce                5
 *     MPI_Reduce                   2
 *
 * Each rank checks what it receives and aborts the job on a wrong value. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

enum { PINGS = 10, PING_LEN = 100, WAITALLS = 4, WAITALL_LEN = 50, WAITS = 3, WAIT_LEN = 25 };

static int rank, peer;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "app rank %d: wrong %s\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* pingpong: rank 0 sends, rank 1 sends back what it got plus one. */
static void pingpong(int rounds) {
    double buf[PING_LEN];
    for (int r = 0; r < rounds; r++) {
        if (rank == 0) {
            for (int i = 0; i < PING_LEN; i++)
                buf[i] = r + i;
            MPI_Send(buf, PING_LEN, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, PING_LEN, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check(buf[PING_LEN - 1] == r + PING_LEN, "pong");
        } else {
            MPI_Recv(buf, PING_LEN, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check(buf[PING_LEN - 1] == r + PING_LEN - 1, "ping");
            for (int i = 0; i < PING_LEN; i++)
                buf[i] += 1;
            MPI_Send(buf, PING_LEN, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
        }
    }
}

/* exchange: both ranks send n ints to each other at once, completing
 * with one MPI_Waitall or with two MPI_Waits. */
static void exchange(int rounds, int n, int waitall) {
    int out[WAITALL_LEN], in[WAITALL_LEN];
    MPI_Request reqs[2];
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++)
            out[i] = 1000 * rank + r + i;
        MPI_Irecv(in, n, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(out, n, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[1]);
        if (waitall) {
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        } else {
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        }
        check(in[n - 1] == 1000 * peer + r + n - 1, "exchange");
    }
}

/* collectives: barriers, broadcasts from rank 0, sums to all and sums to
 * rank 1. */
static void collectives(int barriers, int bcasts, int allreduces, int reduces) {
    for (int i = 0; i < barriers; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < bcasts; i++) {
        int v = rank == 0 ? 42 + i : -1;
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        check(v == 42 + i, "broadcast");
    }
    for (int i = 0; i < allreduces; i++) {
        int v = rank + i, sum;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(sum == 1 + 2 * i, "allreduce");
    }
    for (int i = 0; i < reduces; i++) {
        int v = rank + 1, sum = 0;
        MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
        check(rank != 1 || sum == 3, "reduce");
    }
}

int main(int argc, char **argv) {
    int thread = 0, reset = 0, size, provided;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "thread") == 0)
            thread = 1;
        else if (strcmp(argv[i], "reset") == 0)
            reset = 1;
        else {
            fprintf(stderr, "app: unknown argument %s: want thread and/or reset\n", argv[i]);
            return 2;
        }
    }
    if (thread)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "app: runs on 2 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;

    if (reset) {
        collectives(1, 0, 1, 0);
        MPI_Pcontrol(2);
    }

    pingpong(PINGS);
    exchange(WAITALLS, WAITALL_LEN, 1);
    exchange(WAITS, WAIT_LEN, 0);
    collectives(2, 3, 5, 2);

    /* Not counted: one more of everything. */
    MPI_Pcontrol(0);
    pingpong(1);
    exchange(1, WAITALL_LEN, 1);
    exchange(1, WAIT_LEN, 0);
    collectives(1, 1, 1, 1);
    MPI_Pcontrol(1);

    collectives(1, 0, 0, 0);
    printf("app rank %d: ok\n", rank);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
