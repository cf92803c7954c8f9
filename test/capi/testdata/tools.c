/* The tools information interface: MCA parameters as control variables,
 * read before and after MPI_Init, their categories, enumerations and
 * errors; the queue levels as performance variables, which follow the
 * messages a rank holds; no events, whose calls fail as they must; one
 * clock source. gompirun runs it with btl_sm_eager_limit
 * 16k and btl self,sm; alone it sees the defaults. */
#include "check.h"

/* T checks an MPI_T call's return code, which no error handler sees. */
#define T(call, want) EQ((call), (want), #call)

static int cvar(const char *name) {
    int i = -1;
    T(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

/* read_count reads a size variable. */
static MPI_Count read_count(int i) {
    MPI_T_cvar_handle h;
    int n = -1;
    MPI_Count v = -1;
    T(MPI_T_cvar_handle_alloc(i, NULL, &h, &n), MPI_SUCCESS);
    EQ(n, 1, "a size's count");
    T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "a freed handle is not MPI_T_CVAR_HANDLE_NULL");
    return v;
}

/* pvar reads performance variable name in a session of its own. */
static unsigned long long pvar(const char *name) {
    MPI_T_pvar_session ps;
    MPI_T_pvar_handle ph;
    int i = -1, n;
    unsigned long long v = 0;
    T(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_LEVEL, &i), MPI_SUCCESS);
    T(MPI_T_pvar_session_create(&ps), MPI_SUCCESS);
    T(MPI_T_pvar_handle_alloc(ps, i, NULL, &ph, &n), MPI_SUCCESS);
    T(MPI_T_pvar_read(ps, ph, &v), MPI_SUCCESS);
    T(MPI_T_pvar_session_free(&ps), MPI_SUCCESS);
    return v;
}

/* queue_levels: rank 1 holds three messages of rank 0's unreceived and a
   receive posted, and the variables count them. A barrier's empty
   messages may come and go meanwhile: the messages are counted at least,
   their bytes exactly. */
static void queue_levels(int size) {
    TRY(MPI_Barrier(MPI_COMM_WORLD)); /* what setting the collectives up sent has been taken */
    if (size < 2 || check_rank > 1) {
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        return;
    }
    char msg[100] = {0};
    if (check_rank == 0) {
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        for (int tag = 7; tag <= 9; tag++)
            TRY(MPI_Send(msg, sizeof msg, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        TRY(MPI_Send(msg, 1, MPI_BYTE, 1, 10, MPI_COMM_WORLD));
        return;
    }
    unsigned long long b0 = pvar("pml_unexpected_bytes"), p0 = pvar("pml_posted_recvs");
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    for (int flag = 0; !flag;)
        TRY(MPI_Iprobe(0, 9, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    unsigned long long u = pvar("pml_unexpected_msgs");
    CHECK(u >= 3, "%llu unexpected messages, want 3 or more", u);
    EQ(pvar("pml_unexpected_bytes"), b0 + 300, "unexpected bytes");
    MPI_Request r;
    TRY(MPI_Irecv(msg, 1, MPI_BYTE, 0, 10, MPI_COMM_WORLD, &r));
    EQ(pvar("pml_posted_recvs"), p0 + 1, "posted receives");
    for (int tag = 7; tag <= 9; tag++)
        TRY(MPI_Recv(msg, sizeof msg, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EQ(pvar("pml_unexpected_bytes"), b0, "unexpected bytes once received");
    TRY(MPI_Barrier(MPI_COMM_WORLD));
    TRY(MPI_Wait(&r, MPI_STATUS_IGNORE));
    EQ(pvar("pml_posted_recvs"), p0, "posted receives once matched");
}

int main(int argc, char **argv) {
    int provided = -1, n = -1, i;
    T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    EQ(provided, MPI_THREAD_MULTIPLE, "MPI_T's thread level");

    /* Control variables, before MPI_Init. */
    T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n > 50, "only %d control variables", n);
    int eager = cvar("btl_sm_eager_limit");
    char name[256], desc[1024];
    int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum et;
    T(MPI_T_cvar_get_info(eager, name, &nlen, &verb, &dt, &et, desc, &dlen, &bind, &scope), MPI_SUCCESS);
    CHECK(strcmp(name, "btl_sm_eager_limit") == 0 && nlen == (int)strlen(name) + 1, "name %s (%d)", name, nlen);
    CHECK(dlen > 20 && dt == MPI_COUNT && et == MPI_T_ENUM_NULL, "desc %d bytes, datatype %p", dlen, (void *)dt);
    CHECK(verb == MPI_T_VERBOSITY_TUNER_BASIC && bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_READONLY,
          "verbosity %d bind %d scope %d", verb, bind, scope);
    nlen = 0;
    T(MPI_T_cvar_get_info(eager, name, &nlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    EQ(nlen, strlen("btl_sm_eager_limit") + 1, "the length asked with 0");
    nlen = 5;
    T(MPI_T_cvar_get_info(eager, name, &nlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(strcmp(name, "btl_") == 0 && nlen == 5, "cut name %s (%d)", name, nlen);
    MPI_Count before = read_count(eager);

    /* A list reads as text. */
    int btl = cvar("btl");
    MPI_T_cvar_handle h;
    T(MPI_T_cvar_handle_alloc(btl, NULL, &h, &n), MPI_SUCCESS);
    char text[256] = "unset";
    CHECK(n >= 1 && n <= (int)sizeof text, "the btl list's count %d", n);
    T(MPI_T_cvar_read(h, text), MPI_SUCCESS);
    EQ(strlen(text) + 1, n, "the btl list's length");
    T(MPI_T_cvar_write(h, text), MPI_T_ERR_CVAR_SET_NEVER);
    T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    T(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_cvar_read(h, text), MPI_T_ERR_INVALID_HANDLE);

    /* An enumeration. */
    int mech = cvar("btl_sm_single_copy_mechanism"), items = -1, value = -1, current = -1;
    T(MPI_T_cvar_get_info(mech, NULL, NULL, NULL, &dt, &et, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(dt == MPI_INT && et != MPI_T_ENUM_NULL, "the mechanism is no enumeration");
    nlen = sizeof name;
    T(MPI_T_enum_get_info(et, &items, name, &nlen), MPI_SUCCESS);
    CHECK(items >= 2 && strcmp(name, "btl_sm_single_copy_mechanism") == 0, "enumeration %s of %d", name, items);
    T(MPI_T_cvar_handle_alloc(mech, NULL, &h, &n), MPI_SUCCESS);
    T(MPI_T_cvar_read(h, &current), MPI_SUCCESS);
    T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(current >= 0 && current < items, "the mechanism reads %d of %d", current, items);
    int found = 0;
    for (i = 0; i < items; i++) {
        nlen = sizeof name;
        T(MPI_T_enum_get_item(et, i, &value, name, &nlen), MPI_SUCCESS);
        EQ(value, i, "an item's value");
        found |= strcmp(name, "none") == 0;
    }
    CHECK(found, "no item of the mechanism is named none");
    T(MPI_T_enum_get_item(et, items, &value, name, &nlen), MPI_T_ERR_INVALID_ITEM);

    /* Every variable reads, as its datatype says; a bool as 0 or 1. */
    T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    for (i = 0; i < n; i++) {
        union {
            int i;
            MPI_Count c;
            double d;
            char s[4096];
        } any;
        int count;
        T(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
        T(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
        CHECK(dt == MPI_INT || dt == MPI_COUNT || dt == MPI_DOUBLE || (dt == MPI_CHAR && count <= (int)sizeof any.s),
              "variable %d: datatype %p, count %d", i, (void *)dt, count);
        T(MPI_T_cvar_read(h, &any), MPI_SUCCESS);
        T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    }
    int strict = cvar("mca_base_strict");
    T(MPI_T_cvar_handle_alloc(strict, NULL, &h, &n), MPI_SUCCESS);
    T(MPI_T_cvar_read(h, &value), MPI_SUCCESS);
    T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    EQ(value, 0, "mca_base_strict");

    /* Errors. */
    T(MPI_T_cvar_get_index("no_such_parameter", &i), MPI_T_ERR_INVALID_NAME);
    T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T(MPI_T_cvar_handle_alloc(1 << 30, NULL, &h, &n), MPI_T_ERR_INVALID_INDEX);
    passed("tools control variables");

    /* Categories: the btl framework holds the sm component's. */
    int ncat = -1, bc = -1, sc = -1, nv = -1, np = -1, nc = -1, stamp = -1;
    T(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    T(MPI_T_category_get_index("btl", &bc), MPI_SUCCESS);
    T(MPI_T_category_get_index("btl_sm", &sc), MPI_SUCCESS);
    CHECK(ncat > 5 && bc >= 0 && sc >= 0, "%d categories, btl %d, btl_sm %d", ncat, bc, sc);
    nlen = sizeof name, dlen = sizeof desc;
    T(MPI_T_category_get_info(bc, name, &nlen, desc, &dlen, &nv, &np, &nc), MPI_SUCCESS);
    CHECK(strcmp(name, "btl") == 0 && np == 0 && nc >= 3, "category %s: %d cvars %d pvars %d categories", name, nv, np, nc);
    int kids[64], vars[256], none[4];
    T(MPI_T_category_get_categories(bc, 64, kids), MPI_SUCCESS);
    found = 0;
    for (i = 0; i < nc && i < 64; i++)
        found |= kids[i] == sc;
    CHECK(found, "btl_sm is not among btl's categories");
    T(MPI_T_category_get_info(sc, NULL, NULL, NULL, NULL, &nv, NULL, NULL), MPI_SUCCESS);
    T(MPI_T_category_get_cvars(sc, 256, vars), MPI_SUCCESS);
    found = 0;
    for (i = 0; i < nv && i < 256; i++)
        found |= vars[i] == eager;
    CHECK(found, "btl_sm_eager_limit is not among btl_sm's %d variables", nv);
    T(MPI_T_category_get_pvars(sc, 4, none), MPI_SUCCESS);
    T(MPI_T_category_get_events(sc, 4, none), MPI_SUCCESS);
    T(MPI_T_category_get_num_events(sc, &n), MPI_SUCCESS);
    EQ(n, 0, "events of btl_sm");
    T(MPI_T_category_changed(&stamp), MPI_SUCCESS);
    T(MPI_T_category_get_index("nowhere", &i), MPI_T_ERR_INVALID_NAME);
    T(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    passed("tools categories");

    /* Performance variables: the engine's queues, 0 before MPI_Init;
       continuous and read-only. */
    MPI_T_pvar_session ps;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    unsigned long long buf = 1;
    int class, ro, cont, atom, pc = -1;
    T(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    EQ(n, 4, "performance variables");
    T(MPI_T_pvar_get_index("pml_unexpected_msgs", MPI_T_PVAR_CLASS_LEVEL, &i), MPI_SUCCESS);
    nlen = sizeof name, dlen = sizeof desc;
    T(MPI_T_pvar_get_info(i, name, &nlen, &verb, &class, &dt, &et, desc, &dlen, &bind, &ro, &cont, &atom), MPI_SUCCESS);
    CHECK(strcmp(name, "pml_unexpected_msgs") == 0 && class == MPI_T_PVAR_CLASS_LEVEL && dt == MPI_UNSIGNED_LONG_LONG &&
              et == MPI_T_ENUM_NULL && bind == MPI_T_BIND_NO_OBJECT && ro && cont && !atom && dlen > 10,
          "pvar %s class %d ro %d cont %d atomic %d", name, class, ro, cont, atom);
    T(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T(MPI_T_pvar_get_index("pml_unexpected_msgs", MPI_T_PVAR_CLASS_COUNTER, &n), MPI_T_ERR_INVALID_NAME);
    T(MPI_T_pvar_get_index("any", MPI_T_PVAR_CLASS_LEVEL, &n), MPI_T_ERR_INVALID_NAME);
    T(MPI_T_category_get_index("pml", &pc), MPI_SUCCESS);
    T(MPI_T_category_get_info(pc, NULL, NULL, NULL, NULL, &nv, &np, &nc), MPI_SUCCESS);
    int pv[8];
    T(MPI_T_category_get_pvars(pc, 8, pv), MPI_SUCCESS);
    CHECK(nv == 0 && np == 4 && nc == 0 && pv[0] == 0 && pv[3] == 3, "category pml: %d cvars %d pvars %d categories", nv, np, nc);
    T(MPI_T_pvar_session_create(&ps), MPI_SUCCESS);
    T(MPI_T_pvar_handle_alloc(ps, 4, NULL, &ph, &n), MPI_T_ERR_INVALID_INDEX);
    T(MPI_T_pvar_handle_alloc(ps, i, NULL, &ph, &n), MPI_SUCCESS);
    EQ(n, 1, "a level's count");
    T(MPI_T_pvar_read(ps, ph, &buf), MPI_SUCCESS);
    EQ(buf, 0, "unexpected messages before MPI_Init");
    T(MPI_T_pvar_start(ps, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    T(MPI_T_pvar_stop(ps, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    T(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    T(MPI_T_pvar_stop(ps, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    T(MPI_T_pvar_reset(ps, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    T(MPI_T_pvar_reset(ps, ph), MPI_T_ERR_PVAR_NO_WRITE);
    T(MPI_T_pvar_readreset(ps, ph, &buf), MPI_T_ERR_PVAR_NO_WRITE);
    T(MPI_T_pvar_write(ps, ph, &buf), MPI_T_ERR_PVAR_NO_WRITE);
    T(MPI_T_pvar_read(ps, (MPI_T_pvar_handle)0x5, &buf), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_pvar_handle_free(ps, &ph), MPI_SUCCESS);
    CHECK(ph == MPI_T_PVAR_HANDLE_NULL, "a freed handle is not MPI_T_PVAR_HANDLE_NULL");
    T(MPI_T_pvar_handle_free(ps, &ph), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_pvar_session_free(&ps), MPI_SUCCESS);
    CHECK(ps == MPI_T_PVAR_SESSION_NULL, "a freed session is not MPI_T_PVAR_SESSION_NULL");
    T(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    passed("tools performance variables");

    /* No events: every call on a registration or an instance fails. */
    MPI_T_event_registration reg = (MPI_T_event_registration)0x7;
    MPI_T_event_instance inst = (MPI_T_event_instance)0x7;
    MPI_T_cb_safety safety = MPI_T_CB_REQUIRE_NONE;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Count ts;
    T(MPI_T_event_get_num(&n), MPI_SUCCESS);
    EQ(n, 0, "events");
    T(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T(MPI_T_event_get_index("any", &i), MPI_T_ERR_INVALID_NAME);
    T(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    T(MPI_T_event_handle_get_info(reg, &info), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_callback_get_info(reg, safety, &info), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_callback_set_info(reg, safety, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_register_callback(reg, safety, MPI_INFO_NULL, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_set_dropped_handler(reg, NULL), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_copy(inst, &buf), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_read(inst, 0, &buf), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_get_timestamp(inst, &ts), MPI_T_ERR_INVALID_HANDLE);
    T(MPI_T_event_get_source(inst, &i), MPI_T_ERR_INVALID_HANDLE);

    /* One source, a clock that does not go back. */
    MPI_T_source_order order;
    MPI_Count tps, maxt, t0, t1;
    T(MPI_T_source_get_num(&n), MPI_SUCCESS);
    EQ(n, 1, "sources");
    nlen = sizeof name, dlen = sizeof desc;
    T(MPI_T_source_get_info(0, name, &nlen, desc, &dlen, &order, &tps, &maxt, &info), MPI_SUCCESS);
    CHECK(strcmp(name, "gompi_clock") == 0 && order == MPI_T_SOURCE_ORDERED && tps == 1000000000, "source %s", name);
    T(MPI_Info_free(&info), MPI_SUCCESS);
    T(MPI_T_source_get_timestamp(0, &t0), MPI_SUCCESS);
    T(MPI_T_source_get_timestamp(0, &t1), MPI_SUCCESS);
    CHECK(t0 > 0 && t1 >= t0, "timestamps %lld then %lld", (long long)t0, (long long)t1);
    T(MPI_T_source_get_timestamp(1, &t1), MPI_T_ERR_INVALID_INDEX);
    passed("tools events and sources");

    /* After MPI_Init, the running library's values: the same. */
    TRY(MPI_Init(&argc, &argv));
    int size;
    TRY(MPI_Comm_rank(MPI_COMM_WORLD, &check_rank));
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    EQ(before, size > 1 ? 16384 : 64512, "btl_sm_eager_limit before MPI_Init");
    T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    T(MPI_T_finalize(), MPI_SUCCESS); /* the first init still holds */
    EQ(read_count(eager), before, "btl_sm_eager_limit after MPI_Init");
    T(MPI_T_finalize(), MPI_SUCCESS);
    T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    int again = cvar("btl_sm_eager_limit");
    EQ(read_count(again), before, "btl_sm_eager_limit from the running library");
    queue_levels(size);
    T(MPI_T_finalize(), MPI_SUCCESS);
    passed("tools with MPI running");
    TRY(MPI_Finalize());
    return 0;
}
