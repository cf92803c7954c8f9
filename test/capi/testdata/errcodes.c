/* errcodes: error classes, codes and strings a program adds
 * (MPI_Add_error_class/_code/_string, their Remove_ twins),
 * MPI_LASTUSEDCODE, and a user code raised with MPI_Comm_call_errhandler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int rank;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static int seen_code;

static void handler(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    seen_code = *code;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Errors of calls that name no communicator go to MPI_COMM_SELF's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int *last, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    CHECK(flag && *last == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d before any added, want %d", *last, MPI_ERR_LASTCODE);

    int class, code, got, len;
    CHECK(MPI_Add_error_class(&class) == MPI_SUCCESS, "add error class");
    CHECK(class > MPI_ERR_LASTCODE, "added class %d is not above MPI_ERR_LASTCODE", class);
    CHECK(MPI_Add_error_code(class, &code) == MPI_SUCCESS && code > class, "add error code of class %d gave %d", class, code);
    CHECK(*last == code, "MPI_LASTUSEDCODE %d, want the last code %d", *last, code);
    CHECK(MPI_Error_class(code, &got) == MPI_SUCCESS && got == class, "class of code %d: %d, want %d", code, got, class);
    CHECK(MPI_Error_class(MPI_ERR_TRUNCATE, &got) == MPI_SUCCESS && got == MPI_ERR_TRUNCATE, "class of MPI_ERR_TRUNCATE");
    CHECK(MPI_Error_class(MPI_ERR_LASTCODE, &got) == MPI_SUCCESS && got == MPI_ERR_LASTCODE, "class of MPI_ERR_LASTCODE");
    CHECK(MPI_Add_error_code(MPI_ERR_LASTCODE + 100000, &got) == MPI_ERR_ARG, "a code of an unknown class was added");

    char msg[MPI_MAX_ERROR_STRING];
    CHECK(MPI_Add_error_string(code, "the widget is broken") == MPI_SUCCESS, "add error string");
    CHECK(MPI_Error_string(code, msg, &len) == MPI_SUCCESS && strcmp(msg, "the widget is broken") == 0 && len == (int)strlen(msg),
          "error string of code %d: %s (%d)", code, msg, len);
    CHECK(MPI_Add_error_string(MPI_ERR_RANK, "mine") == MPI_ERR_ARG, "a predefined class's string was replaced");
    CHECK(MPI_Error_string(MPI_ERR_RANK, msg, &len) == MPI_SUCCESS && strstr(msg, "MPI_ERR_RANK") != NULL, "MPI_ERR_RANK's string: %s", msg);
    /* Every class has its text, those of calls gompi lacks too. */
    static const struct {
        int class;
        const char *name;
    } named[] = {{MPI_ERR_INFO, "MPI_ERR_INFO"}, {MPI_ERR_WIN, "MPI_ERR_WIN"}, {MPI_ERR_IO, "MPI_ERR_IO"},
                 {MPI_ERR_ERRHANDLER, "MPI_ERR_ERRHANDLER"}, {MPI_ERR_ABI, "MPI_ERR_ABI"},
                 {MPI_ERR_LASTCODE, "MPI_ERR_LASTCODE"}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        CHECK(MPI_Error_string(named[i].class, msg, &len) == MPI_SUCCESS && strncmp(msg, named[i].name, strlen(named[i].name)) == 0 &&
                  msg[strlen(named[i].name)] == ':',
              "%s's string: %s", named[i].name, msg);
    printf("ok add rank %d\n", rank);

    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS, "call errhandler");
    CHECK(seen_code == code, "the handler saw code %d, want %d", seen_code, code);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    printf("ok raise rank %d\n", rank);

    CHECK(MPI_Remove_error_class(class) == MPI_ERR_ARG, "a class with a code left was removed");
    CHECK(MPI_Remove_error_code(class) == MPI_ERR_ARG, "a class was removed as a code");
    CHECK(MPI_Remove_error_code(code) == MPI_ERR_ARG, "a code with its string was removed");
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS, "remove error string");
    CHECK(MPI_Remove_error_string(code) == MPI_ERR_ARG, "a string was removed twice");
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS, "remove error code");
    CHECK(MPI_Remove_error_class(class) == MPI_SUCCESS, "remove error class");
    CHECK(MPI_Error_class(code, &got) == MPI_ERR_ARG, "a removed code still has a class");
    printf("ok remove rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
