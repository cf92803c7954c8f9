/* MPI_Info through libmpi_abi: keys and values, the truncation rules of
 * MPI_Info_get and MPI_Info_get_string, dup and free, MPI_INFO_ENV and
 * MPI_Info_create_env, and the error classes of bad keys, values and
 * handles. Runs with any number of ranks. */
#include "check.h"

static void keys(void) {
    MPI_Info info, dup;
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int n, flag, len;

    TRY(MPI_Info_create(&info));
    TRY(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "a new info has %d keys", n);
    TRY(MPI_Info_set(info, "alpha", "one"));
    TRY(MPI_Info_set(info, "beta", "twenty-two"));
    TRY(MPI_Info_set(info, "gamma", "3"));
    TRY(MPI_Info_set(info, "alpha", "uno"));
    TRY(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "nkeys %d, want 3", n);
    TRY(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "alpha") == 0, "key 0 is %s", key);
    TRY(MPI_Info_get_nthkey(info, 2, key));
    CHECK(strcmp(key, "gamma") == 0, "key 2 is %s", key);
    passed("info_create, info_set, info_get_nkeys, info_get_nthkey");

    TRY(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "uno") == 0, "info_get alpha: %d %s", flag, val);
    TRY(MPI_Info_get(info, "beta", 6, val, &flag));
    CHECK(flag && strcmp(val, "twenty") == 0, "info_get cut to 6: %s", val);
    TRY(MPI_Info_get(info, "delta", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(!flag, "info_get of a missing key");
    TRY(MPI_Info_get_valuelen(info, "beta", &len, &flag));
    CHECK(flag && len == 10, "valuelen %d", len);
    TRY(MPI_Info_get_valuelen(info, "delta", &len, &flag));
    CHECK(!flag, "valuelen of a missing key");
    passed("info_get, info_get_valuelen");

    len = 0;
    TRY(MPI_Info_get_string(info, "beta", &len, val, &flag));
    CHECK(flag && len == 11, "get_string's length query gave %d", len);
    len = 5;
    TRY(MPI_Info_get_string(info, "beta", &len, val, &flag));
    CHECK(flag && len == 11 && strcmp(val, "twen") == 0, "get_string cut to 5: %d %s", len, val);
    len = sizeof val;
    TRY(MPI_Info_get_string(info, "beta", &len, val, &flag));
    CHECK(flag && strcmp(val, "twenty-two") == 0, "get_string: %s", val);
    TRY(MPI_Info_get_string(info, "delta", &len, val, &flag));
    CHECK(!flag, "get_string of a missing key");
    passed("info_get_string");

    TRY(MPI_Info_dup(info, &dup));
    TRY(MPI_Info_delete(info, "alpha"));
    TRY(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "nkeys after delete %d", n);
    TRY(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "beta") == 0, "key 0 after delete is %s", key);
    TRY(MPI_Info_get_nkeys(dup, &n));
    CHECK(n == 3, "the dup lost a key: %d", n);
    TRY(MPI_Info_get(dup, "alpha", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "uno") == 0, "the dup's alpha");
    TRY(MPI_Info_free(&dup));
    CHECK(dup == MPI_INFO_NULL, "info_free left the handle");
    passed("info_dup, info_delete, info_free");

    /* Errors: with no communicator, they go to MPI_COMM_SELF's handler. */
    {
        char big[MPI_MAX_INFO_KEY + 10];
        MPI_Info freed = info;
        memset(big, 'k', sizeof big - 1);
        big[sizeof big - 1] = 0;
        RC(MPI_Info_delete(info, "alpha"), MPI_ERR_INFO_NOKEY);
        RC(MPI_Info_set(info, big, "v"), MPI_ERR_INFO_KEY);
        RC(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
        RC(MPI_Info_set(info, "k", ""), MPI_ERR_INFO_VALUE);
        RC(MPI_Info_get_nthkey(info, 2, key), MPI_ERR_ARG);
        RC(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
        TRY(MPI_Info_free(&info));
        RC(MPI_Info_set(freed, "k", "v"), MPI_ERR_INFO);
        RC(MPI_Info_get_nkeys(freed, &n), MPI_ERR_INFO);
        RC(MPI_Info_free(&freed), MPI_ERR_INFO);
        RC(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    }
    passed("error classes of bad keys, values and info handles");
}

static void env(int argc, char **argv, MPI_Info before) {
    char val[MPI_MAX_INFO_VAL + 1];
    int flag, n;
    MPI_Info e, d;

    TRY(MPI_Info_get(before, "command", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, argv[0]) == 0, "create_env's command is %s, want %s", flag ? val : "(none)", argv[0]);
    TRY(MPI_Info_get(before, "argv", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(argc < 2 || (flag && strncmp(val, argv[1], strlen(argv[1])) == 0), "create_env's argv is %s", flag ? val : "(none)");
    {
        int size;
        TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
        TRY(MPI_Info_get(before, "maxprocs", MPI_MAX_INFO_VAL, val, &flag));
        CHECK(flag && atoi(val) == size, "create_env's maxprocs before MPI_Init is %s, the world %d", flag ? val : "(none)", size);
    }
    TRY(MPI_Info_free(&before));

    TRY(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK(n >= 1, "MPI_INFO_ENV has %d keys", n);
    TRY(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strstr(val, "info") != NULL, "MPI_INFO_ENV's command is %s", flag ? val : "(none)");
    TRY(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, val, &flag));
    {
        int size;
        TRY(MPI_Comm_size(MPI_COMM_WORLD, &size));
        CHECK(flag && atoi(val) == size, "MPI_INFO_ENV's maxprocs is %s, the world %d", flag ? val : "(none)", size);
    }
    TRY(MPI_Info_dup(MPI_INFO_ENV, &d));
    TRY(MPI_Info_set(d, "command", "changed"));
    TRY(MPI_Info_free(&d));
    RC(MPI_Info_set(MPI_INFO_ENV, "command", "x"), MPI_ERR_INFO);
    RC(MPI_Info_delete(MPI_INFO_ENV, "command"), MPI_ERR_INFO);
    e = MPI_INFO_ENV;
    RC(MPI_Info_free(&e), MPI_ERR_INFO);
    TRY(MPI_Info_create_env(0, NULL, &e));
    TRY(MPI_Info_get(e, "command", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag, "create_env without argv has no command");
    TRY(MPI_Info_free(&e));
    passed("MPI_INFO_ENV, info_create_env");
}

/* The hardware info: this host, and the CPUs this rank may run on. */
static void hw(void) {
    MPI_Info hw;
    char val[MPI_MAX_INFO_VAL], host[MPI_MAX_PROCESSOR_NAME];
    int flag = 0, n;
    TRY(MPI_Get_hw_resource_info(&hw));
    TRY(MPI_Get_processor_name(host, &n));
    TRY(MPI_Info_get(hw, "gompi_host", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, host) == 0, "gompi_host is %s, the processor name %s", flag ? val : "(none)", host);
    TRY(MPI_Info_get(hw, "gompi_cpus", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && val[0] >= '0' && val[0] <= '9', "gompi_cpus is %s", flag ? val : "(none)");
    TRY(MPI_Info_free(&hw));
    passed("get_hw_resource_info");
}

int main(int argc, char **argv) {
    MPI_Info before;
    /* MPI_Info_create_env may come before MPI_Init. */
    TRY(MPI_Info_create_env(argc, argv, &before));
    start(&argc, &argv);
    keys();
    env(argc, argv, before);
    hw();
    TRY(MPI_Finalize());
    return 0;
}
