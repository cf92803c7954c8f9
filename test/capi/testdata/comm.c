/* Communicators through the C library: split by type, compare, names,
 * duplication with info and non-blocking, hints, intercommunicators, the
 * MPI 4 constructors from groups,
 * error handler inheritance, attached buffers and disconnection. Runs on 2 or more
 * ranks. */
#include "check.h"

static int rank, size;

static int compare(MPI_Comm a, MPI_Comm b) {
    int r;
    TRY(MPI_Comm_compare(a, b, &r));
    return r;
}

int main(int argc, char **argv) {
    start(&argc, &argv);
    rank = check_rank;
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 or more ranks, has %d", size);

    /* Every rank runs on this host. */
    MPI_Comm node, c;
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int n, r;
    TRY(MPI_Comm_size(node, &n));
    TRY(MPI_Comm_rank(node, &r));
    CHECK(n == size && r == rank, "shared split: size %d rank %d", n, r);
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "split type MPI_UNDEFINED gives MPI_COMM_NULL");
    /* gompi knows no hardware resource but the host's memory: a guided
     * split by none gives MPI_COMM_NULL, and so does an unguided one, since
     * the host's ranks are all of MPI_COMM_WORLD's. */
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "split type MPI_COMM_TYPE_HW_GUIDED without mpi_hw_resource_type gives MPI_COMM_NULL");
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "split type MPI_COMM_TYPE_RESOURCE_GUIDED without a resource gives MPI_COMM_NULL");
    TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "split type MPI_COMM_TYPE_HW_UNGUIDED on one host gives MPI_COMM_NULL");
    /* Without rank 0 the host's ranks are fewer than the world's: the
     * unguided split gives them, and names the resource in its info. */
    {
        MPI_Info info;
        char val[MPI_MAX_INFO_VAL];
        int vlen = sizeof val, found = 0;
        TRY(MPI_Info_create(&info));
        TRY(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &c));
        TRY(MPI_Info_get_string(info, "mpi_hw_resource_type", &vlen, val, &found));
        if (rank == 0) {
            CHECK(c == MPI_COMM_NULL && !found, "MPI_UNDEFINED beside an unguided split: comm %d, key set %d", c != MPI_COMM_NULL, found);
        } else {
            TRY(MPI_Comm_size(c, &n));
            CHECK(n == size - 1, "unguided split without rank 0: size %d, want %d", n, size - 1);
            CHECK(found && strcmp(val, "mpi_shared_memory") == 0, "unguided split's mpi_hw_resource_type: found %d, %s", found, found ? val : "");
            TRY(MPI_Comm_free(&c));
        }
        TRY(MPI_Info_free(&info));
    }
    passed("comm split type");

    MPI_Comm dup, rev, half;
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TRY(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    TRY(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK(compare(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "world is world");
    CHECK(compare(MPI_COMM_WORLD, dup) == MPI_CONGRUENT, "a dup is congruent");
    CHECK(compare(MPI_COMM_WORLD, node) == MPI_CONGRUENT, "the node is congruent");
    CHECK(compare(MPI_COMM_WORLD, rev) == MPI_SIMILAR, "reversed is similar");
    CHECK(compare(MPI_COMM_WORLD, half) == MPI_UNEQUAL, "a half is unequal");
    passed("comm compare");

    /* A negative color other than MPI_UNDEFINED at one rank fails every
     * rank (splitfatal.c checks the message). */
    {
        MPI_Comm bad = MPI_COMM_NULL;
        RC(MPI_Comm_split(MPI_COMM_WORLD, rank == 1 ? -1 : 0, rank, &bad), MPI_ERR_ARG);
        CHECK(bad == MPI_COMM_NULL, "a failed split gives MPI_COMM_NULL");
    }
    passed("comm split bad color");

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    TRY(MPI_Comm_set_name(dup, longname));
    TRY(MPI_Comm_get_name(dup, name, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strncmp(name, longname, len) == 0,
          "a name of 299 bytes kept as %d bytes, want MPI_MAX_OBJECT_NAME-1, truncated", len);
    TRY(MPI_Comm_set_name(dup, "capi dup"));
    TRY(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "capi dup") == 0 && len == 8, "name %s (%d)", name, len);
    passed("comm set get name");

    MPI_Info info;
    TRY(MPI_Comm_get_info(dup, &info));
    CHECK(info != MPI_INFO_NULL, "MPI_Comm_get_info");
    TRY(MPI_Comm_set_info(dup, info));
    MPI_Comm dwi;
    TRY(MPI_Comm_dup_with_info(dup, info, &dwi));
    CHECK(compare(dup, dwi) == MPI_CONGRUENT, "dup with info is congruent");
    MPI_Comm dnull;
    TRY(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dnull));
    TRY(MPI_Comm_free(&dnull));
    /* A hint that rules MPI_ANY_SOURCE out makes a receive that names it
     * fail with MPI_ERR_RANK. */
    MPI_Info no_any;
    TRY(MPI_Info_create(&no_any));
    TRY(MPI_Info_set(no_any, "mpi_assert_no_any_source", "true"));
    MPI_Comm asserted;
    TRY(MPI_Comm_dup_with_info(dup, no_any, &asserted));
    int ibuf, cls;
    MPI_Request rq;
    TRY(MPI_Error_class(MPI_Irecv(&ibuf, 1, MPI_INT, MPI_ANY_SOURCE, 0, asserted, &rq), &cls));
    EQ(cls, MPI_ERR_RANK, "MPI_Irecv from MPI_ANY_SOURCE under mpi_assert_no_any_source");
    TRY(MPI_Comm_free(&asserted));
    TRY(MPI_Info_free(&no_any));
    passed("comm info");

    MPI_Comm id, idi;
    MPI_Request reqs[2];
    TRY(MPI_Comm_idup(MPI_COMM_WORLD, &id, &reqs[0]));
    TRY(MPI_Comm_idup_with_info(dup, info, &idi, &reqs[1]));
    TRY(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    int one = 1, sum = 0;
    TRY(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, id));
    CHECK(sum == size, "allreduce on the idup: %d", sum);
    sum = 0;
    TRY(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, idi));
    CHECK(sum == size, "allreduce on the idup with info: %d", sum);
    CHECK(compare(id, MPI_COMM_WORLD) == MPI_CONGRUENT && compare(idi, dup) == MPI_CONGRUENT, "idups are congruent");
    passed("comm idup");

    /* An intercommunicator between the even and the odd ranks: their
     * leaders are world ranks 0 and 1. */
    int flag;
    TRY(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "world is not an intercommunicator");
    MPI_Comm inter;
    int even = rank % 2 == 0;
    MPI_Comm peer = rank < 2 ? MPI_COMM_WORLD : MPI_COMM_NULL; /* only the leaders read it */
    TRY(MPI_Intercomm_create(half, 0, peer, even ? 1 : 0, 42, &inter));
    TRY(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "inter is an intercommunicator");
    int nodd = size / 2, neven = (size + 1) / 2, rs;
    TRY(MPI_Comm_remote_size(inter, &rs));
    CHECK(rs == (even ? nodd : neven), "remote size %d", rs);
    TRY(MPI_Comm_size(inter, &n));
    CHECK(n == (even ? neven : nodd), "local size %d", n);
    MPI_Group rg;
    TRY(MPI_Comm_remote_group(inter, &rg));
    TRY(MPI_Group_size(rg, &n));
    CHECK(n == rs, "remote group of %d", n);
    TRY(MPI_Group_free(&rg));
    /* Local rank r and remote rank r swap their world ranks. */
    int mine = rank, theirs = -1;
    TRY(MPI_Comm_rank(inter, &r));
    if (r < nodd) {
        TRY(MPI_Sendrecv(&mine, 1, MPI_INT, r, 5, &theirs, 1, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE));
        CHECK(theirs == (even ? 2 * r + 1 : 2 * r), "remote rank %d sent %d", r, theirs);
    }
    /* Collectives between the groups: the even group's rank 0 gathers
     * the odd ranks' world ranks (the odd group's receive side and the
     * other even ranks' both sides are NULL, as they are not read); every
     * rank swaps a block with each remote rank; the odd group's rank 0
     * gets the even ranks' sum. */
    int lr, gathered[64], sent[64], recvd[64], total = -1;
    TRY(MPI_Comm_rank(inter, &lr));
    if (even)
        TRY(MPI_Gather(NULL, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    else
        TRY(MPI_Gather(&mine, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, inter));
    if (even && lr == 0)
        for (int k = 0; k < nodd; k++)
            CHECK(gathered[k] == 2 * k + 1, "intercomm gather: block %d is %d", k, gathered[k]);
    for (int k = 0; k < rs; k++)
        sent[k] = rank * 100 + k;
    TRY(MPI_Alltoall(sent, 1, MPI_INT, recvd, 1, MPI_INT, inter));
    for (int k = 0; k < rs; k++) {
        int w = even ? 2 * k + 1 : 2 * k;
        CHECK(recvd[k] == w * 100 + lr, "intercomm alltoall: block %d is %d, want %d", k, recvd[k], w * 100 + lr);
    }
    if (even)
        TRY(MPI_Reduce(&mine, NULL, 1, MPI_INT, MPI_SUM, 0, inter));
    else if (lr == 0)
        TRY(MPI_Reduce(NULL, &total, 1, MPI_INT, MPI_SUM, MPI_ROOT, inter));
    else /* the other arguments are not significant here: as mpi4py passes them */
        TRY(MPI_Reduce(NULL, NULL, 0, MPI_BYTE, MPI_SUM, MPI_PROC_NULL, inter));
    if (!even && lr == 0)
        CHECK(total == neven * (neven - 1), "intercomm reduce: %d, want the even ranks' sum %d", total, neven * (neven - 1));
    /* Non-blocking: an allreduce gives each group the other's sum. */
    MPI_Request ireqs[2];
    int isum = -1;
    TRY(MPI_Ibarrier(inter, &ireqs[0]));
    TRY(MPI_Iallreduce(&mine, &isum, 1, MPI_INT, MPI_SUM, inter, &ireqs[1]));
    TRY(MPI_Waitall(2, ireqs, MPI_STATUSES_IGNORE));
    int want = even ? nodd * nodd : neven * (neven - 1); /* odd ranks 1+3+... = nodd^2 */
    CHECK(isum == want, "intercomm iallreduce: %d, want %d", isum, want);
    passed("intercomm collectives");

    /* A non-blocking duplicate of the intercommunicator, started before an
     * allreduce on it and waited after, carries the same allreduce. */
    MPI_Comm interdup;
    TRY(MPI_Comm_idup(inter, &interdup, &ireqs[0]));
    TRY(MPI_Iallreduce(&mine, &isum, 1, MPI_INT, MPI_SUM, inter, &ireqs[1]));
    TRY(MPI_Waitall(2, ireqs, MPI_STATUSES_IGNORE));
    TRY(MPI_Comm_test_inter(interdup, &flag));
    TRY(MPI_Comm_remote_size(interdup, &rs));
    CHECK(flag && rs == (even ? nodd : neven), "intercomm idup: inter %d, remote size %d", flag, rs);
    isum = -1;
    TRY(MPI_Allreduce(&mine, &isum, 1, MPI_INT, MPI_SUM, interdup));
    CHECK(isum == want, "allreduce on the intercomm idup: %d, want %d", isum, want);
    TRY(MPI_Comm_free(&interdup));
    passed("intercomm idup");

    /* MPI 4's constructors from groups: world's whole group, and the even
     * and odd ranks' groups facing each other. */
    MPI_Group wg, eg, og;
    TRY(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int evens[64], odds[64];
    for (int k = 0; k < neven; k++)
        evens[k] = 2 * k;
    for (int k = 0; k < nodd; k++)
        odds[k] = 2 * k + 1;
    TRY(MPI_Group_incl(wg, neven, evens, &eg));
    TRY(MPI_Group_incl(wg, nodd, odds, &og));
    MPI_Comm whole, fromgroups;
    TRY(MPI_Comm_create_from_group(wg, "org.gompi.test.whole", MPI_INFO_NULL, MPI_ERRORS_RETURN, &whole));
    CHECK(compare(whole, MPI_COMM_WORLD) == MPI_CONGRUENT, "the communicator of world's group is congruent to world");
    MPI_Errhandler weh;
    TRY(MPI_Comm_get_errhandler(whole, &weh));
    CHECK(weh == MPI_ERRORS_RETURN, "the communicator from a group takes the errhandler argument");
    TRY(MPI_Intercomm_create_from_groups(even ? eg : og, 0, even ? og : eg, 0, "org.gompi.test.halves", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &fromgroups));
    TRY(MPI_Comm_test_inter(fromgroups, &flag));
    TRY(MPI_Comm_remote_size(fromgroups, &rs));
    CHECK(flag && rs == (even ? nodd : neven), "intercomm from groups: inter %d, remote size %d", flag, rs);
    isum = -1;
    TRY(MPI_Allreduce(&mine, &isum, 1, MPI_INT, MPI_SUM, fromgroups));
    CHECK(isum == want, "allreduce on the intercomm from groups: %d, want %d", isum, want);
    TRY(MPI_Comm_free(&fromgroups));
    TRY(MPI_Comm_free(&whole));
    TRY(MPI_Group_free(&eg));
    TRY(MPI_Group_free(&og));
    TRY(MPI_Group_free(&wg));
    passed("communicators from groups");

    MPI_Comm merged;
    TRY(MPI_Intercomm_merge(inter, !even, &merged));
    TRY(MPI_Comm_size(merged, &n));
    TRY(MPI_Comm_rank(merged, &r));
    CHECK(n == size && r == (even ? rank / 2 : neven + rank / 2), "merged: size %d rank %d", n, r);
    TRY(MPI_Comm_free(&merged));
    passed("intercomm create merge");

    /* Split of the intercommunicator: the two leaders (world ranks 0 and
     * 1) make one of their own; the other ranks pass MPI_UNDEFINED. */
    MPI_Comm leaders;
    TRY(MPI_Comm_split(inter, lr == 0 ? 7 : MPI_UNDEFINED, 0, &leaders));
    if (lr == 0) {
        CHECK(leaders != MPI_COMM_NULL, "the leaders' split gave no communicator");
        TRY(MPI_Comm_test_inter(leaders, &flag));
        TRY(MPI_Comm_remote_size(leaders, &rs));
        CHECK(flag && rs == 1, "leaders' split: inter %d, remote size %d", flag, rs);
        TRY(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 6, &theirs, 1, MPI_INT, 0, 6, leaders, MPI_STATUS_IGNORE));
        CHECK(theirs == 1 - rank, "leaders' split: the other leader sent %d", theirs);
        TRY(MPI_Comm_free(&leaders));
    } else {
        CHECK(leaders == MPI_COMM_NULL, "a rank that passed MPI_UNDEFINED got a communicator");
    }
    /* Every rank is on this host: a shared split of the intercommunicator
     * is the whole of it, which an unguided split then leaves out. */
    MPI_Comm host;
    TRY(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
    TRY(MPI_Comm_test_inter(host, &flag));
    TRY(MPI_Comm_size(host, &n));
    TRY(MPI_Comm_remote_size(host, &rs));
    CHECK(flag && n == (even ? neven : nodd) && rs == (even ? nodd : neven), "shared split of the intercomm: inter %d, %d facing %d",
          flag, n, rs);
    TRY(MPI_Comm_free(&host));
    TRY(MPI_Comm_split_type(inter, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &host));
    CHECK(host == MPI_COMM_NULL, "an unguided split of the intercomm on one host gives MPI_COMM_NULL");
    passed("intercomm split");

    /* A communicator made from another takes its error handler: dup's,
     * not the world's, which differs meanwhile. */
    TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    TRY(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    MPI_Comm child;
    TRY(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &child));
    MPI_Errhandler eh;
    TRY(MPI_Comm_get_errhandler(child, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the split type child inherits MPI_ERRORS_RETURN");
    RC(MPI_Comm_remote_size(child, &rs), MPI_ERR_COMM);
    RC(MPI_Comm_split_type(child, 999, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);
    RC(MPI_Comm_compare(child, MPI_COMM_NULL, &r), MPI_ERR_COMM);
    RC(MPI_Comm_set_name(child, ""), MPI_ERR_ARG);
    TRY(MPI_Comm_free(&child));
    TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    passed("comm errhandler inherited and errors");

    /* A buffer attached to one communicator serves its buffered sends. */
    int bsize = 4 * (sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = malloc(bsize);
    TRY(MPI_Comm_attach_buffer(dup, buf, bsize));
    int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
    TRY(MPI_Bsend(&mine, 1, MPI_INT, to, 3, dup));
    TRY(MPI_Comm_flush_buffer(dup));
    TRY(MPI_Recv(&got, 1, MPI_INT, from, 3, dup, MPI_STATUS_IGNORE));
    CHECK(got == from, "buffered message %d (want %d)", got, from);
    MPI_Request req;
    TRY(MPI_Bsend(&mine, 1, MPI_INT, to, 4, dup));
    TRY(MPI_Comm_iflush_buffer(dup, &req));
    TRY(MPI_Recv(&got, 1, MPI_INT, from, 4, dup, MPI_STATUS_IGNORE));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "wait for the iflush");
    void *back;
    int bs;
    TRY(MPI_Comm_detach_buffer(dup, &back, &bs));
    CHECK(back == buf && bs == bsize, "detached %p of %d (want %p of %d)", back, bs, (void *)buf, bsize);
    RC(MPI_Comm_detach_buffer(dup, &back, &bs), MPI_ERR_BUFFER);
    RC(MPI_Comm_attach_buffer(dup, buf, -1), MPI_ERR_ARG);
    TRY(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0));
    TRY(MPI_Bsend(&mine, 1, MPI_INT, to, 5, dup));
    TRY(MPI_Recv(&got, 1, MPI_INT, from, 5, dup, MPI_STATUS_IGNORE));
    CHECK(got == from, "automatically buffered message %d (want %d)", got, from);
    MPI_Count bsc;
    TRY(MPI_Comm_detach_buffer_c(dup, &back, &bsc));
    CHECK(back == MPI_BUFFER_AUTOMATIC && bsc == 0, "detached %p of %lld (want MPI_BUFFER_AUTOMATIC)", back, (long long)bsc);
    free(buf);
    TRY(MPI_Buffer_flush());
    TRY(MPI_Buffer_iflush(&req));
    TRY(MPI_Wait(&req, MPI_STATUS_IGNORE));
    passed("comm buffers");

    /* Disconnect frees once every member has come to it: a communicator
     * with a buffered message sent and an inactive persistent receive on
     * it, and an intercommunicator; world cannot be disconnected. */
    MPI_Comm parent = MPI_COMM_WORLD;
    TRY(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a process gompirun started has a parent");
    MPI_Comm w = MPI_COMM_WORLD;
    RC(MPI_Comm_disconnect(&w), MPI_ERR_COMM);
    CHECK(w == MPI_COMM_WORLD, "a refused disconnect changed the handle");
    TRY(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0));
    TRY(MPI_Bsend(&mine, 1, MPI_INT, to, 6, dup));
    TRY(MPI_Recv(&got, 1, MPI_INT, from, 6, dup, MPI_STATUS_IGNORE));
    CHECK(got == from, "buffered message before the disconnect %d (want %d)", got, from);
    TRY(MPI_Recv_init(&got, 1, MPI_INT, from, 7, dup, &req));
    TRY(MPI_Comm_disconnect(&dup));
    TRY(MPI_Request_free(&req));
    TRY(MPI_Comm_disconnect(&inter));
    CHECK(dup == MPI_COMM_NULL && inter == MPI_COMM_NULL, "disconnected handles are not MPI_COMM_NULL");
    passed("comm disconnect");

    MPI_Comm all[] = {node, rev, half, dwi, id, idi};
    for (int i = 0; i < (int)(sizeof all / sizeof all[0]); i++)
        TRY(MPI_Comm_free(&all[i]));
    passed("comm free");

    TRY(MPI_Finalize());
    return 0;
}
