/* Attribute caching through libmpi_abi: keyvals on communicators and
 * datatypes, the C copy and delete callbacks and what they are called
 * with, the callback sentinels (never called), the deprecated MPI-1
 * names, the predefined attributes, and the error classes of bad
 * keyvals. Run with 2 or more ranks. */
#include "check.h"
#include <stdint.h>

static int size;

/* What the callbacks saw. */
struct calls {
    int copies, deletes;
    MPI_Comm lastComm;
    MPI_Datatype lastType;
    int lastKeyval;
    intptr_t lastValue;
    int failCopy, failDelete, noCopy;
};

static int commCopy(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag) {
    struct calls *s = extra;
    s->copies++, s->lastComm = c, s->lastKeyval = kv, s->lastValue = (intptr_t)in;
    if (s->failCopy)
        return MPI_ERR_OTHER;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = !s->noCopy;
    return MPI_SUCCESS;
}

static int commDelete(MPI_Comm c, int kv, void *v, void *extra) {
    struct calls *s = extra;
    s->deletes++, s->lastComm = c, s->lastKeyval = kv, s->lastValue = (intptr_t)v;
    return s->failDelete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int typeCopy(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag) {
    struct calls *s = extra;
    s->copies++, s->lastType = t, s->lastKeyval = kv, s->lastValue = (intptr_t)in;
    if (s->failCopy)
        return MPI_ERR_OTHER;
    *(void **)out = (void *)((intptr_t)in * 2);
    *flag = 1;
    return MPI_SUCCESS;
}

static int typeDelete(MPI_Datatype t, int kv, void *v, void *extra) {
    struct calls *s = extra;
    s->deletes++, s->lastType = t, s->lastKeyval = kv, s->lastValue = (intptr_t)v;
    return MPI_SUCCESS;
}

/* get returns comm's value under kv, -1 if it has none. */
static intptr_t get(MPI_Comm c, int kv) {
    void *v;
    int flag;
    TRY(MPI_Comm_get_attr(c, kv, &v, &flag));
    return flag ? (intptr_t)v : -1;
}

static void commAttrs(void) {
    /* Static: the world keeps an attribute whose callbacks use it. */
    static struct calls s;
    int kv, saved;
    MPI_Comm dup, dup2;

    TRY(MPI_Comm_create_keyval(commCopy, commDelete, &kv, &s));
    CHECK(get(MPI_COMM_WORLD, kv) == -1, "a new keyval has a value");
    TRY(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, (void *)(intptr_t)7));
    CHECK(get(MPI_COMM_WORLD, kv) == 7, "get after set");
    passed("comm_create_keyval, comm_set_attr, comm_get_attr");

    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(s.copies == 1 && s.lastComm == MPI_COMM_WORLD && s.lastKeyval == kv && s.lastValue == 7,
          "copy callback called %d times, with comm %p keyval %d value %ld", s.copies, (void *)s.lastComm, s.lastKeyval, (long)s.lastValue);
    CHECK(get(dup, kv) == 8, "the dup's value is %ld, want the copy's 8", (long)get(dup, kv));
    TRY(MPI_Comm_dup(dup, &dup2));
    CHECK(s.copies == 2 && s.lastComm == dup, "copy callback not called with the dup's handle");
    CHECK(get(dup2, kv) == 9, "the second dup's value");
    passed("copy callback on comm_dup");

    /* Replacing a value deletes the old one. */
    TRY(MPI_Comm_set_attr(dup, kv, (void *)(intptr_t)20));
    CHECK(s.deletes == 1 && s.lastValue == 8 && s.lastComm == dup, "set_attr did not delete the old value");
    TRY(MPI_Comm_delete_attr(dup, kv));
    CHECK(s.deletes == 2 && s.lastValue == 20 && get(dup, kv) == -1, "comm_delete_attr");
    passed("delete callback on comm_set_attr and comm_delete_attr");

    /* A failing delete callback fails the call and keeps the value. */
    s.failDelete = 1;
    RC(MPI_Comm_delete_attr(dup2, kv), MPI_ERR_OTHER);
    CHECK(get(dup2, kv) == 9, "a failed delete dropped the value");
    s.failDelete = 0;

    /* A failing copy callback fails the dup, whose new handle is then
     * MPI_COMM_NULL. */
    s.failCopy = 1;
    {
        MPI_Comm none = MPI_COMM_WORLD;
        RC(MPI_Comm_dup(MPI_COMM_WORLD, &none), MPI_ERR_OTHER);
        CHECK(none == MPI_COMM_NULL, "a failed MPI_Comm_dup left the handle %#x", MPI_Comm_toint(none));
        none = MPI_COMM_WORLD;
        RC(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &none), MPI_ERR_OTHER);
        CHECK(none == MPI_COMM_NULL, "a failed MPI_Comm_dup_with_info left the handle %#x", MPI_Comm_toint(none));
    }
    s.failCopy = 0;
    s.noCopy = 1;
    {
        MPI_Comm d3;
        TRY(MPI_Comm_dup(MPI_COMM_WORLD, &d3));
        CHECK(get(d3, kv) == -1, "a copy callback's flag 0 still copied");
        TRY(MPI_Comm_free(&d3));
    }
    s.noCopy = 0;
    passed("failing callbacks fail their calls");

    /* A freed keyval: the handle is gone, the attributes stay. */
    saved = kv;
    TRY(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "comm_free_keyval left %d", kv);
    RC(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, NULL), MPI_ERR_KEYVAL);
    RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &(void *){0}, &(int){0}), MPI_ERR_KEYVAL);
    RC(MPI_Comm_free_keyval(&saved), MPI_ERR_KEYVAL);
    s.deletes = 0;
    TRY(MPI_Comm_free(&dup2));
    CHECK(s.deletes == 1 && s.lastValue == 9 && s.lastKeyval == saved, "comm_free of a freed keyval's attribute ran %d deletes", s.deletes);
    TRY(MPI_Comm_free(&dup));
    CHECK(s.deletes == 1, "comm_free ran a delete for no value");
    passed("comm_free_keyval; comm_free deletes the attributes");

    /* The world keeps its value under the freed keyval, whose number
       names it until no attribute uses it (MPICH's fkeyval), and no new
       keyval takes the number meanwhile. */
    int other;
    TRY(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &other, NULL));
    CHECK(other != saved, "a new keyval took the number %d of a freed one still in use", saved);
    EQ((long)get(MPI_COMM_WORLD, saved), 7L, "the world's value under a freed keyval");
    s.deletes = 0;
    TRY(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved));
    CHECK(s.deletes == 1 && s.lastValue == 7 && s.lastKeyval == saved, "delete of the world's value under a freed keyval: %d deletes",
          s.deletes);
    RC(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, NULL), MPI_ERR_KEYVAL);
    TRY(MPI_Comm_free_keyval(&other));
    passed("a freed keyval in use names its attributes");
}

static void sentinels(void) {
    int dupKv, nullKv, oldKv, oldDup;
    MPI_Comm d;
    void *v;
    int flag;

    TRY(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dupKv, NULL));
    TRY(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nullKv, NULL));
    TRY(MPI_Comm_set_attr(MPI_COMM_WORLD, dupKv, (void *)(intptr_t)1));
    TRY(MPI_Comm_set_attr(MPI_COMM_WORLD, nullKv, (void *)(intptr_t)2));
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK(get(d, dupKv) == 1, "MPI_COMM_DUP_FN did not copy the value");
    CHECK(get(d, nullKv) == -1, "MPI_COMM_NULL_COPY_FN copied the value");
    TRY(MPI_Comm_free(&d));
    TRY(MPI_Comm_delete_attr(MPI_COMM_WORLD, dupKv));
    TRY(MPI_Comm_delete_attr(MPI_COMM_WORLD, nullKv));
    TRY(MPI_Comm_free_keyval(&dupKv));
    TRY(MPI_Comm_free_keyval(&nullKv));
    passed("MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN");

    /* The deprecated names. */
    TRY(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &oldDup, NULL));
    TRY(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &oldKv, NULL));
    TRY(MPI_Attr_put(MPI_COMM_WORLD, oldDup, (void *)(intptr_t)33));
    TRY(MPI_Attr_put(MPI_COMM_WORLD, oldKv, (void *)(intptr_t)44));
    TRY(MPI_Attr_get(MPI_COMM_WORLD, oldKv, &v, &flag));
    CHECK(flag && (intptr_t)v == 44, "attr_get");
    TRY(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK(get(d, oldDup) == 33 && get(d, oldKv) == -1, "MPI_DUP_FN / MPI_NULL_COPY_FN");
    TRY(MPI_Comm_free(&d));
    TRY(MPI_Attr_delete(MPI_COMM_WORLD, oldKv));
    TRY(MPI_Attr_get(MPI_COMM_WORLD, oldKv, &v, &flag));
    CHECK(!flag, "attr_delete left the value");
    TRY(MPI_Attr_delete(MPI_COMM_WORLD, oldDup));
    TRY(MPI_Keyval_free(&oldKv));
    TRY(MPI_Keyval_free(&oldDup));
    CHECK(oldKv == MPI_KEYVAL_INVALID, "keyval_free");
    passed("keyval_create, attr_put, attr_get, attr_delete, keyval_free");
}

static void predefined(void) {
    int *p, *q, flag;
    const int kvs[] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE};
    unsigned i;

    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p >= 32767, "MPI_TAG_UB is %d (flag %d)", flag ? *p : 0, flag);
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &q, &flag));
    CHECK(p == q, "MPI_TAG_UB's value moved");
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
    CHECK(flag && (*p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_HOST is %d", *p);
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
    CHECK(flag && (*p == MPI_ANY_SOURCE || *p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_IO is %d", *p);
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
    CHECK(flag && (*p == 0 || *p == 1), "MPI_WTIME_IS_GLOBAL is %d", *p);
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
    CHECK(flag && *p == 0, "MPI_APPNUM is %d", *p);
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag));
    CHECK(flag && *p >= size, "MPI_UNIVERSE_SIZE is %d, the world %d", *p, size);
    TRY(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag && *p >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE is %d", *p);
    passed("predefined attributes on MPI_COMM_WORLD");

    for (i = 0; i < sizeof kvs / sizeof kvs[0]; i++) {
        int k = kvs[i];
        RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k, NULL), MPI_ERR_KEYVAL);
        RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k), MPI_ERR_KEYVAL);
        RC(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    }
    RC(MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &p, &flag), MPI_ERR_COMM);
    passed("predefined keyvals cannot be set, deleted or freed");
}

static void typeAttrs(void) {
    struct calls s = {0};
    int kv, dupKv, flag, comm;
    MPI_Datatype t, d;
    void *v;

    TRY(MPI_Type_create_keyval(typeCopy, typeDelete, &kv, &s));
    TRY(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &dupKv, NULL));
    TRY(MPI_Type_contiguous(2, MPI_INT, &t));
    TRY(MPI_Type_set_attr(t, kv, (void *)(intptr_t)5));
    TRY(MPI_Type_set_attr(t, dupKv, (void *)(intptr_t)6));
    TRY(MPI_Type_get_attr(t, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 5, "type_get_attr");
    TRY(MPI_Type_dup(t, &d));
    CHECK(s.copies == 1 && s.lastType == t && s.lastKeyval == kv && s.lastValue == 5, "type copy callback saw %d calls", s.copies);
    TRY(MPI_Type_get_attr(d, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 10, "the dup's value is %ld", (long)(intptr_t)v);
    TRY(MPI_Type_get_attr(d, dupKv, &v, &flag));
    CHECK(flag && (intptr_t)v == 6, "MPI_TYPE_DUP_FN");
    TRY(MPI_Type_free(&d));
    CHECK(s.deletes == 1 && s.lastValue == 10, "type_free ran %d deletes", s.deletes);
    CHECK(s.lastType != MPI_DATATYPE_NULL && s.lastType != t, "the delete callback got handle %p", (void *)s.lastType);
    TRY(MPI_Type_delete_attr(t, kv));
    CHECK(s.deletes == 2 && s.lastType == t && s.lastValue == 5, "type_delete_attr");
    TRY(MPI_Type_get_attr(t, kv, &v, &flag));
    CHECK(!flag, "type_delete_attr left the value");
    TRY(MPI_Type_set_attr(t, kv, (void *)(intptr_t)7));
    s.failCopy = 1;
    d = MPI_INT;
    RC(MPI_Type_dup(t, &d), MPI_ERR_OTHER);
    CHECK(d == MPI_DATATYPE_NULL, "a failed MPI_Type_dup left the handle %#x", MPI_Type_toint(d));
    s.failCopy = 0;
    TRY(MPI_Type_delete_attr(t, kv));
    passed("type_create_keyval, type_set_attr, type_get_attr, type_delete_attr, callbacks on type_dup and type_free");

    /* On a predefined type. */
    TRY(MPI_Type_set_attr(MPI_DOUBLE, kv, (void *)(intptr_t)99));
    TRY(MPI_Type_get_attr(MPI_DOUBLE, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 99, "attribute on MPI_DOUBLE");
    TRY(MPI_Type_delete_attr(MPI_DOUBLE, kv));
    CHECK(s.lastType == MPI_DOUBLE, "the delete callback got %p, not MPI_DOUBLE", (void *)s.lastType);

    /* Kinds do not mix; a freed keyval is gone. */
    TRY(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm, NULL));
    RC(MPI_Type_set_attr(t, comm, NULL), MPI_ERR_KEYVAL);
    RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL), MPI_ERR_KEYVAL);
    RC(MPI_Type_free_keyval(&comm), MPI_ERR_KEYVAL);
    RC(MPI_Type_set_attr((MPI_Datatype)(intptr_t)0x7ffff0, kv, NULL), MPI_ERR_TYPE);
    TRY(MPI_Comm_free_keyval(&comm));
    {
        int saved = dupKv;
        TRY(MPI_Type_free_keyval(&dupKv));
        CHECK(dupKv == MPI_KEYVAL_INVALID, "type_free_keyval");
        /* t's value still holds the keyval: its number gets it, sets none. */
        TRY(MPI_Type_get_attr(t, saved, &v, &flag));
        CHECK(flag && (intptr_t)v == 6, "t's value under its freed keyval: flag %d", flag);
        RC(MPI_Type_set_attr(t, saved, NULL), MPI_ERR_KEYVAL);
    }
    TRY(MPI_Type_free(&t));
    TRY(MPI_Type_free_keyval(&kv));
    passed("type keyvals: kinds, freed keyvals");
}

/* MPI_COMM_SELF's attributes are deleted first thing in MPI_Finalize. */
static int selfDeleted;

static int selfDelete(MPI_Comm c, int kv, void *v, void *extra) {
    (void)kv, (void)extra;
    if (c == MPI_COMM_SELF && (intptr_t)v == 77)
        selfDeleted = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    int kv;
    start(&argc, &argv);
    TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
    commAttrs();
    sentinels();
    predefined();
    typeAttrs();
    TRY(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, selfDelete, &kv, NULL));
    TRY(MPI_Comm_set_attr(MPI_COMM_SELF, kv, (void *)(intptr_t)77));
    TRY(MPI_Finalize());
    CHECK(selfDeleted, "MPI_Finalize did not delete MPI_COMM_SELF's attribute");
    passed("MPI_Finalize deletes MPI_COMM_SELF's attributes");
    return 0;
}
