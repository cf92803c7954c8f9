/* Sessions: process sets, their groups and the communicators made from
 * them, a session's info and error handlers, the World Model beside
 * sessions (MPI_Init after a session, MPI_Finalize while one is live), a
 * session's buffer for buffered sends, and a session started again after
 * every other was finalized. The runtime
 * ends as the process exits. Runs on any number of ranks, as a singleton
 * too. */
#include "check.h"

static int handled = -1;
static MPI_Session handled_on;

static void on_error(MPI_Session *s, int *code, ...) {
    handled = *code;
    handled_on = *s;
}

/* sum_ranks makes a communicator of process set pset in session s and
 * checks an allreduce of its ranks on it; it returns its size, and this
 * process's rank in it in *rank. */
static int sum_ranks(MPI_Session s, const char *pset, const char *tag, int *rank) {
    MPI_Group g;
    MPI_Comm c;
    TRY(MPI_Group_from_session_pset(s, pset, &g));
    TRY(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    TRY(MPI_Group_free(&g));
    int n, r, sum = -1;
    TRY(MPI_Comm_size(c, &n));
    TRY(MPI_Comm_rank(c, &r));
    TRY(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n * (n - 1) / 2, "allreduce on %s: %d, want %d", pset, sum, n * (n - 1) / 2);
    TRY(MPI_Comm_free(&c));
    *rank = r;
    return n;
}

/* from_pset makes the communicator of process set pset in session s. */
static MPI_Comm from_pset(MPI_Session s, const char *pset, const char *tag) {
    MPI_Group g;
    MPI_Comm c;
    TRY(MPI_Group_from_session_pset(s, pset, &g));
    TRY(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    TRY(MPI_Group_free(&g));
    return c;
}

/* ring sends this rank's number to the next rank in buffered mode on c
 * and checks what the previous one sent. */
static void ring(MPI_Comm c, int tag) {
    int n, r, got = -1;
    TRY(MPI_Comm_size(c, &n));
    TRY(MPI_Comm_rank(c, &r));
    TRY(MPI_Bsend(&r, 1, MPI_INT, (r + 1) % n, tag, c));
    TRY(MPI_Recv(&got, 1, MPI_INT, (r + n - 1) % n, tag, c, MPI_STATUS_IGNORE));
    CHECK(got == (r + n - 1) % n, "buffered message %d on tag %d, want %d", got, tag, (r + n - 1) % n);
}

/* session_buffers: a session's buffer serves the buffered sends of the
 * communicators made from its groups and of those derived from them,
 * after their own buffers and before the process's; another session's
 * communicators do not see it. */
static void session_buffers(MPI_Session s) {
    int one = 0, bsize = 4 * (sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = malloc(bsize);
    MPI_Comm c = from_pset(s, "mpi://WORLD", "org.gompi.test.bsend"), d, e;
    RC(MPI_Bsend(&one, 1, MPI_INT, 0, 1, c), MPI_ERR_BUFFER);
    RC(MPI_Session_attach_buffer(s, buf, -1), MPI_ERR_ARG);
    TRY(MPI_Session_attach_buffer(s, buf, bsize));
    RC(MPI_Session_attach_buffer(s, buf, bsize), MPI_ERR_BUFFER);
    ring(c, 1);
    TRY(MPI_Session_flush_buffer(s));

    /* A duplicate, and a communicator made from a group of c's. */
    TRY(MPI_Comm_dup(c, &d));
    ring(d, 2);
    MPI_Group g, h;
    TRY(MPI_Comm_group(c, &g));
    TRY(MPI_Group_incl(g, 1, &one, &h));
    int in;
    TRY(MPI_Group_rank(h, &in));
    if (in == 0) {
        TRY(MPI_Comm_create_from_group(h, "org.gompi.test.bsend.first", MPI_INFO_NULL, MPI_ERRORS_RETURN, &e));
        ring(e, 3);
        TRY(MPI_Comm_free(&e));
    }
    TRY(MPI_Group_free(&h));
    TRY(MPI_Group_free(&g));

    /* d's own buffer comes first: a message too big for it fails though
     * the session's has room. */
    int small = sizeof(int) + MPI_BSEND_OVERHEAD;
    char *own = malloc(small), big[sizeof(int) + MPI_BSEND_OVERHEAD];
    TRY(MPI_Comm_attach_buffer(d, own, small));
    RC(MPI_Bsend(big, small, MPI_BYTE, 0, 4, d), MPI_ERR_BUFFER);
    ring(d, 4);
    void *back;
    int bs;
    TRY(MPI_Comm_detach_buffer(d, &back, &bs));
    CHECK(back == own && bs == small, "d's buffer came back as %p of %d", back, bs);
    free(own);

    /* Another session's communicator has no buffer. */
    MPI_Session u;
    MPI_Info ui;
    TRY(MPI_Info_create(&ui));
    TRY(MPI_Info_set(ui, "thread_level", "MPI_THREAD_FUNNELED"));
    TRY(MPI_Session_init(ui, MPI_ERRORS_RETURN, &u));
    TRY(MPI_Info_free(&ui));
    /* The level asked for is the level provided. */
    char level[MPI_MAX_INFO_VAL];
    int found = 0;
    TRY(MPI_Session_get_info(u, &ui));
    TRY(MPI_Info_get_string(ui, "thread_level", &(int){sizeof level}, level, &found));
    CHECK(found && strcmp(level, "MPI_THREAD_FUNNELED") == 0, "a session asked for MPI_THREAD_FUNNELED provides %s", level);
    TRY(MPI_Info_free(&ui));
    MPI_Comm o = from_pset(u, "mpi://WORLD", "org.gompi.test.bsend.other");
    RC(MPI_Bsend(&one, 1, MPI_INT, 0, 5, o), MPI_ERR_BUFFER);
    TRY(MPI_Comm_free(&o));
    TRY(MPI_Session_finalize(&u));

    MPI_Request req;
    TRY(MPI_Session_iflush_buffer(s, &req));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    TRY(MPI_Session_detach_buffer(s, &back, &bs));
    CHECK(back == buf && bs == bsize, "the session's buffer came back as %p of %d (want %p of %d)", back, bs, (void *)buf, bsize);
    RC(MPI_Session_detach_buffer(s, &back, &bs), MPI_ERR_BUFFER);
    RC(MPI_Bsend(&one, 1, MPI_INT, 0, 6, c), MPI_ERR_BUFFER);
    free(buf);

    /* An automatic buffer; the second is left attached for the session's
     * finalize. */
    TRY(MPI_Session_attach_buffer_c(s, MPI_BUFFER_AUTOMATIC, 0));
    ring(d, 7);
    MPI_Count bsc;
    TRY(MPI_Session_detach_buffer_c(s, &back, &bsc));
    CHECK(back == MPI_BUFFER_AUTOMATIC && bsc == 0, "detached %p of %lld (want MPI_BUFFER_AUTOMATIC)", back, (long long)bsc);
    TRY(MPI_Session_attach_buffer_c(s, MPI_BUFFER_AUTOMATIC, 0));
    ring(d, 8);
    TRY(MPI_Comm_free(&d));
    TRY(MPI_Comm_free(&c));
}

int main(int argc, char **argv) {
    int flag = -1;
    TRY(MPI_Initialized(&flag));
    CHECK(!flag, "initialized before anything");

    MPI_Info info;
    TRY(MPI_Info_create(&info));
    TRY(MPI_Info_set(info, "org.gompi.test", "kept"));
    MPI_Session s, t;
    TRY(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    TRY(MPI_Info_free(&info));
    TRY(MPI_Initialized(&flag));
    CHECK(!flag, "a session alone makes MPI_Initialized true");

    /* The process sets and their names. */
    int np = -1, len = 0;
    TRY(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &np));
    CHECK(np == 2, "%d process sets, want 2", np);
    TRY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL));
    CHECK(len == (int)strlen("mpi://WORLD") + 1, "the first name's length %d", len);
    char name[64];
    len = sizeof name;
    TRY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    CHECK(strcmp(name, "mpi://WORLD") == 0, "the first process set is %s", name);
    len = 5;
    TRY(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name));
    CHECK(strcmp(name, "mpi:") == 0 && len == (int)strlen("mpi://SELF") + 1, "the second name cut to 5 bytes: %s (%d)", name, len);
    len = sizeof name;
    RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name), MPI_ERR_ARG);

    /* Communicators from the process sets' groups. */
    int size = sum_ranks(s, "mpi://WORLD", "org.gompi.test.world", &check_rank), r;
    CHECK(sum_ranks(s, "mpi://self", "org.gompi.test.self", &r) == 1 && r == 0, "mpi://SELF is more than this process");
    MPI_Info pinfo;
    char val[MPI_MAX_INFO_VAL];
    TRY(MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo));
    TRY(MPI_Info_get_string(pinfo, "mpi_size", &(int){sizeof val}, val, &flag));
    CHECK(flag && atoi(val) == size, "mpi://WORLD's mpi_size is %s, want %d", val, size);
    TRY(MPI_Info_free(&pinfo));
    MPI_Group g;
    RC(MPI_Group_from_session_pset(s, "mpi://nowhere", &g), MPI_ERR_ARG);
    RC(MPI_Session_get_pset_info(s, "mpi://nowhere", &pinfo), MPI_ERR_ARG);
    passed("session process sets");

    /* The info a session was started with, and its thread level. */
    TRY(MPI_Session_get_info(s, &info));
    TRY(MPI_Info_get_string(info, "org.gompi.test", &(int){sizeof val}, val, &flag));
    CHECK(flag && strcmp(val, "kept") == 0, "the session's info lost its key: %d %s", flag, val);
    TRY(MPI_Info_get_string(info, "thread_level", &(int){sizeof val}, val, &flag));
    CHECK(flag && strcmp(val, "MPI_THREAD_MULTIPLE") == 0, "thread_level %d %s", flag, val);
    TRY(MPI_Info_free(&info));
    passed("session info");

    session_buffers(s);
    passed("session buffers");

    /* A session's own error handler: called by MPI_Session_call_errhandler
     * and by a failed call, with the session. */
    MPI_Errhandler eh, got;
    TRY(MPI_Session_create_errhandler(on_error, &eh));
    TRY(MPI_Session_set_errhandler(s, eh));
    TRY(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "get errhandler gave another handler");
    TRY(MPI_Errhandler_free(&got));
    TRY(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handled == MPI_ERR_OTHER && handled_on == s, "the handler saw %d on %p", handled, (void *)handled_on);
    handled = -1;
    int rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 7, &len, name);
    CHECK(handled == rc && rc != MPI_SUCCESS, "a failed call: handler %d, returned %d", handled, rc);
    TRY(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    TRY(MPI_Errhandler_free(&eh));
    passed("session errhandler");

    /* The World Model beside a session. */
    TRY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &t));
    TRY(MPI_Init(&argc, &argv));
    TRY(MPI_Initialized(&flag));
    CHECK(flag, "MPI_Init after a session: not initialized");
    int wsize;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK(wsize == size, "world has %d ranks, mpi://WORLD %d", wsize, size);
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    /* An invalid session's error goes to MPI_COMM_SELF's handler. */
    TRY(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Session none = MPI_SESSION_NULL;
    RC(MPI_Session_get_num_psets(none, MPI_INFO_NULL, &np), MPI_ERR_SESSION);
    MPI_Comm wdup, sdup, sc = from_pset(t, "mpi://WORLD", "org.gompi.test.outlives");
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &wdup));
    TRY(MPI_Comm_set_errhandler(wdup, MPI_ERRORS_RETURN));
    TRY(MPI_Finalize());
    TRY(MPI_Finalized(&flag));
    CHECK(flag, "MPI_Finalize with a session live: not finalized");
    RC(MPI_Finalize(), MPI_ERR_OTHER);
    /* The session's runtime and communicators go on, not the World Model's. */
    RC(MPI_Comm_size(MPI_COMM_WORLD, &wsize), MPI_ERR_COMM);
    RC(MPI_Comm_size(wdup, &wsize), MPI_ERR_COMM);
    TRY(MPI_Comm_dup(sc, &sdup));
    TRY(MPI_Comm_size(sdup, &wsize));
    CHECK(wsize == size, "a session's communicator after MPI_Finalize has %d ranks, want %d", wsize, size);
    TRY(MPI_Barrier(sdup));
    TRY(MPI_Comm_free(&sdup));
    TRY(MPI_Comm_free(&sc));
    sum_ranks(t, "mpi://WORLD", "org.gompi.test.after", &r);
    passed("session and world model");

    /* Every session finalized, then one started again. */
    TRY(MPI_Session_finalize(&t));
    TRY(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL && t == MPI_SESSION_NULL, "finalized sessions are not MPI_SESSION_NULL");
    RC(MPI_Session_finalize(&s), MPI_ERR_SESSION);
    TRY(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    sum_ranks(s, "mpi://WORLD", "org.gompi.test.again", &r);
    TRY(MPI_Session_finalize(&s));
    passed("session again");
    return 0;
}
