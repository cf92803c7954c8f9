/* Shared by the C twins of gompi-bench's measurements: OSU's flags (-m, -s,
 * -i, -x), the same defaults and the same output layout, so that one parser
 * (gompi's bench/table) reads the tables of gompi and of any MPI library.
 * Header-only (static inline, so that a program need not use every helper):
 * each program is one file plus this one (and coll.h for the collectives).
 */
#ifndef GOMPI_BENCH_H
#define GOMPI_BENCH_H

#include <mpi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MAX_SIZE (4L << 20)
#define LARGE_SIZE (64L << 10) /* above it the large-message counts apply */
#define MAX_SIZE (1L << 30)
#define MAX_SIZES 64
#define TAG_DATA 1
#define TAG_ACK 2

struct counts {
    int iters, warmup, large_iters, large_warmup;
};

struct options {
    long sizes[MAX_SIZES];
    int nsizes;
    struct counts c;
    long large; /* the size above which the large-message counts apply */
    int full;   /* -f: the minimum and maximum over the ranks too */
    int cold;   /* -c: each size on a fresh communicator, from its first call */
};

/* A measurement's identity and defaults, as in gompi's bench/osu. */
struct measurement {
    const char *name, *unit, *about, *column;
    long min_size;
    long default_max; /* the largest size without -m or -s; 0: DEFAULT_MAX_SIZE */
    struct counts defaults;
    long large_size; /* above it the large-message counts apply; 0: LARGE_SIZE */
    int no_sizes;    /* no -m or -s (barrier): one row, keyed by the rank count */
    int stats;       /* an average over the ranks (a collective): -f adds their min and max, -c runs it cold */
    const char *const *more; /* headings of the columns after the value's, NULL-terminated; NULL for none */
};

static inline int bench_rank(void) {
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* usage_error reports a bad flag once (every rank parses the same flags)
 * and ends the job with status 2. */
static inline void usage_error(const char *name, const char *msg, const char *arg) {
    if (bench_rank() == 0)
        fprintf(stderr, "%s: %s%s%s\n", name, msg, arg ? ": " : "", arg ? arg : "");
    MPI_Finalize();
    exit(2);
}

/* parse_size reads a byte count with an optional binary suffix K or M. */
static inline int parse_size(const char *s, long *out) {
    char *end;
    long mult = 1;
    if (*s == '\0')
        return -1;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (end == s || errno != 0 || n < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        mult = 1L << 10, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1L << 20, end++;
    if (*end != '\0' || n > MAX_SIZE / mult)
        return -1;
    *out = n * mult;
    return 0;
}

static inline void add_size(const struct measurement *m, struct options *o, long s) {
    if (o->nsizes == MAX_SIZES)
        usage_error(m->name, "too many sizes", NULL);
    o->sizes[o->nsizes++] = s;
}

/* parse_range reads -m [MIN:]MAX (or MIN:) into sizes by powers of two. */
static inline void parse_range(const struct measurement *m, struct options *o, const char *arg) {
    long lo = 0, hi = m->default_max > 0 ? m->default_max : DEFAULT_MAX_SIZE;
    if (arg) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", arg);
        char *colon = strchr(buf, ':');
        const char *a = colon ? buf : "", *b = colon ? colon + 1 : buf;
        if (colon)
            *colon = '\0';
        if ((*a && parse_size(a, &lo)) || (*b && parse_size(b, &hi)) || hi < lo)
            usage_error(m->name, "-m wants [MIN:]MAX in bytes with MIN <= MAX", arg);
    }
    if (lo < m->min_size)
        lo = m->min_size;
    if (hi < lo)
        usage_error(m->name, "-m: this measurement starts at 1 byte", arg);
    for (long s = lo; s <= hi; s = s ? s * 2 : 1)
        add_size(m, o, s);
}

/* parse_list reads -s 0,1,64,1K,4M: increasing sizes. */
static inline void parse_list(const struct measurement *m, struct options *o, const char *arg) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save, *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        long s;
        if (parse_size(f, &s))
            usage_error(m->name, "-s wants sizes in bytes such as 0,1,64,1K,4M", arg);
        if (s < m->min_size)
            usage_error(m->name, "-s: a size is below this measurement's smallest", arg);
        if (o->nsizes > 0 && s <= o->sizes[o->nsizes - 1])
            usage_error(m->name, "-s: sizes must increase", arg);
        add_size(m, o, s);
    }
}

static inline int parse_count(const struct measurement *m, const char *flag, const char *arg, int min) {
    char *end;
    errno = 0;
    long n = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno != 0 || n < min || n > 1000000000L)
        usage_error(m->name, flag, arg);
    return (int)n;
}

/* warm_up has the ranks exchange barriers for 300 ms by rank 0's clock
 * before measuring, as gompi-bench does: ranks reach their steady speed
 * only after talking for a while. Every program calls it once its buffers
 * are allocated and filled, as gompi-bench lets the runtime settle after
 * filling its own: in gompi's C library the first calls after writing
 * megabytes run slow until the ranks have talked again. Rank 0 says when
 * to stop, so every rank leaves after the same barrier. */
static inline void warm_up(void) {
    int rank, stop = 0;
    double start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (!stop) {
        for (int i = 0; i < 100; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0 && MPI_Wtime() - start >= 0.3)
            stop = 1;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
}

/* parse_args reads the flags after MPI_Init. A given -i or -x scales the
 * large-message count in OSU's proportion, as gompi-bench does; with -c
 * (cold) the counts are the same at every size and -x is 0 unless given. */
static inline struct options parse_args(const struct measurement *m, int argc, char **argv) {
    struct options o = {.nsizes = 0, .c = m->defaults, .large = m->large_size > 0 ? m->large_size : LARGE_SIZE};
    const char *range = NULL, *list = NULL;
    const struct counts *d = &m->defaults;
    int opt, warmup_given = 0;
    opterr = 0;
    while ((opt = getopt(argc, argv, m->no_sizes ? (m->stats ? "i:x:fc" : "i:x:") : (m->stats ? "m:s:i:x:fc" : "m:s:i:x:"))) != -1) {
        switch (opt) {
        case 'm': range = optarg; break;
        case 's': list = optarg; break;
        case 'f': o.full = 1; break;
        case 'c': o.cold = 1; break;
        case 'i':
            o.c.iters = parse_count(m, "-i wants 1 or more iterations", optarg, 1);
            o.c.large_iters = (int)((long)o.c.iters * d->large_iters / d->iters);
            if (o.c.large_iters < 1)
                o.c.large_iters = 1;
            break;
        case 'x':
            o.c.warmup = parse_count(m, "-x wants 0 or more warm-up iterations", optarg, 0);
            o.c.large_warmup = (int)((long)o.c.warmup * d->large_warmup / (d->warmup > 0 ? d->warmup : 1));
            warmup_given = 1;
            break;
        default:
            usage_error(m->name,
                        m->no_sizes && m->stats ? "unknown flag or missing value (flags: -i N, -x N, -f, -c)"
                        : m->no_sizes ? "unknown flag or missing value (flags: -i N, -x N)"
                        : m->stats  ? "unknown flag or missing value (flags: -m [MIN:]MAX, -s LIST, -i N, -x N, -f, -c)"
                                    : "unknown flag or missing value (flags: -m [MIN:]MAX, -s LIST, -i N, -x N)",
                        NULL);
        }
    }
    if (optind < argc)
        usage_error(m->name, "unexpected argument", argv[optind]);
    if (o.cold) {
        if (!warmup_given)
            o.c.warmup = 0;
        o.c.large_iters = o.c.iters;
        o.c.large_warmup = o.c.warmup;
    }
    if (m->no_sizes)
        return o;
    if (list)
        parse_list(m, &o, list);
    else
        parse_range(m, &o, range);
    return o;
}

static inline void counts_for(const struct options *o, long size, int *iters, int *warmup) {
    int large = size > o->large;
    *iters = large ? o->c.large_iters : o->c.iters;
    *warmup = large ? o->c.large_warmup : o->c.warmup;
}

static inline long max_size(const struct options *o) {
    return o->nsizes ? o->sizes[o->nsizes - 1] : 0;
}

/* alloc_buffer returns a buffer of at least one byte, touched once. */
static inline char *alloc_buffer(long size) {
    char *b = malloc(size > 0 ? size : 1);
    if (!b) {
        fprintf(stderr, "out of memory for a %ld-byte buffer\n", size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(b, 1, size > 0 ? size : 1);
    return b;
}

static inline void need_ranks(const struct measurement *m, int min, int even) {
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n < min || (even && n % 2)) {
        if (bench_rank() == 0)
            fprintf(stderr, "%s needs %s%d ranks or more, got %d\n", m->name, even ? "an even number of " : "", min, n);
        MPI_Finalize();
        exit(2);
    }
}

/* message is what a round of the pair 0 and 1 moves each way: count
 * elements of type, out of s and into r. */
struct message {
    char *s, *r;
    int count;
    MPI_Datatype type;
};

/* ping_pong is one round trip of m between ranks 0 and 1, rank 0 sending
 * first. */
static inline void ping_pong(int rank, void *arg) {
    struct message *m = arg;
    int peer = 1 - rank;
    if (rank == 0)
        MPI_Send(m->s, m->count, m->type, peer, TAG_DATA, MPI_COMM_WORLD);
    MPI_Recv(m->r, m->count, m->type, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1)
        MPI_Send(m->s, m->count, m->type, peer, TAG_DATA, MPI_COMM_WORLD);
}

/* time_round times one size: after a barrier, ranks 0 and 1 run
 * round(rank, arg) warm times untimed and iters times timed (the other
 * ranks keep the barrier only), and rank 0 gets the time of one round in
 * microseconds divided by per: 2 for a round trip's one-way time, 1 for
 * the whole round. The loop of latency, ddt and sendrecv. */
static inline double time_round(const struct options *o, long size, int per, void (*round)(int rank, void *arg),
                                void *arg) {
    int iters, warm, rank = bench_rank();
    counts_for(o, size, &iters, &warm);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = 0;
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            start = MPI_Wtime();
        if (rank < 2)
            round(rank, arg);
    }
    return (MPI_Wtime() - start) / iters / per * 1e6;
}

/* print_row prints as gompi-bench does: two decimals, three significant
 * digits below 1. */
static inline void print_value(double v) {
    char val[64];
    snprintf(val, sizeof val, v >= 1 ? "%.2f" : "%.3g", v);
    printf(" %16s", val);
}

static inline void print_row(long key, double v) {
    printf("%-12ld", key);
    print_value(v);
    printf("\n");
}

/* print_header_full prints the header lines, with -f the headings of the
 * minimum and maximum columns, then those of the measurement's further
 * columns. MPI has no call that says which transport a peer uses, so the
 * transports line says so; the btl line is Open MPI's btl parameter as the
 * launcher passed it. */
static inline void print_header_full(const struct measurement *m, int full, int cold) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    for (char *p = lib; *p; p++)
        if (*p == '\t')
            *p = ' ';
    const char *btl = getenv("OMPI_MCA_btl");
    printf("# bench/c %s (%s)\n", m->name, lib);
    printf("# btl: %s\n", btl && *btl ? btl : "the library's default");
    printf("# unit: %s: %s%s\n", m->unit, m->about,
           cold ? "; cold: each size on a fresh communicator (a Dup of the one it runs on) timed from its first call, the same count "
                  "at every size"
                : "");
    printf("# transports: not reported by this MPI library\n");
    printf("# %-10s %16s", m->no_sizes ? "Ranks" : "Size", m->column);
    if (full)
        printf(" %16s %16s", "Min Latency (us)", "Max Latency (us)");
    for (const char *const *c = m->more; c && *c; c++)
        printf(" %16s", *c);
    printf("\n");
}

static inline void print_header(const struct measurement *m) { print_header_full(m, 0, 0); }

/* bytes_main is the whole program of a measurement of contiguous bytes
 * between ranks 0 and 1 (latency, sendrecv): for every size, the time of
 * round over a message of that many bytes, divided by per (time_round). */
static inline int bytes_main(const struct measurement *me, int per, void (*round)(int rank, void *arg), int argc,
                             char **argv) {
    MPI_Init(&argc, &argv);
    struct options o = parse_args(me, argc, argv);
    need_ranks(me, 2, 0);
    int rank = bench_rank();
    struct message m = {alloc_buffer(max_size(&o)), alloc_buffer(max_size(&o)), 0, MPI_BYTE};
    warm_up();
    if (rank == 0)
        print_header(me);
    for (int k = 0; k < o.nsizes; k++) {
        m.count = (int)o.sizes[k];
        double t = time_round(&o, o.sizes[k], per, round, &m);
        if (rank == 0)
            print_row(o.sizes[k], t);
    }
    free(m.s);
    free(m.r);
    MPI_Finalize();
    return 0;
}

#endif
